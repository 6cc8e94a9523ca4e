// The usage data ids of aggregated and fleet queries through their daily rollups (docs/store.md#rollups;
// storage/migrations/0026_usage_rollups.sql): the whole days [first, end) from usage_rollups, the records of the days
// a range edge cuts ([from, first) and [end, to)) raw, both as exact partial stats (n, sum, ss, min, max) per bucket,
// folded into one value per (system, data id, bucket). The caller gives days only when every bucket starts on a UTC
// day (core/domain/usage-rollup.ts rollupDays), so a whole day never straddles two buckets.
//
// Why the answer is the raw path's (aggregate.sql.ts rawAggregateSql, which folds one float8 per record): the parts
// sum exactly (numeric), and each function rounds once at the end as the raw fold's float8 arithmetic does whenever
// that arithmetic is exact, which it is for whole-number values whose sums (and sums of squares, for ss) stay below
// 2^53: every counter but the durations. min, max and cnt are always the same. Where float8 rounds on the raw path
// (stddev, durations with milliseconds in sum / mean / ss, sums past 2^53), the raw answer depends on the order the
// records are read in and this one is the exact value rounded once: they differ in the last bits only.
import type { AggregateFn } from '../../core/domain/aggregation.js'
import type { AggregateQuery } from '../../core/ports/data-queries.js'
import { usagePointSql } from './usage-points.sql.js'

/**
 * docs/devices.md over exact parts. mean is sum / n in float8, as avg(float8) divides its float8 sum by its
 * count; stddev the population deviation √((n·ss − sum²) / n²), whose numerator is exact (no cancellation).
 */
function foldExact (fn: AggregateFn): string {
  const numeric = (v: string): string => `CASE WHEN sum(n) > 0 THEN ${v} END`
  switch (fn) {
    case 'mean': return numeric('sum(sum)::float8 / sum(n)::float8')
    case 'min': return 'min(min)::float8'
    case 'max': return 'max(max)::float8'
    case 'sum': return numeric('sum(sum)::float8')
    case 'ss': return numeric('sum(ss)::float8')
    case 'stddev': return numeric('sqrt((sum(n) * sum(ss) - sum(sum) * sum(sum))::float8 / (sum(n)::float8 * sum(n)::float8))')
    case 'cnt': return 'sum(n)::int8'
  }
}

/**
 * The CTEs giving usage_ps (system_uid, data_id, bucket, v) for the usage series of q. Parameters: $3 from, $4 to,
 * $5 bucket starts, $6 system uids (as aggregate.sql.ts), `days` the SQL of the first whole day and of the end.
 */
export function usageDaysSql (q: AggregateQuery, days: [string, string]): string[] {
  const [first, end] = days
  const ids = Object.keys(q.usage).map((id) => `'${id}'`).join(', ')
  const cut = (date: string): string =>
    `r.system_uid = ANY($6::text[]) AND ((${date} >= $3 AND ${date} < ${first}) OR (${date} >= ${end} AND ${date} < $4))`
  const edges = Object.entries(q.usage).map(([id, u]) => usagePointSql(id, u, { filter: cut, type: 'numeric' })).join(' UNION ALL ')
  const edgeParts = `SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, count(num) AS n, coalesce(sum(num), 0) AS sum,
      coalesce(sum(num * num), 0) AS ss, min(num) AS min, max(num) AS max
    FROM usage_edges GROUP BY system_uid, data_id, bucket`
  // ids: checked by usagePointSql above (capitals and underscores only).
  const dayParts = `SELECT system_uid, data_id, width_bucket(day, $5::int8[]) AS bucket, n, sum, ss, min, max
    FROM usage_rollups WHERE system_uid = ANY($6::text[]) AND data_id IN (${ids}) AND day >= ${first} AND day < ${end}`
  return [`usage_edges AS (${edges})`, `usage_parts AS (${edgeParts} UNION ALL ${dayParts})`,
    `usage_ps AS (SELECT system_uid, data_id, bucket, ${foldExact(q.fn)} AS v FROM usage_parts GROUP BY system_uid, data_id, bucket)`]
}
