// The evaluation of alert rules in the store (decision 0032, docs/alerts.md#how-rules-are-evaluated): the rules a
// batch of points may change, what the evaluator reads of their systems, and the transitions that raise and close
// alerts, exactly once per change of a rule's answer for a system.
import type { AlertAttribute, AlertCondition, AlertFacts, AlertValue } from '../domain/alert-rule.js'

/** A rule to evaluate, and the systems of its company to evaluate it for. */
export interface AlertCandidate {
  ruleUid: string
  companyUid: string
  stateful: boolean
  conditions: AlertCondition[]
  systemUids: string[]
}

/** A rule a batch's points may change: found by its company and the data ids it names. */
export interface AlertRuleMatch {
  ruleUid: string
  companyUid: string
  stateful: boolean
  conditions: AlertCondition[]
  /** The data ids asked for that it names. */
  dataIds: string[]
  /** The only systems it can hold for (alert_rule_data_ids.system_uids); null: any of its company's. */
  pinned: string[] | null
}

/** What the evaluator reads of one system (AlertFacts without the time), with its company. */
export interface SystemFacts {
  companyUid: string
  system: AlertFacts['system']
  /** The last value of each data id asked for that the system has a point of. */
  data: AlertFacts['data']
}

/** A point the caller's batch carries: the newest of its data id for its system in the batch. */
export interface CarriedPoint { ts: number, value: AlertValue }

/** A rule's new answer for a system, written only when it differs from the stored one. */
export interface AlertAnswer {
  ruleUid: string
  systemUid: string
  holds: boolean
  /** The uid its alert takes if this answer raises one. */
  alertUid: string
  /** The values that made the conditions true (kept on the alert). */
  attributes: AlertAttribute[]
}

/** A system's place in the periodic check's pages. */
export interface SystemCursor { uid: string, creationDate: number }

/** What a write of answers did: the alerts raised (OPEN, or CLOSED at once for a stateless rule) and those closed. */
export interface AlertTransitions { raised: string[], closed: string[] }

/** The candidate rules a process holds in memory for a batch, and the version of each company's rules they are of. */
export interface CachedMatches {
  matches: AlertRuleMatch[]
  /** Every company asked, with the version its rules were read at (0: a company that never had a rule). */
  versions: ReadonlyMap<string, number>
}

export interface AlertEvaluationRepository {
  /**
   * What candidates() would answer, from the process's memory alone, if no rule of these companies changed since it
   * was read; undefined when a company's rules are not in memory. The caller checks the versions (versions()) in
   * its transaction before it writes anything on them: the ingest sends the reads of the evaluation with the batch's
   * inserts instead of waiting for the candidates first (decision 0034).
   */
  cached (companyUids: readonly string[], dataIds: readonly string[], systemUids: readonly string[]): CachedMatches | undefined
  /** The current version of each company's rules (0: none ever), read in the caller's transaction. */
  versions (companyUids: readonly string[]): Promise<Map<string, number>>
  /**
   * The ACTIVE rules of these companies naming any of these data ids, each once with the ones it names among them and
   * the systems it is pinned to, in one statement on the data ids' index: a batch's companies and data ids are few
   * however many points it holds. A rule pinned to none of `systemUids` is left out in the store: a company with a
   * rule per device on one data id (1,000 by default) would otherwise send every batch all of them. Which systems each
   * is evaluated for is the caller's (candidatesOf, core/services/alerts/alert-evaluation.ts).
   */
  candidates (companyUids: readonly string[], dataIds: readonly string[], systemUids: readonly string[]): Promise<AlertRuleMatch[]>
  /**
   * The fields of the systems (the keys of `dataIds`) and the last value of each data id named for each, read from
   * the points through their (system, data id, time) index, so that those of the caller's own transaction count;
   * systems not found are absent. The systems in `fieldless`, whose rules read no field but the uid, are answered with
   * the company given (as the caller's insert found it) and empty fields, without reading their rows. A pair the
   * caller's batch carries (`carried`, by system then data id) is not looked up in the points: its last value is the
   * newer of the batch's point and the derived last value (data_last), the batch's on a tie (decision 0035).
   */
  facts (dataIds: ReadonlyMap<string, readonly string[]>, fieldless?: ReadonlyMap<string, string>,
    carried?: ReadonlyMap<string, ReadonlyMap<string, CarriedPoint>>): Promise<Map<string, SystemFacts>>
  /** The stored answer of each (rule, system) pair that has one, keyed `${ruleUid} ${systemUid}`. */
  states (pairs: ReadonlyArray<{ ruleUid: string, systemUid: string }>): Promise<Map<string, boolean>>
  /**
   * Writes the answers that differ from the stored ones (a conditional upsert: of two writers of one pair at once,
   * the second waits and sees the first's answer), raises an alert for each that became true (notify_pending) and
   * closes the stateful rule's OPEN alert for each that became false. Rules or systems deleted meanwhile are skipped.
   */
  transitions (answers: readonly AlertAnswer[], at: number): Promise<AlertTransitions>
  /**
   * At most `limit` of the company's systems after `after` (none: from the first), newest first: the periodic
   * check's pages, on the company's index of creation dates.
   */
  systemsPage (companyUid: string, after: SystemCursor | null, limit: number): Promise<SystemCursor[]>
  /** The alerts still waiting for their delivery that were raised at or before `raisedBy`, oldest first. */
  pendingNotifications (raisedBy: number, limit: number): Promise<string[]>
}
