// Writes of usage_rollups (storage/migrations/0026_usage_rollups.sql; docs/store.md#rollups: daily rollups of the usage
// counters). addUsageRollups() runs in the transaction that stores the records (usage.repository.ts insert), so the
// rollups are exactly as durable as the records. rebuildUsageRollups() recomputes them from the records, for records
// written behind the repository's back; its SELECT is the one the migration ran over the records stored before it.
//
// Every column is exact (int8 and numeric): the increments of any number of imports add up to the rebuild's sums to
// the last digit, whatever their order, so the rollup path of the aggregations can answer what the raw path answers
// (usage-aggregate.sql.ts).
import type { Queryable } from '../../core/ports/store.js'
import { daySql, usagePointSql, usageSeries } from './usage-points.sql.js'

/** The stats of points `p` (system_uid, data_id, ts, num numeric) per (system, data id, UTC day), as the table's columns. */
const STATS_OF_POINTS = `p.system_uid, p.data_id, ${daySql('p.ts')} AS day, count(p.num) AS n, coalesce(sum(p.num), 0) AS sum,
  coalesce(sum(p.num * p.num), 0) AS ss, min(p.num) AS min, max(p.num) AS max`

/**
 * The points of the records just stored (`added`, usage_records rows). A session series' value depends on the
 * session's other records (it is 1 on its first record only): here each new record is a point without a value, and
 * `moves` gives that 1 to the right record.
 */
function addedPoints (): string {
  return usageSeries().map(([id, u]) => usagePointSql(id, u, {
    filter: () => 'true', type: 'numeric', records: 'added', ...u.measure === 'session' ? { value: 'NULL' } : {}
  })).join(' UNION ALL ')
}

/**
 * The session series (DATA_SESSION, VOICE_IN_SESSION, VOICE_OUT_SESSION): +1 on the day of each touched session's
 * first record now, -1 on the day of its first record before, when the new records moved it (an earlier start).
 * The first record is the one the raw path's measure picks (usage-points.sql.ts MEASURE_SQL.session): earliest
 * start, then lowest id.
 */
function sessionMoves (): string {
  const sessions = usageSeries().filter(([, u]) => u.measure === 'session')
  const types = sessions.map(([, u]) => `'${u.type}'`).join(', ')
  // One look per session on usage_records_session_idx (migration 0026), already in the order wanted: a join let the
  // planner read every record of the system's type instead, a cost growing with the store.
  const first = (extra: string): string => `SELECT f.* FROM sessions s CROSS JOIN LATERAL (SELECT e.* FROM usage_records e
    WHERE e.system_uid = s.system_uid AND e.uid = s.uid AND e.type = s.type ${extra} ORDER BY e.start_ts, e.id LIMIT 1) f`
  const same = 'a.system_uid = b.system_uid AND a.uid = b.uid AND a.type = b.type'
  const perId = sessions.map(([id, u]) => usagePointSql(id, u, { filter: () => 'true', type: 'numeric', records: 'moves', value: 'r.sign' }))
    .join(' UNION ALL ')
  return `sessions AS (SELECT DISTINCT system_uid, uid, type FROM added WHERE type IN (${types})),
    before AS (${first('AND NOT (e.id = ANY($1::int8[]))')}),
    after AS (${first('')}),
    moves AS (
      SELECT a.*, 1 AS sign FROM after a LEFT JOIN before b ON ${same} WHERE b.id IS DISTINCT FROM a.id
      UNION ALL SELECT b.*, -1 AS sign FROM before b JOIN after a ON ${same} WHERE a.id <> b.id),
    session_moves AS (${perId})`
}

const ADD_SQL = `WITH added AS MATERIALIZED (SELECT * FROM usage_records WHERE id = ANY($1::int8[])),
  ${sessionMoves()},
  deltas AS (
    SELECT ${STATS_OF_POINTS} FROM (${addedPoints()}) p GROUP BY 1, 2, 3
    UNION ALL
    SELECT p.system_uid, p.data_id, ${daySql('p.ts')} AS day, sum(p.num), sum(p.num), sum(p.num),
      CASE WHEN bool_or(p.num > 0) THEN 1 END, CASE WHEN bool_or(p.num > 0) THEN 1 END
    FROM session_moves p GROUP BY 1, 2, 3)
  INSERT INTO usage_rollups AS u (system_uid, data_id, day, n, sum, ss, min, max)
  SELECT system_uid, data_id, day, sum(n), sum(sum), sum(ss), min(min), max(max) FROM deltas
  GROUP BY system_uid, data_id, day ORDER BY system_uid, data_id, day
  ON CONFLICT (system_uid, data_id, day) DO UPDATE SET
    n = u.n + EXCLUDED.n,
    sum = u.sum + EXCLUDED.sum,
    ss = u.ss + EXCLUDED.ss,
    min = CASE WHEN u.n + EXCLUDED.n > 0 THEN least(u.min, EXCLUDED.min) END,
    max = CASE WHEN u.n + EXCLUDED.n > 0 THEN greatest(u.max, EXCLUDED.max) END`

/**
 * Merges the records of these ids (just inserted, in the caller's transaction) into their days' rollups. Only session
 * series ever take a value back (a first record that stops being first), and their values are all 1, so min and max
 * stay exact: 1 while the day counts a session, NULL once it counts none. A day keeps its row, with n 0, while it
 * holds any point: the raw path answers such a bucket (0 with cnt, null otherwise) where it answers nothing for a day
 * without records, and a fleet's cnt or mean over systems tells the two apart.
 */
export async function addUsageRollups (q: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await q.query(ADD_SQL, [ids])
}

/** The rollups of every record of usage_records `r` that `filter` keeps (the migration's backfill with 'true'). */
export function rollupsOfRecordsSql (filter: string): string {
  const points = usageSeries().map(([id, u]) => usagePointSql(id, u, { filter: () => filter, type: 'numeric' })).join(' UNION ALL ')
  return `INSERT INTO usage_rollups (system_uid, data_id, day, n, sum, ss, min, max)
    SELECT ${STATS_OF_POINTS} FROM (${points}) p GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`
}

/**
 * Recomputes from the records the usage rollups of these systems (of every system without `systemUids`): their rows
 * are deleted and written again. Answers the rows written. Run it with nothing importing records of the same systems
 * meanwhile (usage.repository.ts insert locks the systems for that).
 */
export async function rebuildUsageRollups (q: Queryable, systemUids?: readonly string[]): Promise<number> {
  if (systemUids === undefined) {
    await q.query('DELETE FROM usage_rollups')
    return (await q.query(rollupsOfRecordsSql('true'))).rowCount
  }
  await q.query('DELETE FROM usage_rollups WHERE system_uid = ANY($1::text[])', [[...systemUids]])
  return (await q.query(rollupsOfRecordsSql('r.system_uid = ANY($1::text[])'), [[...systemUids]])).rowCount
}
