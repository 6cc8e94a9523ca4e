// Writes of data_rollups and data_rollups_daily (storage/migrations/0019_data_rollups.sql, 0027_data_rollups_daily.sql;
// Rollups). The transaction that inserts the points(telemetry.repository.ts insertPoints) appends their
// hourly stats to data_rollup_deltas (0027_data_rollups_daily.sql), so the increments are exactly as durable as the
// points: a killed process leaves both committed or neither. foldRollupDeltas() merges them into the hours and days
// a moment later, in a transaction of its own that deletes what it folds, and the aggregations add the increments
// not folded yet to the rows they read, so no answer ever misses or counts twice a point. rebuildRollups()
// recomputes hours and days from the raw points for points written behind the repositories' back (bench loads by
// SQL, a restore): what it writes equals what the increments would have written, up to float rounding.
//
// Why increments in the ingest transaction, not "mark the hours dirty, recompute them from the raw points in a
// coalesced flush": a recompute reads every point of the hour again at each flush (a series reporting each second
// has 3,600 in its current hour, read again every second), a query between the commit and the flush would have to
// read the dirty hours raw to stay exact, and a start after a crash would have to find and redo them. The increment
// costs one upserted row per (system, data id, hour) of the batch instead, and as much again for its day. Measured roughly, batches of
// 2,000 messages × 3 points of 1,000 systems into one hour, on a machine busy with other work: points alone
// 61,000 points/s on PGlite and 67,000 on PostgreSQL, points and rollups 25,000 and 19,000; the upsert of a
// current-hour row costs about three times the insert of a point. With daily rollups beside the hourly ones that was
// two upserts per (system, data id) and batch: the ingest lost 17 % of its messages per second (bench ingest). Hence
// the deltas: a plain insert in the batch, and one upsert per row and fold (every second) whatever the batches.
import type { Queryable } from '../../core/ports/store.js'
import { DAY_MS, HOUR_MS, WIDE, dayOf, mergePeriodStats, type PeriodStats } from '../../core/domain/rollup.js'
import { boolArray, numberArray, textArray } from '../sql-arrays.js'
import { settledInOrder } from '../../core/settled.js'

/** The tables of the rollups, by period: the column that holds the period's start. */
const PERIODS = {
  hour: { table: 'data_rollups', column: 'hour' },
  day: { table: 'data_rollups_daily', column: 'day' }
} as const

/**
 * Appends a batch's hourly stats to data_rollup_deltas, in the transaction that stores the points: a plain insert,
 * the merge into the rollups waits for the next fold (foldRollupDeltas).
 */
export async function insertRollupDeltas (q: Queryable, stats: readonly PeriodStats[]): Promise<void> {
  if (stats.length === 0) return
  await q.query(
    `INSERT INTO data_rollup_deltas (system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int8[], $6::float8[], $7::float8[],
       $8::float8[], $9::float8[], $10::float8[], $11::bool[])`,
    [textArray(stats.map((s) => s.systemUid)), textArray(stats.map((s) => s.dataId)), numberArray(stats.map((s) => s.start)),
      numberArray(stats.map((s) => s.cnt)), numberArray(stats.map((s) => s.nNum)), numberArray(stats.map((s) => s.sum)),
      numberArray(stats.map((s) => s.ss)), numberArray(stats.map((s) => s.min)), numberArray(stats.map((s) => s.max)),
      numberArray(stats.map((s) => s.m2)), boolArray(stats.map((s) => s.wide))])
}

/**
 * Merges each period's stats into its row (data_rollups for hours, data_rollups_daily for days). Chan et al.'s
 * pairwise update of m2: with the means a = sum/n and b = sum'/n', m2 + m2' + (b - a)² · n·n' / (n + n'). Rows come
 * sorted by key (mergePeriodStats()), the order their locks are taken in. No arithmetic here can overflow: numeric
 * columns only ever hold values below WIDE in magnitude.
 */
async function addPeriodStats (q: Queryable, period: keyof typeof PERIODS, stats: readonly PeriodStats[]): Promise<void> {
  if (stats.length === 0) return
  const { table, column } = PERIODS[period]
  await q.query(
    `INSERT INTO ${table} AS r (system_uid, data_id, ${column}, cnt, n_num, sum, ss, min, max, m2, wide)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int8[], $6::float8[], $7::float8[],
       $8::float8[], $9::float8[], $10::float8[], $11::bool[])
     ON CONFLICT (system_uid, data_id, ${column}) DO UPDATE SET
       cnt = r.cnt + EXCLUDED.cnt,
       n_num = r.n_num + EXCLUDED.n_num,
       sum = r.sum + EXCLUDED.sum,
       ss = r.ss + EXCLUDED.ss,
       min = least(r.min, EXCLUDED.min),
       max = greatest(r.max, EXCLUDED.max),
       m2 = r.m2 + EXCLUDED.m2 + CASE WHEN r.n_num = 0 OR EXCLUDED.n_num = 0 THEN 0
         ELSE (EXCLUDED.sum / EXCLUDED.n_num - r.sum / r.n_num) ^ 2 * r.n_num::float8 * EXCLUDED.n_num / (r.n_num + EXCLUDED.n_num) END,
       wide = r.wide OR EXCLUDED.wide`,
    [textArray(stats.map((s) => s.systemUid)), textArray(stats.map((s) => s.dataId)), numberArray(stats.map((s) => s.start)),
      numberArray(stats.map((s) => s.cnt)), numberArray(stats.map((s) => s.nNum)), numberArray(stats.map((s) => s.sum)),
      numberArray(stats.map((s) => s.ss)), numberArray(stats.map((s) => s.min)), numberArray(stats.map((s) => s.max)),
      numberArray(stats.map((s) => s.m2)), boolArray(stats.map((s) => s.wide))])
}

/** A folded increment as the fold answers it: [system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide]. */
type DeltaTuple = [string, string, number, number, number, number, number, number | null, number | null, number, boolean]

// The key of the transaction-level advisory lock one fold holds at a time, across the processes of a store.
const FOLD_LOCK_KEY = 7_146_202

/**
 * Folds up to `limit` increments of data_rollup_deltas into data_rollups and data_rollups_daily, in the caller's
 * transaction, deleting them: an increment is in the deltas or in the rollups, never both, never neither, whatever
 * stops when. Increments of one (system, data id, hour) are merged first, so each rollup row is written once per fold
 * however many batches added to it (the point of the deltas: many batches a second, one write per row here).
 * One fold runs at a time: while another process's fold holds the lock, this one folds nothing (that one takes the
 * increments), and the rows are deleted without being locked first (FOR UPDATE SKIP LOCKED wrote each one twice).
 * A row that a system's deletion or a rebuild removes meanwhile is not returned, so it is not folded.
 * The deleted rows come back as one value: PGlite hands a result over field by field, about 2 µs each, and the
 * 30,000 rows × 11 fields of a fold every 2 s (1,000 systems × 3 data ids, bench ingest) made the statement take
 * 1.15 s of every 10 of its thread; as one value, about 0.5 s. Answers the increments folded.
 */
export async function foldRollupDeltas (q: Queryable, limit: number): Promise<number> {
  // The lock is tried once (an uncorrelated subquery: a one-time filter), in the same statement: nothing is deleted
  // when another fold holds it. The rows come back as one JSON text, parsed here by JSON.parse on both stores
  // (node-postgres parses a float8[] element by element in JavaScript: 11 arrays cost the service more than rows did).
  // Counts and epoch ms are integers far below 2^53; no value is NaN or infinite (values of magnitude WIDE or more
  // are left out of the stats), so each one is a JSON number.
  const { rows: [r] } = await q.query<{ rows: string | null }>(
    `WITH d AS (DELETE FROM data_rollup_deltas
       WHERE ctid = ANY(ARRAY(SELECT ctid FROM data_rollup_deltas
         WHERE (SELECT pg_try_advisory_xact_lock(${FOLD_LOCK_KEY})) LIMIT ${Math.trunc(limit)}))
       RETURNING system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide)
     SELECT json_agg(json_build_array(system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide))::text AS rows FROM d`)
  if (r === undefined || r.rows === null) return 0
  const parts = (JSON.parse(r.rows) as DeltaTuple[]).map(([systemUid, dataId, start, cnt, nNum, sum, ss, min, max, m2, wide]): PeriodStats =>
    ({ systemUid, dataId, start, cnt, nNum, sum, ss, min, max, m2, wide }))
  const hours = mergePeriodStats(parts, (h) => h)
  const hourly = addPeriodStats(q, 'hour', hours)
  await settledInOrder([hourly, addPeriodStats(q, 'day', mergePeriodStats(hours, dayOf))])
  return parts.length
}

/** The stats of data_points rows `p` grouped by (system_uid, data_id, period), as the columns of the rollups. */
const STATS_OF_POINTS = `count(*) FILTER (WHERE p.num IS NOT NULL OR p.str IS NOT NULL),
  count(p.num) FILTER (WHERE abs(p.num) < ${WIDE}),
  coalesce(sum(p.num) FILTER (WHERE abs(p.num) < ${WIDE}), 0),
  coalesce(sum(p.num * p.num) FILTER (WHERE abs(p.num) < ${WIDE}), 0),
  min(p.num) FILTER (WHERE abs(p.num) < ${WIDE}),
  max(p.num) FILTER (WHERE abs(p.num) < ${WIDE}),
  coalesce(var_pop(p.num) FILTER (WHERE abs(p.num) < ${WIDE}) * count(p.num) FILTER (WHERE abs(p.num) < ${WIDE}), 0),
  coalesce(bool_or(NOT abs(p.num) < ${WIDE}), false)`

export interface RebuildScope {
  /** Points from `from` on (its day is rebuilt whole); null: from the first point. */
  from: number | null
  /** Points before `to` (its day is rebuilt whole); null: to the last point. */
  to: number | null
  /** Only these systems; absent: every system. */
  systemUids?: readonly string[]
}

/**
 * Recomputes from the raw points the rollups of every hour and day the scope touches: the periods are widened to
 * whole days, their rows deleted and written again (a period left with no point keeps no row). Answers the hourly rows
 * written. Run it in one transaction with nothing writing the same points meanwhile, or the increments of a
 * concurrent batch may be counted twice.
 */
export async function rebuildRollups (q: Queryable, scope: RebuildScope): Promise<number> {
  // Whole days, so that each day's row is rebuilt from all of its points (its hours are inside it).
  const from = scope.from === null ? null : dayOf(scope.from)
  const to = scope.to === null ? null : dayOf(scope.to - 1) + DAY_MS
  let hours = 0
  // The increments not folded yet are in the points too: the rebuild replaces them.
  {
    const params: unknown[] = [from, to]
    const systems = scope.systemUids === undefined ? '' : `AND system_uid = ANY($${params.push([...scope.systemUids])}::text[])`
    await q.query(`DELETE FROM data_rollup_deltas WHERE ($1::int8 IS NULL OR hour >= $1::int8) AND ($2::int8 IS NULL OR hour < $2::int8) ${systems}`, params)
  }
  for (const [period, size] of [['hour', HOUR_MS], ['day', DAY_MS]] as const) {
    const { table, column } = PERIODS[period]
    const params: unknown[] = [from, to]
    const systems = scope.systemUids === undefined ? '' : `AND system_uid = ANY($${params.push([...scope.systemUids])}::text[])`
    const range = `($1::int8 IS NULL OR ${column} >= $1::int8) AND ($2::int8 IS NULL OR ${column} < $2::int8) ${systems}`
    const pointRange = `($1::int8 IS NULL OR p.ts >= $1::int8) AND ($2::int8 IS NULL OR p.ts < $2::int8) ${systems.replace('system_uid', 'p.system_uid')}`
    await q.query(`DELETE FROM ${table} WHERE ${range}`, params)
    const res = await q.query(
      `INSERT INTO ${table} (system_uid, data_id, ${column}, cnt, n_num, sum, ss, min, max, m2, wide)
       SELECT p.system_uid, p.data_id, p.ts - ((p.ts % ${size}) + ${size}) % ${size} AS start, ${STATS_OF_POINTS}
       FROM data_points p WHERE ${pointRange}
       GROUP BY p.system_uid, p.data_id, start ORDER BY p.system_uid, p.data_id, start`, params)
    if (period === 'hour') hours = res.rowCount
  }
  return hours
}
