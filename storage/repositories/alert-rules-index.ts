// The active alert rules of the companies a process ingests for, kept in memory under each company's version
// (migration 0042, decision 0034): a batch reads the versions of its companies, one row each, and finds its candidate
// rules here by data id and pinned system; a company's rules are read again only after a write moved its version.
import type { Queryable } from '../../core/ports/store.js'
import type { AlertRuleMatch, CachedMatches } from '../../core/ports/alert-evaluation.js'
import type { AlertCondition } from '../../core/domain/alert-rule.js'
import { textArray } from '../sql-arrays.js'

/** One active rule as the lookup answers it, with all the data ids it names. */
interface IndexedRule {
  uid: string
  companyUid: string
  stateful: boolean
  conditions: AlertCondition[]
  dataIds: string[]
  pinned: string[] | null
}

/** A company's active rules at one version: unpinned ones by data id, pinned ones by system. */
interface CompanyRules {
  version: number
  byDataId: Map<string, IndexedRule[]>
  bySystem: Map<string, IndexedRule[]>
}

export interface AlertRulesIndex {
  /** The rules of AlertEvaluationRepository.candidates, read through `q` (the caller's transaction). */
  candidates (q: Queryable, companyUids: readonly string[], dataIds: readonly string[], systemUids: readonly string[]): Promise<AlertRuleMatch[]>
  /** AlertEvaluationRepository.cached: from memory, no statement. */
  cached (companyUids: readonly string[], dataIds: readonly string[], systemUids: readonly string[]): CachedMatches | undefined
  /** AlertEvaluationRepository.versions, read through `q`. */
  versions (q: Queryable, companyUids: readonly string[]): Promise<Map<string, number>>
}

export interface AlertRulesIndexOptions {
  /** Companies kept at most; the least recently read goes first (default 10,000). */
  maxCompanies?: number
}

const VERSIONS = 'SELECT company_uid, version FROM alert_rule_versions WHERE company_uid = ANY($1::text[])'

// Read after the versions, in a later statement: the rules are at least as new as the version they are kept under, so
// a write committed in between makes the next batch read them again, never keeps an older set under a newer version.
const RULES = `SELECT r.uid, r.company_uid, r.stateful, r.conditions, array_agg(d.data_id) AS data_ids, min(d.system_uids) AS pinned
  FROM alert_rules r JOIN alert_rule_data_ids d ON d.rule_uid = r.uid AND d.company_uid = r.company_uid
  WHERE r.company_uid = ANY($1::text[]) AND r.active
  GROUP BY r.uid`

interface RuleRow { uid: string, company_uid: string, stateful: boolean, conditions: AlertCondition[], data_ids: string[], pinned: string[] | null }

function add (map: Map<string, IndexedRule[]>, key: string, rule: IndexedRule): void {
  const list = map.get(key)
  if (list === undefined) map.set(key, [rule])
  else list.push(rule)
}

function companyRules (version: number, rows: readonly RuleRow[]): CompanyRules {
  const c: CompanyRules = { version, byDataId: new Map(), bySystem: new Map() }
  for (const r of rows) {
    const rule: IndexedRule = { uid: r.uid, companyUid: r.company_uid, stateful: r.stateful, conditions: r.conditions, dataIds: r.data_ids, pinned: r.pinned }
    if (rule.pinned === null) for (const id of new Set(rule.dataIds)) add(c.byDataId, id, rule)
    else for (const uid of new Set(rule.pinned)) add(c.bySystem, uid, rule)
  }
  return c
}

/** The company's rules naming one of `dataIds` (unpinned, or pinned to one of `systemUids`), each once. */
function matchesOf (c: CompanyRules, dataIds: ReadonlySet<string>, systemUids: readonly string[]): AlertRuleMatch[] {
  const found = new Set<IndexedRule>()
  for (const id of dataIds) for (const r of c.byDataId.get(id) ?? []) found.add(r)
  for (const uid of systemUids) for (const r of c.bySystem.get(uid) ?? []) found.add(r)
  const out: AlertRuleMatch[] = []
  for (const r of found) {
    const named = r.dataIds.filter((id) => dataIds.has(id))
    if (named.length > 0) out.push({ ruleUid: r.uid, companyUid: r.companyUid, stateful: r.stateful, conditions: r.conditions, dataIds: named, pinned: r.pinned })
  }
  return out
}

export function createAlertRulesIndex (opts: AlertRulesIndexOptions = {}): AlertRulesIndex {
  const max = opts.maxCompanies ?? 10_000
  const companies = new Map<string, CompanyRules>()
  const keep = (uid: string, c: CompanyRules): void => {
    companies.delete(uid)
    companies.set(uid, c)
    while (companies.size > max) companies.delete(companies.keys().next().value as string)
  }
  const versions = async (q: Queryable, companyUids: readonly string[]): Promise<Map<string, number>> => {
    const { rows } = await q.query<{ company_uid: string, version: number }>(VERSIONS, [textArray(companyUids)])
    const found = new Map(rows.map((r) => [r.company_uid, Number(r.version)]))
    // A company without a row has never had a rule: version 0, kept as such so that its next batch reads nothing more.
    return new Map(companyUids.map((uid) => [uid, found.get(uid) ?? 0]))
  }
  const matches = (companyUids: readonly string[], dataIds: readonly string[], systemUids: readonly string[]): AlertRuleMatch[] => {
    const ids = new Set(dataIds)
    return companyUids.flatMap((uid) => {
      const c = companies.get(uid)
      if (c === undefined) return []
      keep(uid, c)
      return matchesOf(c, ids, systemUids)
    })
  }
  return {
    async candidates (q, companyUids, dataIds, systemUids) {
      if (companyUids.length === 0 || dataIds.length === 0) return []
      const current = await versions(q, companyUids)
      const stale = [...current].filter(([uid, v]) => companies.get(uid)?.version !== v).map(([uid]) => uid)
      // A company that never had a rule has none to read.
      for (const uid of stale.filter((c) => current.get(c) === 0)) keep(uid, companyRules(0, []))
      stale.splice(0, stale.length, ...stale.filter((c) => current.get(c) !== 0))
      if (stale.length > 0) {
        const read = await q.query<RuleRow>(RULES, [textArray(stale)])
        const byCompany = new Map<string, RuleRow[]>(stale.map((uid) => [uid, []]))
        for (const r of read.rows) byCompany.get(r.company_uid)?.push(r)
        for (const [uid, rules] of byCompany) keep(uid, companyRules(current.get(uid) ?? 0, rules))
      }
      return matches(companyUids, dataIds, systemUids)
    },
    cached (companyUids, dataIds, systemUids) {
      const held = new Map<string, number>()
      for (const uid of companyUids) {
        const c = companies.get(uid)
        if (c === undefined) return undefined
        held.set(uid, c.version)
      }
      return { matches: dataIds.length === 0 ? [] : matches(companyUids, dataIds, systemUids), versions: held }
    },
    versions
  }
}
