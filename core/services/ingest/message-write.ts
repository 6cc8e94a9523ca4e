// The acknowledged write of a batch of device messages: the messages and their points, and the alerts they raise
// (decision 0032), in one transaction.
import { FleetError } from '../../errors.js'
import type { UnitOfWork } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { AlertRuleMatch } from '../../ports/alert-evaluation.js'
import type { DataValue, DeviceMessage } from '../../domain/device-message.js'
import { decodeValue, encodeValue, type PointRow } from '../../ports/telemetry.js'
import { retryWhileUnavailable, type RetryOptions } from '../../store-errors.js'
import { settledInOrder } from '../../settled.js'
import { evaluateCandidates, evaluateOnReads, readForEvaluation, type EvaluationReads } from '../alerts/alert-evaluate.js'
import { candidatesOf, type PointKey, type SystemTraffic } from '../alerts/alert-evaluation.js'
import type { CachedMatches, CarriedPoint } from '../../ports/alert-evaluation.js'

/** Rolls back a batch written at once that holds a message of a system not found (see writeMessages()). */
class UnknownSystemInBatch extends Error {}

/** The points of the messages that `keep` keeps, as rows. */
function pointRows (msgs: readonly DeviceMessage[], keep: (m: DeviceMessage) => boolean): PointRow[] {
  const points: PointRow[] = []
  for (const m of msgs) {
    if (!keep(m)) continue
    for (const p of m.points) points.push({ systemUid: m.systemUid, dataId: p.dataId, ts: p.ts, value: p.value, messageUid: m.uid })
  }
  return points
}

/**
 * The (system, data id) pairs of the messages' points of the data ids the rules found name, each once: what the rules
 * are evaluated for. Only those: with one rule per device on one of its three data ids, the pairs of every point
 * were the largest of the evaluation's own costs in a CPU profile of bench alerts (PostgreSQL).
 */
function pointKeys (msgs: readonly DeviceMessage[], named: ReadonlySet<string>): PointKey[] {
  const seen = new Map<string, Set<string>>()
  const keys: PointKey[] = []
  for (const m of msgs) {
    for (const p of m.points) {
      if (!named.has(p.dataId)) continue
      let ids = seen.get(m.systemUid)
      if (ids === undefined) { ids = new Set<string>(); seen.set(m.systemUid, ids) }
      if (ids.has(p.dataId)) continue
      ids.add(p.dataId)
      keys.push({ systemUid: m.systemUid, dataId: p.dataId })
    }
  }
  return keys
}

/**
 * The batch's newest point of each (system, data id) the rules found name, the later one of two at one time: what the
 * rules are evaluated on for the pairs the batch carries (decision 0035).
 */
function carriedPoints (msgs: readonly DeviceMessage[], named: ReadonlySet<string>): Map<string, Map<string, CarriedPoint>> {
  const carried = new Map<string, Map<string, CarriedPoint>>()
  for (const m of msgs) {
    for (const p of m.points) {
      if (!named.has(p.dataId)) continue
      let ids = carried.get(m.systemUid)
      if (ids === undefined) { ids = new Map<string, CarriedPoint>(); carried.set(m.systemUid, ids) }
      if (p.ts >= (ids.get(p.dataId)?.ts ?? -Infinity)) ids.set(p.dataId, { ts: p.ts, value: asStored(p.value) })
    }
  }
  return carried
}

/** A value as the store answers it back (a number that is not finite reads as null). */
function asStored (v: DataValue): DataValue {
  const { num, str } = encodeValue(v)
  return decodeValue(num, str)
}

const distinct = (values: Iterable<string>): string[] => [...new Set(values)]

/** What the batch says of each system's communication before the derived state does. */
function trafficOf (msgs: readonly DeviceMessage[]): Map<string, SystemTraffic> {
  const traffic = new Map<string, { lastComm: number, protocols: Set<string> }>()
  for (const m of msgs) {
    const t = traffic.get(m.systemUid) ?? { lastComm: m.receivedAt, protocols: new Set<string>() }
    t.lastComm = Math.max(t.lastComm, m.receivedAt)
    t.protocols.add(m.protocol)
    traffic.set(m.systemUid, t)
  }
  return traffic
}

/**
 * The rules the batch's points may change, evaluated on the points just inserted; answers the alerts raised. `matches`
 * were found by the companies in `asked`; a system the store found in another company (a message's company is its
 * device session's) has that company's rules looked up now.
 */
async function raiseAlerts (tx: Repositories, matches: AlertRuleMatch[], asked: readonly string[], msgs: readonly DeviceMessage[],
  known: ReadonlyMap<string, string>, now: number): Promise<string[]> {
  const missing = distinct(known.values()).filter((c) => !asked.includes(c))
  if (matches.length === 0 && missing.length === 0) return []
  if (missing.length > 0) {
    matches = [...matches, ...await tx.alertEvaluation.candidates(missing, distinct(msgs.flatMap((m) => m.points.map((p) => p.dataId))), distinct(msgs.map((m) => m.systemUid)))]
  }
  const named = new Set(matches.flatMap((r) => r.dataIds))
  const candidates = candidatesOf(matches, pointKeys(msgs, named), known)
  if (candidates.length === 0) return []
  return (await evaluateCandidates(tx.alertEvaluation, candidates, now, { traffic: trafficOf(msgs), known, carried: carriedPoints(msgs, named) })).raised
}

/** An evaluation begun on the rules in memory, and what it assumed: their versions, each system's company. */
interface Guess { cached: CachedMatches, claimed: Map<string, string>, reads: EvaluationReads }

/**
 * Begins the batch's evaluation on the rules the process holds in memory, its reads sent right after the batch's
 * inserts, each system taken to be of its device session's company (decision 0034): a batch with candidate rules then
 * waits for no second round trip. Undefined when a company's rules are not in memory.
 */
function guessEvaluation (tx: Repositories, msgs: readonly DeviceMessage[], lookup: { companies: string[], dataIds: string[], systems: string[] }): Guess | undefined {
  const cached = tx.alertEvaluation.cached(lookup.companies, lookup.dataIds, lookup.systems)
  if (cached === undefined) return undefined
  const claimed = new Map(msgs.map((m) => [m.systemUid, m.companyUid]))
  const named = new Set(cached.matches.flatMap((r) => r.dataIds))
  const candidates = candidatesOf(cached.matches, pointKeys(msgs, named), claimed)
  const batch = { traffic: trafficOf(msgs), known: claimed, carried: carriedPoints(msgs, named) }
  return { cached, claimed, reads: readForEvaluation(tx.alertEvaluation, candidates, batch) }
}

/** Whether the guess holds: no company's rules changed since they were read, and the store found each system where claimed. */
function guessHolds (g: Guess, versions: ReadonlyMap<string, number>, known: ReadonlyMap<string, string>): boolean {
  for (const [uid, v] of g.cached.versions) if (versions.get(uid) !== v) return false
  for (const [uid, company] of g.claimed) if (known.get(uid) !== company) return false
  return true
}

/**
 * What a batch's write found: the systems known (with their company), the messages inserted (not stored before), and
 * the alerts the batch raised (committed with it).
 */
export interface WrittenBatch { known: Map<string, string>, inserted: Set<string>, results: Array<Error | undefined>, alerts: string[] }

/**
 * Writes the messages and their points; a message of a system not found is answered system.unknown. A batch whose
 * connection was lost is written again (storeRetry), exactly: a message already stored is skipped with its points.
 * The alert rules the points may change are evaluated after them, in the same transaction, at `now()` (decision 0032):
 * a batch written again evaluates again, and a transition already committed raises nothing twice.
 */
export async function writeMessages (inTransaction: UnitOfWork, storeRetry: RetryOptions, msgs: DeviceMessage[], now: () => number): Promise<WrittenBatch> {
  const rows = msgs.map((m) => ({ uid: m.uid, systemUid: m.systemUid, protocol: m.protocol, ts: m.timestamp, receivedAt: m.receivedAt, nbDataPoints: m.nbDataPoints }))
  let attempts = 0
  // What the alert rules are looked up by: the batch's companies (as their devices logged in), data ids and systems.
  const companies = distinct(msgs.map((m) => m.companyUid))
  const dataIds = distinct(msgs.flatMap((m) => m.points.map((p) => p.dataId)))
  const systems = distinct(msgs.map((m) => m.systemUid))
  const attempt = async (pipelined: boolean): Promise<Omit<WrittenBatch, 'results'>> => await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
    const again = attempts++ > 0
    if (pipelined && !again) {
      // The first attempt sends the messages and all their points at once, without waiting for the messages'
      // answer (which systems exist): the store runs one statement while this thread prepares the next, instead of
      // waiting for it (bench ingest, PGlite: its thread stood idle 12 % of the time between a batch's statements).
      // A system deleted meanwhile is rare: then the transaction is rolled back and written again in steps below.
      // The alert rules' versions go with them, and the evaluation's reads when the rules are in memory: a batch
      // waits for no more answers unless a company's rules changed (then they are read, and evaluated on, now).
      const sent = [tx.telemetry.insertMessages(rows, { again: false }), tx.telemetry.insertPoints(pointRows(msgs, () => true)),
        tx.alertEvaluation.versions(companies)] as const
      const guess = guessEvaluation(tx, msgs, { companies, dataIds, systems })
      const [stored, , versions] = await settledInOrder([...sent, guess?.reads.read ?? Promise.resolve(undefined)])
      if (msgs.some((m) => !stored.known.has(m.systemUid))) throw new UnknownSystemInBatch()
      const at = now()
      const alerts = guess !== undefined && guessHolds(guess, versions, stored.known)
        ? (await evaluateOnReads(tx.alertEvaluation, guess.reads, at)).raised
        : await raiseAlerts(tx, await tx.alertEvaluation.candidates(companies, dataIds, systems), companies, msgs, stored.known, at)
      return { known: stored.known, inserted: new Set(stored.inserted), alerts }
    }
    const stored = await tx.telemetry.insertMessages(rows, { again })
    const inserted = new Set(stored.inserted)
    const known = msgs.filter((m) => stored.known.has(m.systemUid))
    const found = distinct(stored.known.values())
    const [, matches] = await settledInOrder([tx.telemetry.insertPoints(pointRows(msgs, (m) => inserted.has(m.uid))),
      tx.alertEvaluation.candidates(found, dataIds, systems)])
    return { known: stored.known, inserted, alerts: await raiseAlerts(tx, matches, found, known, stored.known, now()) }
  }), storeRetry)
  const { known, inserted, alerts } = await attempt(true).catch(async (err: unknown) => {
    if (!(err instanceof UnknownSystemInBatch)) throw err
    // Rolled back: nothing of it is stored, so the next attempt is a first one again.
    attempts = 0
    return await attempt(false)
  })
  const results = msgs.map((m) => known.has(m.systemUid) ? undefined : new FleetError('system.unknown', [m.systemUid]))
  return { known, inserted, results, alerts }
}
