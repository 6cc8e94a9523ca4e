// The evaluation of alert rules in the store (core/ports/alert-evaluation.ts; decisions 0031 and 0032): candidates,
// facts and states read in one statement each, the transitions in one more (./alert-transitions.sql.ts).
import type { Queryable } from '../../core/ports/store.js'
import type { AlertEvaluationRepository, AlertRuleMatch, SystemFacts } from '../../core/ports/alert-evaluation.js'
import type { AlertCondition, AlertValue } from '../../core/domain/alert-rule.js'
import { decodeValue } from '../../core/ports/telemetry.js'
import { NEVER_COMMUNICATED } from '../../core/domain/comm-status.js'
import { textArray } from '../sql-arrays.js'
import { settledInOrder } from '../../core/settled.js'
import { writeTransitions } from './alert-transitions.sql.js'

// A company's rules by the data ids they name: those pinned to no system through their own index (one probe per
// company and data id), the pinned ones from the batch's systems through alert_rule_systems (one probe per system,
// migration 0041), never the company's pinned rules one by one (bench alerts: 1,000 rules pinned one per device).
const CANDIDATES = `WITH hit AS (
    SELECT d.rule_uid FROM alert_rule_data_ids d
     WHERE d.company_uid = ANY($1::text[]) AND d.data_id = ANY($2::text[]) AND d.system_uids IS NULL
    UNION
    SELECT p.rule_uid FROM alert_rule_systems p WHERE p.system_uid = ANY($3::text[]) AND p.company_uid = ANY($1::text[]))
  SELECT r.uid, r.company_uid, r.stateful, r.conditions, array_agg(d.data_id) AS data_ids, min(d.system_uids) AS pinned
  FROM hit JOIN alert_rules r ON r.uid = hit.rule_uid AND r.active
  JOIN alert_rule_data_ids d ON d.rule_uid = r.uid AND d.company_uid = r.company_uid AND d.data_id = ANY($2::text[])
  GROUP BY r.uid`

// The protocol of the system's latest message (its own index): the one protocol of its last communications the store
// keeps; the ingest adds those of the batch (factsAt, core/services/alerts/alert-evaluation.ts). Each system of the list
// is looked up by its key (LIMIT 1 keeps the planner from turning it into a join): with `uid = ANY(list)` PGlite,
// which has no autovacuum and so no statistics, read every system and every system state for each batch.
const SYSTEMS = `SELECT f.* FROM unnest($1::text[]) AS v(uid) CROSS JOIN LATERAL (
    SELECT s.uid, s.company_uid, s.name, s.life_cycle_state, s.labels, st.comm_status, st.last_comm_date,
      st.data -> 'latitude' AS latitude, st.data -> 'longitude' AS longitude,
      (SELECT m.protocol FROM device_messages m WHERE m.system_uid = s.uid ORDER BY m.ts DESC, m.uid DESC LIMIT 1) AS protocol
    FROM systems s LEFT JOIN system_state st ON st.system_uid = s.uid WHERE s.uid = v.uid LIMIT 1) f`

// The latest point of each pair by time, the caller's uncommitted points included (data_last follows later).
const LAST_VALUES = `SELECT v.system_uid, v.data_id, p.num, p.str
  FROM unnest($1::text[], $2::text[]) AS v(system_uid, data_id)
  CROSS JOIN LATERAL (SELECT num, str FROM data_points p WHERE p.system_uid = v.system_uid AND p.data_id = v.data_id
    ORDER BY p.ts DESC LIMIT 1) p`

interface SystemRow {
  uid: string
  company_uid: string
  name: string
  life_cycle_state: string
  labels: string[]
  comm_status: string | null
  last_comm_date: string | null
  latitude: unknown
  longitude: unknown
  protocol: string | null
}

const finite = (v: unknown): number | null => typeof v === 'number' && Number.isFinite(v) ? v : null

function factsOf (r: SystemRow): SystemFacts {
  return {
    companyUid: r.company_uid,
    system: {
      uid: r.uid,
      name: r.name,
      commStatus: r.comm_status ?? NEVER_COMMUNICATED,
      lifeCycleState: r.life_cycle_state,
      labels: r.labels,
      commProtocols: r.protocol === null ? [] : [r.protocol],
      lastCommDate: r.last_comm_date === null ? null : Number(r.last_comm_date),
      latitude: finite(r.latitude),
      longitude: finite(r.longitude)
    },
    data: new Map<string, AlertValue>()
  }
}

/** A system whose fields no rule reads: its uid and company only. */
const fieldlessFacts = (uid: string, companyUid: string): SystemFacts => ({
  companyUid,
  system: { uid, name: '', commStatus: NEVER_COMMUNICATED, lifeCycleState: '', labels: [], commProtocols: [], lastCommDate: null, latitude: null, longitude: null },
  data: new Map<string, AlertValue>()
})

export function createAlertEvaluationRepository (q: Queryable): AlertEvaluationRepository {
  return {
    async candidates (companyUids, dataIds, systemUids) {
      if (companyUids.length === 0 || dataIds.length === 0) return []
      const { rows } = await q.query<{ uid: string, company_uid: string, stateful: boolean, conditions: AlertCondition[], data_ids: string[], pinned: string[] | null }>(
        CANDIDATES, [textArray(companyUids), textArray(dataIds), textArray(systemUids)])
      return rows.map((r): AlertRuleMatch => ({ ruleUid: r.uid, companyUid: r.company_uid, stateful: r.stateful, conditions: r.conditions, dataIds: r.data_ids, pinned: r.pinned }))
    },
    async facts (dataIds, fieldless = new Map()) {
      if (dataIds.size === 0) return new Map()
      const pairs = [...dataIds].flatMap(([systemUid, ids]) => ids.map((dataId) => ({ systemUid, dataId })))
      const read = [...dataIds.keys()].filter((uid) => !fieldless.has(uid))
      // Sent together: the store runs one while the other waits in line behind it.
      const systems = read.length === 0 ? Promise.resolve({ rows: [] as SystemRow[] }) : q.query<SystemRow>(SYSTEMS, [textArray(read)])
      const last = pairs.length === 0
        ? Promise.resolve({ rows: [] })
        : q.query<{ system_uid: string, data_id: string, num: number | null, str: string | null }>(LAST_VALUES, [textArray(pairs.map((p) => p.systemUid)), textArray(pairs.map((p) => p.dataId))])
      const [s, l] = await settledInOrder([systems, last])
      const out = new Map(s.rows.map((r) => [r.uid, factsOf(r)]))
      for (const [uid, companyUid] of fieldless) if (dataIds.has(uid)) out.set(uid, fieldlessFacts(uid, companyUid))
      for (const r of l.rows) (out.get(r.system_uid)?.data as Map<string, AlertValue> | undefined)?.set(r.data_id, decodeValue(r.num, r.str))
      return out
    },
    async states (pairs) {
      if (pairs.length === 0) return new Map()
      const { rows } = await q.query<{ rule_uid: string, system_uid: string, state: boolean }>(
        // By key, pair after pair, as the systems' fields (SYSTEMS above).
        `SELECT a.* FROM unnest($1::text[], $2::text[]) AS v(rule_uid, system_uid) CROSS JOIN LATERAL (
           SELECT a.rule_uid, a.system_uid, a.state FROM alert_states a WHERE a.rule_uid = v.rule_uid AND a.system_uid = v.system_uid LIMIT 1) a`,
        [textArray(pairs.map((p) => p.ruleUid)), textArray(pairs.map((p) => p.systemUid))])
      return new Map(rows.map((r) => [`${r.rule_uid} ${r.system_uid}`, r.state]))
    },
    transitions: async (answers, at) => await writeTransitions(q, answers, at),
    async systemsPage (companyUid, after, limit) {
      const { rows } = after === null
        ? await q.query<{ uid: string, creation_date: string }>(
          'SELECT uid, creation_date FROM systems WHERE company_uid = $1 ORDER BY creation_date DESC, uid LIMIT $2', [companyUid, limit])
        : await q.query<{ uid: string, creation_date: string }>(
          `SELECT uid, creation_date FROM systems WHERE company_uid = $1 AND (creation_date < $2 OR (creation_date = $2 AND uid > $3))
           ORDER BY creation_date DESC, uid LIMIT $4`, [companyUid, after.creationDate, after.uid, limit])
      return rows.map((r) => ({ uid: r.uid, creationDate: Number(r.creation_date) }))
    },
    async pendingNotifications (raisedBy, limit) {
      const { rows } = await q.query<{ uid: string }>(
        'SELECT uid FROM alerts WHERE notify_pending AND date <= $1 ORDER BY date, uid LIMIT $2', [raisedBy, limit])
      return rows.map((r) => r.uid)
    }
  }
}
