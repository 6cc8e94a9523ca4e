// Writes of data_rollups (storage/migrations/0019_data_rollups.sql; issue 12, Rollups). addHourStats() runs in the
// transaction that inserts the points (telemetry.repository.ts insertPoints), so the rollups are exactly as durable
// as the points: a killed process leaves both committed or neither, and there is no dirty hour to redo at start.
// rebuildRollups() recomputes hours from the raw points for points written behind the repositories' back (bench
// loads by SQL, a restore): what it writes equals what the increments would have written, up to float rounding.
//
// Why increments in the ingest transaction, not "mark the hours dirty, recompute them from the raw points in a
// coalesced flush": a recompute reads every point of the hour again at each flush (a series reporting each second
// has 3,600 in its current hour, read again every second), a query between the commit and the flush would have to
// read the dirty hours raw to stay exact, and a start after a crash would have to find and redo them. The increment
// costs one upserted row per (system, data id, hour) of the batch instead. Measured roughly (issue 12), batches of
// 2,000 messages × 3 points of 1,000 systems into one hour, on a machine busy with other work: points alone
// 61,000 points/s on PGlite and 67,000 on PostgreSQL, points and rollups 25,000 and 19,000; the upsert of a
// current-hour row costs about three times the insert of a point. If the ingest target needs it back, append the
// increments to a delta table in the transaction (a plain insert) and fold them into data_rollups in a background
// job, queries adding the deltas not folded yet: as exact and crash-safe, with the merge off the acknowledgement path.
import type { Queryable } from '../../core/ports/store.js'
import { HOUR_MS, WIDE, hourOf, type HourStats } from '../../core/domain/rollup.js'
import { boolArray, numberArray, textArray } from '../sql-arrays.js'

/**
 * Merges each hour's stats into its row. Chan et al.'s pairwise update of m2: with the means a = sum/n and
 * b = sum'/n', m2 + m2' + (b - a)² · n·n' / (n + n'). Rows come sorted by key (hourStats()), the order their locks
 * are taken in. No arithmetic here can overflow: numeric columns only ever hold values below WIDE in magnitude.
 */
export async function addHourStats (q: Queryable, stats: readonly HourStats[]): Promise<void> {
  if (stats.length === 0) return
  await q.query(
    `INSERT INTO data_rollups AS r (system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int8[], $6::float8[], $7::float8[],
       $8::float8[], $9::float8[], $10::float8[], $11::bool[])
     ON CONFLICT (system_uid, data_id, hour) DO UPDATE SET
       cnt = r.cnt + EXCLUDED.cnt,
       n_num = r.n_num + EXCLUDED.n_num,
       sum = r.sum + EXCLUDED.sum,
       ss = r.ss + EXCLUDED.ss,
       min = least(r.min, EXCLUDED.min),
       max = greatest(r.max, EXCLUDED.max),
       m2 = r.m2 + EXCLUDED.m2 + CASE WHEN r.n_num = 0 OR EXCLUDED.n_num = 0 THEN 0
         ELSE (EXCLUDED.sum / EXCLUDED.n_num - r.sum / r.n_num) ^ 2 * r.n_num::float8 * EXCLUDED.n_num / (r.n_num + EXCLUDED.n_num) END,
       wide = r.wide OR EXCLUDED.wide`,
    [textArray(stats.map((s) => s.systemUid)), textArray(stats.map((s) => s.dataId)), numberArray(stats.map((s) => s.hour)),
      numberArray(stats.map((s) => s.cnt)), numberArray(stats.map((s) => s.nNum)), numberArray(stats.map((s) => s.sum)),
      numberArray(stats.map((s) => s.ss)), numberArray(stats.map((s) => s.min)), numberArray(stats.map((s) => s.max)),
      numberArray(stats.map((s) => s.m2)), boolArray(stats.map((s) => s.wide))])
}

/** The stats of data_points rows `p` grouped by (system_uid, data_id, hour), as the columns of data_rollups. */
const STATS_OF_POINTS = `count(*) FILTER (WHERE p.num IS NOT NULL OR p.str IS NOT NULL),
  count(p.num) FILTER (WHERE abs(p.num) < ${WIDE}),
  coalesce(sum(p.num) FILTER (WHERE abs(p.num) < ${WIDE}), 0),
  coalesce(sum(p.num * p.num) FILTER (WHERE abs(p.num) < ${WIDE}), 0),
  min(p.num) FILTER (WHERE abs(p.num) < ${WIDE}),
  max(p.num) FILTER (WHERE abs(p.num) < ${WIDE}),
  coalesce(var_pop(p.num) FILTER (WHERE abs(p.num) < ${WIDE}) * count(p.num) FILTER (WHERE abs(p.num) < ${WIDE}), 0),
  coalesce(bool_or(NOT abs(p.num) < ${WIDE}), false)`

export interface RebuildScope {
  /** Points from `from` on (its hour is rebuilt whole); null: from the first point. */
  from: number | null
  /** Points before `to` (its hour is rebuilt whole); null: to the last point. */
  to: number | null
  /** Only these systems; absent: every system. */
  systemUids?: readonly string[]
}

/**
 * Recomputes from the raw points the rollups of every hour the scope touches: the hours are widened to whole hours,
 * their rows deleted and written again (an hour left with no point keeps no row). Answers the rows written. Run it in
 * one transaction with nothing writing the same points meanwhile, or the increments of a concurrent batch may be
 * counted twice.
 */
export async function rebuildRollups (q: Queryable, scope: RebuildScope): Promise<number> {
  const from = scope.from === null ? null : hourOf(scope.from)
  const to = scope.to === null ? null : hourOf(scope.to - 1) + HOUR_MS
  const params: unknown[] = [from, to]
  const systems = scope.systemUids === undefined ? '' : `AND system_uid = ANY($${params.push([...scope.systemUids])}::text[])`
  const range = `($1::int8 IS NULL OR hour >= $1::int8) AND ($2::int8 IS NULL OR hour < $2::int8) ${systems}`
  const pointRange = `($1::int8 IS NULL OR p.ts >= $1::int8) AND ($2::int8 IS NULL OR p.ts < $2::int8) ${systems.replace('system_uid', 'p.system_uid')}`
  await q.query(`DELETE FROM data_rollups WHERE ${range}`, params)
  const res = await q.query(
    `INSERT INTO data_rollups (system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide)
     SELECT p.system_uid, p.data_id, p.ts - ((p.ts % ${HOUR_MS}) + ${HOUR_MS}) % ${HOUR_MS} AS hour, ${STATS_OF_POINTS}
     FROM data_points p WHERE ${pointRange}
     GROUP BY p.system_uid, p.data_id, hour ORDER BY p.system_uid, p.data_id, hour`, params)
  return res.rowCount
}
