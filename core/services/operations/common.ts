import type { Actor } from '../../domain/actor.js'
import type { Clock } from '../../ports.js'
import type { Repositories } from '../../repositories.js'
import type { CompanyAccess } from '../access.js'
import type { Engine } from '../../operations/engine.js'
import type { NewTask, Operation, OperationType } from '../../domain/operation.js'
import type { Selection } from '../../operations/selection.js'
import { schedule } from '../../operations/schedule.js'
import { newUid } from '../../security/secrets.js'

/** What every operation request may carry (fleet-api.md §Common operation parameters). */
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
}

export interface Caller { access: CompanyAccess, actor: Actor }

/**
 * Builds the operation record, validating the schedule (set T) against now.
 * @throws operation.invalid.schedule.date, operation.invalid.timeout.date
 */
export async function newOperation (deps: OperationDeps, caller: Caller, type: OperationType, common: CommonParams,
  parameters: Record<string, unknown>, selection: Pick<Selection, 'dependsOn' | 'resolved'> = { dependsOn: null, resolved: true }): Promise<Operation> {
  const now = deps.clock.now()
  const { scheduledTime, timeoutDate } = schedule(common.scheduledTime, common.timeout, now)
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
    callback: common.callback ?? null,
    parameters,
    dependsOn: selection.dependsOn,
    resolved: selection.resolved
  }
}

/** Writes the operation and its tasks in one transaction, then schedules it; answers `{operation}`. */
export async function launch (deps: OperationDeps, op: Operation, tasks: NewTask[]): Promise<{ operation: string }> {
  const target = tasks.length === 1 ? tasks[0]?.systemUid ?? null : null
  return { operation: await deps.engine.create({ ...op, target }, tasks) }
}
