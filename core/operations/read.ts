import { FleetError } from '../errors.js'
import type { Repositories, Found } from '../ports/repositories.js'
import type { CompanyAccess } from '../services/access.js'
import type { Engine } from './engine.js'
import { list, page, toMillis } from '../domain/lists.js'
import { OPERATION_TYPES, operationEntity, operationView, taskView, type Operation } from '../domain/operation.js'
import { OPERATION_RIGHTS } from './rights.js'
import { planOf } from './rollout.js'
import { rolloutView } from './rollout-view.js'

export interface OperationListQuery {
  uid?: string | string[]
  states?: string | string[]
  operationTypes?: string | string[]
  entities?: string | string[]
  target?: string
  user?: string
  createdAfter?: number
  createdBefore?: number
  offset?: number
  size?: number
}

type View = Record<string, unknown>

/** The operation JSON of each (docs/operations.md#bulk-operations), with its rollout's progress when it has one. */
async function views (repos: Pick<Repositories, 'operations'>, ops: Operation[]): Promise<View[]> {
  const counts = await repos.operations.counts(ops.map((o) => o.uid))
  // Tasks started, for the rollouts' `sent` only: a plain operation's view reads nothing more.
  const rollouts = ops.filter((o) => planOf(o) !== undefined || (o.pausedAt ?? null) !== null)
  const started = rollouts.length === 0 ? new Map<string, number>() : await repos.operations.started(rollouts.map((o) => o.uid))
  return ops.map((o) => {
    const c = counts.get(o.uid) ?? {}
    return operationView(o, c, rolloutView(o, c, started.get(o.uid) ?? 0))
  })
}

/**
 * The operation types a list may hold: an operation's entity follows from its type (SYSTEM, or APPLICATION for
 * release and publish: docs/operations.md#bulk-operations), so `entities` narrows `operationTypes`; an entity no
 * type has (USER) leaves none. Undefined when neither filter is given.
 */
function typesOf (entities: string[] | undefined, types: string[] | undefined): string[] | undefined {
  if (entities === undefined) return types
  const ofEntities: string[] = OPERATION_TYPES.filter((t) => entities.includes(operationEntity(t)))
  return types === undefined ? ofEntities : types.filter((t) => ofEntities.includes(t))
}

/** GET /api/v1/operations and friends (docs/operations.md#bulk-operations). */
export function createOperationsReader (repos: Pick<Repositories, 'operations'>, engine: Engine) {
  async function load (access: CompanyAccess, uid: string): Promise<Operation> {
    const op = await repos.operations.findInCompany(access.company.uid, uid)
    if (op === undefined) throw new FleetError('operation.unknown', [uid])
    return op
  }

  /** Paginated, newest first; filters uid, states, operationTypes, entities, target, user, createdAfter/Before. */
  async function find (access: CompanyAccess, q: OperationListQuery): Promise<Found<View> & { size: number, offset: number }> {
    const p = page(q.offset, q.size)
    const operationTypes = typesOf(list(q.entities), list(q.operationTypes))
    if (operationTypes?.length === 0) return { items: [], count: 0, size: 0, offset: p.offset }
    const found = await repos.operations.list(access.company.uid, {
      uid: list(q.uid),
      states: list(q.states),
      operationTypes,
      target: q.target,
      user: q.user,
      createdAfter: q.createdAfter === undefined ? undefined : toMillis(q.createdAfter),
      createdBefore: q.createdBefore === undefined ? undefined : toMillis(q.createdBefore)
    }, p)
    const items = await views(repos, found.items)
    return { items, count: found.count, size: items.length, offset: p.offset }
  }

  /**
   * The operation, for a caller who holds the right that creating its type needs: cancelling it, and reading its
   * file (a data export needs the export right; a failed-rows file holds what only its writers may see).
   * @throws operation.unknown, missing.rights (403)
   */
  async function loadWithRight (access: CompanyAccess, uid: string): Promise<Operation> {
    const op = await load(access, uid)
    const right = OPERATION_RIGHTS[op.type]
    if (!access.membership.rights.has(right)) throw new FleetError('missing.rights', [right])
    return op
  }

  /** @throws operation.unknown */
  async function get (access: CompanyAccess, uid: string): Promise<View> {
    return (await views(repos, [await load(access, uid)]))[0] as View
  }

  /** @throws operation.unknown */
  async function tasks (access: CompanyAccess, uid: string, q: { states?: string | string[], offset?: number, size?: number }): Promise<Found<View> & { size: number, offset: number }> {
    await load(access, uid)
    const p = page(q.offset, q.size)
    const found = await repos.operations.tasks(uid, list(q.states), p)
    return { items: found.items.map(taskView), count: found.count, size: found.items.length, offset: p.offset }
  }

  /**
   * Cancels what has not finished; answers the operation. Needs the right that creating its type needs.
   * @throws operation.unknown, missing.rights (403)
   */
  async function cancel (access: CompanyAccess, uid: string): Promise<View> {
    const op = await loadWithRight(access, uid)
    if (op.state !== 'FINISHED') await engine.cancel(op)
    return await get(access, uid)
  }

  /** Pauses or resumes; as cancel, its right and a FINISHED one as it is. @throws operation.unknown, missing.rights */
  async function pause (access: CompanyAccess, uid: string, paused: boolean): Promise<View> {
    const op = await loadWithRight(access, uid)
    if (op.state !== 'FINISHED') await engine.pause(op, paused)
    return await get(access, uid)
  }
  /**
   * The produced file; needs the right that creating its type needs.
   * @throws operation.unknown, missing.rights (403); company.file.not.found while none exists
   */
  async function file (access: CompanyAccess, uid: string): Promise<{ name: string, contentType: string, data: Buffer }> {
    await loadWithRight(access, uid)
    const f = await repos.operations.file(uid)
    if (f === undefined) throw new FleetError('company.file.not.found', [uid])
    return f
  }

  const resume = async (access: CompanyAccess, uid: string): Promise<View> => await pause(access, uid, false)
  return { find, get, tasks, cancel, pause: async (access: CompanyAccess, uid: string) => await pause(access, uid, true), resume, file }
}
