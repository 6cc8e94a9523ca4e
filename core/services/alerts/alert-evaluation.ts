// The evaluation of alert rules (decision 0032, docs/alerts.md#how-rules-are-evaluated): which data ids to read for
// which systems, the facts a system is evaluated on, and the answers that differ from the stored ones. Pure; the
// store's part is core/ports/alert-evaluation.ts, the order of the calls ./alert-evaluate.ts.
import type { AlertFacts, AlertValue } from '../../domain/alert-rule.js'
import { dataIdsOf, evaluateRule, readsSystemFields } from '../../domain/alert-conditions.js'
import { ON_TRAFFIC } from '../../domain/comm-status.js'
import type { AlertAnswer, AlertCandidate, AlertRuleMatch, SystemFacts } from '../../ports/alert-evaluation.js'

/** What a batch being committed says of a system that its stored state does not yet (derived-state.ts follows later). */
export interface SystemTraffic { lastComm: number, protocols: ReadonlySet<string> }

export const stateKey = (ruleUid: string, systemUid: string): string => `${ruleUid} ${systemUid}`

/** A point's system and data id. */
export interface PointKey { systemUid: string, dataId: string }

/**
 * The systems each rule found by a batch is evaluated for: those with a point of a data id it names, of the rule's
 * company as the store found each system (`known`, never a company a message claims), within its pinned systems.
 */
export function candidatesOf (matches: readonly AlertRuleMatch[], points: readonly PointKey[], known: ReadonlyMap<string, string>): AlertCandidate[] {
  const byCompany = new Map<string, Map<string, Set<string>>>()
  for (const p of points) {
    const company = known.get(p.systemUid)
    if (company === undefined) continue
    const systems = byCompany.get(company) ?? new Map<string, Set<string>>()
    systems.set(p.systemUid, (systems.get(p.systemUid) ?? new Set<string>()).add(p.dataId))
    byCompany.set(company, systems)
  }
  const candidates: AlertCandidate[] = []
  for (const m of matches) {
    const systems = byCompany.get(m.companyUid)
    if (systems === undefined) continue
    // A pinned rule looks up its own few systems: going through the batch's for each of a rule per device costs
    // rules × systems per batch.
    const among = m.pinned === null ? systems.keys() : m.pinned.filter((uid) => systems.has(uid))
    const systemUids: string[] = []
    for (const uid of among) if (m.dataIds.some((id) => systems.get(uid)?.has(id) === true)) systemUids.push(uid)
    if (systemUids.length > 0) candidates.push({ ruleUid: m.ruleUid, companyUid: m.companyUid, stateful: m.stateful, conditions: m.conditions, systemUids })
  }
  return candidates
}

/** The data ids each candidate system's rules name, each once: what the store reads the last values of. */
export function dataIdsWanted (candidates: readonly AlertCandidate[]): Map<string, string[]> {
  const wanted = new Map<string, Set<string>>()
  for (const c of candidates) {
    const ids = dataIdsOf(c.conditions)
    for (const uid of c.systemUids) {
      const set = wanted.get(uid) ?? new Set<string>()
      for (const id of ids) set.add(id)
      wanted.set(uid, set)
    }
  }
  return new Map([...wanted].map(([uid, ids]) => [uid, [...ids]]))
}

/**
 * The candidate systems none of whose rules reads a field of the system besides its uid, with their company as the
 * batch's insert found it (`known`): the store reads only their last values, not their rows (bench alerts: a rule per
 * device on a data id and system.id made each batch read every system's row and latest message). None without
 * `known` (the periodic check).
 */
export function fieldlessSystems (candidates: readonly AlertCandidate[], known: ReadonlyMap<string, string> | undefined): Map<string, string> {
  const fieldless = new Map<string, string>()
  if (known === undefined) return fieldless
  const reading = new Set<string>()
  for (const c of candidates) {
    const reads = readsSystemFields(c.conditions)
    for (const uid of c.systemUids) {
      const company = known.get(uid)
      if (reads) reading.add(uid)
      else if (company !== undefined) fieldless.set(uid, company)
    }
  }
  for (const uid of reading) fieldless.delete(uid)
  return fieldless
}

const finite = (v: AlertValue | undefined): number | undefined => typeof v === 'number' && Number.isFinite(v) ? v : undefined

/**
 * The facts of one system at `now`. The batch's traffic counts as communication (lastCommDate, commStatus OK and its
 * protocols), and a last _LATITUDE or _LONGITUDE point is newer than the position the system's state holds.
 */
export function factsAt (f: SystemFacts, now: number, traffic: SystemTraffic | undefined): AlertFacts {
  const s = f.system
  const system = {
    ...s,
    latitude: finite(f.data.get('_LATITUDE')) ?? s.latitude,
    longitude: finite(f.data.get('_LONGITUDE')) ?? s.longitude
  }
  if (traffic !== undefined) {
    system.lastCommDate = Math.max(s.lastCommDate ?? traffic.lastComm, traffic.lastComm)
    system.commStatus = ON_TRAFFIC
    system.commProtocols = [...new Set([...traffic.protocols, ...s.commProtocols])]
  }
  return { now, system, data: f.data }
}

export interface AnswerInputs {
  candidates: readonly AlertCandidate[]
  facts: ReadonlyMap<string, SystemFacts>
  /** Stored answers by stateKey. */
  states: ReadonlyMap<string, boolean>
  now: number
  traffic?: ReadonlyMap<string, SystemTraffic>
  newUid: () => string
}

/**
 * Each candidate rule's answer for each of its systems that differs from the stored one (a first answer always
 * differs: it is stored, false included, so that the next tells "becomes true" from "stays true"). A system of
 * another company than the rule's is never evaluated.
 */
export function changedAnswers ({ candidates, facts, states, now, traffic, newUid }: AnswerInputs): AlertAnswer[] {
  const answers: AlertAnswer[] = []
  const seen = new Set<string>()
  for (const c of candidates) {
    for (const systemUid of c.systemUids) {
      const f = facts.get(systemUid)
      const key = stateKey(c.ruleUid, systemUid)
      if (f === undefined || f.companyUid !== c.companyUid || seen.has(key)) continue
      seen.add(key)
      const { holds, attributes } = evaluateRule(c.conditions, factsAt(f, now, traffic?.get(systemUid)))
      if (states.get(key) === holds) continue
      answers.push({ ruleUid: c.ruleUid, systemUid, holds, alertUid: newUid(), attributes: holds ? attributes : [] })
    }
  }
  return answers
}
