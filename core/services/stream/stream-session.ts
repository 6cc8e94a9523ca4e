// One live stream connection (GET /api/v1/stream): its subscriptions, and which committed events it sends.
// Rights and tenancy as the REST endpoints (docs/api.md): systems and operations are read with
// entities.systems.view, in the context company only. Events arrive here only for that company (./stream.service.ts
// indexes sessions by company, and an event carries the company that held its system or operation at the commit),
// so another company's systems never show, whatever the criteria, and a system transferred away stops showing.
import { FleetError } from '../../errors.js'
import type { FleetEvent } from '../../ports/events.js'
import type { OperationsRepository } from '../../ports/operations.js'
import type { SystemsRepository } from '../../ports/systems.js'
import { counters, type Operation } from '../../domain/operation.js'
import { criteriaFromQuery } from '../systems/find.js'
import type { StreamCommand, SystemsTarget } from './commands.js'

/** docs/api.md#systems and docs/operations.md#bulk-operations: reading systems and operations needs this right. */
export const VIEW_RIGHT = 'entities.systems.view'
export const MAX_SUBSCRIPTIONS = 100
/**
 * The systems one stream follows by name, all its subscriptions together (a label or criteria is resolved to its
 * systems, held in memory): more, and the client narrows them or follows every system with `criteria: {}`.
 */
export const MAX_RESOLVED = 10_000

export interface StreamAccess { companyUid: string, rights: ReadonlySet<string> }

/** A server message: `event` names its kind (docs/stream.md). */
export type ServerMessage = Record<string, unknown> & { event: string }

interface SystemsSub {
  kind: 'systems'
  target: SystemsTarget
  dataIds: ReadonlySet<string> | null
  /** null: every system of the company (criteria {}). */
  uids: ReadonlySet<string> | null
}
interface OperationsSub { kind: 'operations', uids: ReadonlySet<string> | null }
type Sub = SystemsSub | OperationsSub

export interface SessionDeps {
  systems: Pick<SystemsRepository, 'findUids'>
  operations: Pick<OperationsRepository, 'findInCompany' | 'counts'>
}

const tooMany = (): FleetError => new FleetError('request.invalid', ['systems', `a stream follows at most ${MAX_RESOLVED} systems by uids, label or criteria: narrow them, or follow every system with criteria {}`])

/**
 * The systems a target names now; uids must all be the company's (system.unknown otherwise, as GET /systems/{uid}).
 * `room`: how many more systems the stream may follow by name. null: every system of the company (criteria {}).
 */
async function resolveTarget (systems: SessionDeps['systems'], company: string, target: SystemsTarget, room: number): Promise<ReadonlySet<string> | null> {
  if (target.by === 'uids') {
    const found = new Set(await systems.findUids(company, { uids: target.uids }, target.uids.length))
    const missing = target.uids.find((u) => !found.has(u))
    if (missing !== undefined) throw new FleetError('system.unknown', [missing])
    if (found.size > room) throw tooMany()
    return found
  }
  const criteria = target.by === 'label' ? { labels: [target.label] } : criteriaFromQuery(target.criteria)
  if (Object.keys(criteria).length === 0) return null
  const uids = await systems.findUids(company, criteria, Math.max(0, room) + 1)
  if (uids.length > room) throw tooMany()
  return new Set(uids)
}

/** The operations a subscription names, all the company's: operation.unknown otherwise. */
async function ownOperations (operations: SessionDeps['operations'], company: string, uids: readonly string[]): Promise<Operation[]> {
  const ops: Operation[] = []
  for (const uid of uids) {
    const op = await operations.findInCompany(company, uid)
    if (op === undefined) throw new FleetError('operation.unknown', [uid])
    ops.push(op)
  }
  return ops
}

/** Where each operation is now, as the stream's operation events say it. */
async function operationStates (operations: SessionDeps['operations'], ops: readonly Operation[]): Promise<ServerMessage[]> {
  const counts = await operations.counts(ops.map((o) => o.uid))
  return ops.map((o): ServerMessage => ({ event: 'operation', uid: o.uid, type: o.type, state: o.state, counters: counters(counts.get(o.uid) ?? {}) }))
}

/** What a committed event of the session's company sends, given the session's subscriptions (nothing: none follows it). */
function eventMessages (e: FleetEvent, subs: Iterable<Sub>): ServerMessage[] {
  const all = [...subs]
  if (e.kind === 'operation') {
    const followed = all.some((s) => s.kind === 'operations' && (s.uids === null || s.uids.has(e.uid)))
    return followed ? [{ event: 'operation', uid: e.uid, type: e.type, state: e.state, counters: e.counters }] : []
  }
  const following = all.filter((s): s is SystemsSub => s.kind === 'systems' && (s.uids === null || s.uids.has(e.system)))
  if (following.length === 0) return []
  if (e.kind === 'commStatus') return [{ event: 'commStatus', system: e.system, status: e.status, lastCommDate: e.lastCommDate }]
  if (e.kind === 'alert') return [{ event: 'alert', system: e.system, uid: e.uid, rule: e.rule, ruleName: e.ruleName, date: e.date }]
  const out: ServerMessage[] = [{ event: 'message', system: e.system, uid: e.uid, protocol: e.protocol, timestamp: e.timestamp }]
  for (const p of e.points) {
    if (following.some((s) => s.dataIds === null || s.dataIds.has(p.dataId))) out.push({ event: 'points', system: e.system, dataId: p.dataId, ts: p.ts, v: p.v })
  }
  return out
}

export function createStreamSession (deps: SessionDeps, initial: StreamAccess, send: (m: ServerMessage) => void) {
  let access = initial
  const subs = new Map<string, Sub>()
  let seq = 0

  function needView (): void {
    if (!access.rights.has(VIEW_RIGHT)) throw new FleetError('missing.rights', [VIEW_RIGHT])
  }

  /** `id`: the subscription being read again, whose own systems do not count against the stream's bound. */
  async function resolve (target: SystemsTarget, id: string | null): Promise<ReadonlySet<string> | null> {
    let held = 0
    for (const [other, s] of subs) if (other !== id && s.kind === 'systems' && s.uids !== null) held += s.uids.size
    return await resolveTarget(deps.systems, access.companyUid, target, MAX_RESOLVED - held)
  }

  async function subscribe (cmd: Extract<StreamCommand, { action: 'subscribe' }>): Promise<ServerMessage[]> {
    needView()
    if (subs.size >= MAX_SUBSCRIPTIONS) throw new FleetError('request.invalid', ['subscribe', `at most ${MAX_SUBSCRIPTIONS} subscriptions per stream`])
    const id = `s${++seq}`
    if ('systems' in cmd) {
      const uids = await resolve(cmd.systems, null)
      subs.set(id, { kind: 'systems', target: cmd.systems, dataIds: cmd.dataIds === null ? null : new Set(cmd.dataIds), uids })
      return [{ event: 'subscribed', ref: cmd.ref, subscription: id, systems: uids === null ? null : uids.size }]
    }
    if (cmd.operations.by === 'all') {
      subs.set(id, { kind: 'operations', uids: null })
      return [{ event: 'subscribed', ref: cmd.ref, subscription: id }]
    }
    const ops = await ownOperations(deps.operations, access.companyUid, cmd.operations.uids)
    subs.set(id, { kind: 'operations', uids: new Set(cmd.operations.uids) })
    // Where each operation is now, after the answer: what changes from here on follows as it is committed.
    return [{ event: 'subscribed', ref: cmd.ref, subscription: id }, ...await operationStates(deps.operations, ops)]
  }

  /** Runs one client command; answers what to send back (refusals are thrown as FleetError). */
  async function handle (cmd: StreamCommand): Promise<ServerMessage[]> {
    if (cmd.action === 'unsubscribe') {
      if (!subs.delete(cmd.subscription)) throw new FleetError('request.invalid', ['subscription', `no subscription ${cmd.subscription} in this stream`])
      return [{ event: 'unsubscribed', ref: cmd.ref, subscription: cmd.subscription }]
    }
    return await subscribe(cmd)
  }

  /** A committed event of this session's company: sent when a subscription follows it. */
  function deliver (e: FleetEvent): void {
    if (e.company !== access.companyUid || !access.rights.has(VIEW_RIGHT)) return
    for (const m of eventMessages(e, subs.values())) send(m)
  }

  /** Labels and criteria are read again: systems labelled or changed since join, others leave (STREAM_RECHECK_MS). */
  async function refresh (): Promise<void> {
    for (const [id, s] of subs) {
      if (s.kind !== 'systems' || s.target.by === 'uids') continue
      const uids = await resolve(s.target, id).catch((err: unknown) => {
        // Too many systems now: the subscription keeps what it had (the client was told the limit when it subscribed).
        if (err instanceof FleetError && err.code === 'request.invalid') return s.uids
        throw err
      })
      if (subs.get(id) === s) subs.set(id, { ...s, uids })
    }
  }

  return {
    handle,
    deliver,
    refresh,
    /** The rights may change while the stream is open (checked again every STREAM_RECHECK_MS). */
    setAccess (next: StreamAccess): void { access = next },
    get companyUid (): string { return access.companyUid },
    subscriptions: (): number => subs.size
  }
}

export type StreamSession = ReturnType<typeof createStreamSession>
