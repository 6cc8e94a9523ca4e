// The evaluation of alert rules in the store (core/ports/alert-evaluation.ts; decisions 0031, 0032, 0034 and 0035): the
// candidates from the process's index of rules (./alert-rules-index.ts), facts and states read in one statement each,
// the transitions in one more (./alert-transitions.sql.ts).
import type { Queryable } from '../../core/ports/store.js'
import type { AlertEvaluationRepository, SystemFacts } from '../../core/ports/alert-evaluation.js'
import type { AlertValue } from '../../core/domain/alert-rule.js'
import { decodeValue } from '../../core/ports/telemetry.js'
import { NEVER_COMMUNICATED } from '../../core/domain/comm-status.js'
import { textArray } from '../sql-arrays.js'
import { settledInOrder } from '../../core/settled.js'
import { writeTransitions } from './alert-transitions.sql.js'
import { createAlertRulesIndex, type AlertRulesIndex } from './alert-rules-index.js'

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
// One row of arrays, each pair by its place in the list asked: a row per pair cost the store's thread about a fifth
// more to answer and decode (1,000 pairs: 17 against 14 ms on PGlite), for two texts the caller already has.
const LAST_VALUES = `SELECT array_agg(v.i::int) AS i, array_agg(p.num) AS num, array_agg(p.str) AS str
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS v(system_uid, data_id, i)
  CROSS JOIN LATERAL (SELECT num, str FROM data_points p WHERE p.system_uid = v.system_uid AND p.data_id = v.data_id
    ORDER BY p.ts DESC LIMIT 1) p`

// The stored answer of each pair asked, in the order asked, as one text: t, f, or - for none (1,000 pairs: 6 against
// 11 ms on PGlite for a row per pair).
const STATES = `SELECT string_agg(CASE WHEN a.state IS NULL THEN '-' WHEN a.state THEN 't' ELSE 'f' END, '' ORDER BY v.i) AS s
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS v(rule_uid, system_uid, i)
  LEFT JOIN LATERAL (SELECT a.state FROM alert_states a WHERE a.rule_uid = v.rule_uid AND a.system_uid = v.system_uid LIMIT 1) a ON true`

// The derived last value of each pair (data_last, kept by core/services/ingest/derived-state.ts), by its key alone:
// for the pairs the caller's batch carries a point of (decision 0035). The points' lookup probes every monthly
// partition's index for each pair (1,000 pairs: 16 against 4 ms on PGlite with five partitions).
const DERIVED_VALUES = `SELECT array_agg(v.i::int) AS i, array_agg(d.num) AS num, array_agg(d.str) AS str, array_agg(d.ts) AS ts
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS v(system_uid, data_id, i)
  JOIN data_last d ON d.system_uid = v.system_uid AND d.data_id = v.data_id`

interface LastValues { i: number[] | null, num: Array<number | null> | null, str: Array<string | null> | null, ts?: Array<string | number> | null }

interface PointKey { systemUid: string, dataId: string }

const NO_VALUES = { rows: [] as LastValues[] }

async function lastValues (q: Queryable, sql: string, pairs: readonly PointKey[]): Promise<{ rows: LastValues[] }> {
  if (pairs.length === 0) return NO_VALUES
  return await q.query<LastValues>(sql, [textArray(pairs.map((p) => p.systemUid)), textArray(pairs.map((p) => p.dataId))])
}

/** Calls `f` with each pair answered, its value and its time (0 when the statement has none). */
function eachValue (r: { rows: LastValues[] }, pairs: readonly PointKey[], f: (p: PointKey, value: AlertValue, ts: number) => void): void {
  const { i = null, num = null, str = null, ts = null } = r.rows[0] ?? {}
  ;(i ?? []).forEach((place, k) => {
    const pair = pairs[place - 1]
    if (pair !== undefined) f(pair, decodeValue(num?.[k] ?? null, str?.[k] ?? null), Number(ts?.[k] ?? 0))
  })
}

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

/**
 * `index`: the process's index of rules, shared by the repositories of every transaction (bin/context.ts); without
 * one, this repository keeps its own, which reads the rules of each company on its first lookup.
 */
export function createAlertEvaluationRepository (q: Queryable, index: AlertRulesIndex = createAlertRulesIndex()): AlertEvaluationRepository {
  return {
    candidates: async (companyUids, dataIds, systemUids) => await index.candidates(q, companyUids, dataIds, systemUids),
    cached: (companyUids, dataIds, systemUids) => index.cached(companyUids, dataIds, systemUids),
    versions: async (companyUids) => await index.versions(q, companyUids),
    async facts (dataIds, fieldless = new Map(), carried = new Map()) {
      if (dataIds.size === 0) return new Map()
      const pairs = [...dataIds].flatMap(([systemUid, ids]) => ids.map((dataId) => ({ systemUid, dataId })))
      const stored = pairs.filter((p) => carried.get(p.systemUid)?.has(p.dataId) !== true)
      const derived = pairs.filter((p) => carried.get(p.systemUid)?.has(p.dataId) === true)
      const read = [...dataIds.keys()].filter((uid) => !fieldless.has(uid))
      // Sent together: the store runs one while the others wait in line behind it.
      const [s, l, d] = await settledInOrder([
        read.length === 0 ? Promise.resolve({ rows: [] as SystemRow[] }) : q.query<SystemRow>(SYSTEMS, [textArray(read)]),
        lastValues(q, LAST_VALUES, stored), lastValues(q, DERIVED_VALUES, derived)])
      const out = new Map(s.rows.map((r) => [r.uid, factsOf(r)]))
      for (const [uid, companyUid] of fieldless) if (dataIds.has(uid)) out.set(uid, fieldlessFacts(uid, companyUid))
      const set = (p: PointKey, value: AlertValue): void => { (out.get(p.systemUid)?.data as Map<string, AlertValue> | undefined)?.set(p.dataId, value) }
      eachValue(l, stored, (p, value) => set(p, value))
      for (const p of derived) {
        const own = carried.get(p.systemUid)?.get(p.dataId)
        if (own !== undefined) set(p, own.value)
      }
      eachValue(d, derived, (p, value, ts) => {
        const own = carried.get(p.systemUid)?.get(p.dataId)
        if (own === undefined || ts > own.ts) set(p, value)
      })
      return out
    },
    async states (pairs) {
      if (pairs.length === 0) return new Map()
      const { rows } = await q.query<{ s: string | null }>(STATES, [textArray(pairs.map((p) => p.ruleUid)), textArray(pairs.map((p) => p.systemUid))])
      const answers = rows[0]?.s ?? ''
      const out = new Map<string, boolean>()
      pairs.forEach((p, k) => { const a = answers[k]; if (a === 't' || a === 'f') out.set(`${p.ruleUid} ${p.systemUid}`, a === 't') })
      return out
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
