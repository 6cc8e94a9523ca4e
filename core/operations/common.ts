import type { Actor } from '../domain/actor.js'
import type { Clock } from '../ports/store.js'
import type { Repositories } from '../ports/repositories.js'
import type { CompanyAccess } from '../services/access.js'
import type { Engine } from './engine.js'
import type { NewTask, Operation, OperationType } from '../domain/operation.js'
import type { Selection } from './selection.js'
import { schedule } from './schedule.js'
import type { CallbackGuard } from './callback-guard.js'
import { FleetError } from '../errors.js'
import { newUid } from '../security/secrets.js'

/** What every operation request may carry (docs/operations.md#bulk-operations). */
export interface CommonParams {
  notify?: boolean | null
  callback?: string | null
  scheduledTime?: number | null
  timeout?: number | null
}

export interface OperationDeps {
  repos: Repositories
  clock: Clock
  engine: Engine
  callbacks: CallbackGuard
}

export interface Caller { access: CompanyAccess, actor: Actor }

/**
 * The callback URL, checked now: refused here rather than accepted and never delivered
 * (docs/operations.md#bulk-operations; core/operations/callback-guard.ts). An empty one is none. @throws
 * callback.invalid, callback.forbidden
 */
async function checkedCallback (guard: CallbackGuard, url: string | null | undefined): Promise<string | null> {
  if (url == null || url.trim() === '') return null
  const verdict = await guard.check(url)
  if (!verdict.ok) throw new FleetError(verdict.code, verdict.params)
  return url
}

/**
 * Builds the operation record, validating the schedule (set T) against now and the callback URL.
 * @throws operation.invalid.schedule.date, operation.invalid.timeout.date, callback.invalid, callback.forbidden
 */
export async function newOperation (deps: OperationDeps, caller: Caller, type: OperationType, common: CommonParams,
  parameters: Record<string, unknown>, selection: Pick<Selection, 'dependsOn' | 'resolved'> = { dependsOn: null, resolved: true }): Promise<Operation> {
  const now = deps.clock.now()
  const { scheduledTime, timeoutDate } = schedule(common.scheduledTime, common.timeout, now)
  const callback = await checkedCallback(deps.callbacks, common.callback)
  const user = caller.actor.userUid === null ? undefined : await deps.repos.users.findByUid(caller.actor.userUid)
  const waits = (scheduledTime !== null && scheduledTime > now) || !selection.resolved
  return {
    uid: newUid(),
    companyUid: caller.access.company.uid,
    type,
    state: waits ? 'SCHEDULED' : 'IN_PROGRESS',
    createdAt: now,
    startDate: waits ? null : now,
    scheduledTime,
    timeoutDate,
    endDate: null,
    cancelDate: null,
    total: 0,
    target: null,
    userUid: user?.uid ?? null,
    userEmail: user?.email ?? null,
    notify: common.notify === true,
    callback,
    parameters,
    dependsOn: selection.dependsOn,
    resolved: selection.resolved
  }
}

/** Writes the operation and its tasks in one transaction, then schedules it; answers `{operation}`. */
export async function launch (deps: OperationDeps, op: Operation, tasks: NewTask[]): Promise<{ operation: string }> {
  // A CSV row's task has no system before it runs (core/operations/csv/): no target then.
  const only = tasks.length === 1 ? tasks[0]?.systemUid : undefined
  const target = only === undefined || only === '' ? null : only
  return { operation: await deps.engine.create({ ...op, target }, tasks) }
}
