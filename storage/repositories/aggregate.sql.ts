// The SQL of aggregated and fleet queries (fleet-api.md §Aggregated data points, §Fleet aggregated data points;
// conventions.md §Data). Buckets come as one array of starts and width_bucket() places each point or hour in its
// bucket (a binary search), so calendar buckets cost no date arithmetic in SQL and nothing but one value per
// (series, bucket) comes back.
//
// Two ways to the same answer: rawAggregateSql() folds the points themselves; rollupAggregateSql() folds the hourly
// rollups (storage/migrations/0019_data_rollups.sql) of the whole hours inside [from, to) and the raw points of the
// partial hours at its edges. Every bucket start is on a UTC hour (hours, days, months and years all are), so a
// whole hour never straddles two buckets.
import type { AggregateFn, UsageMeasure, UsageSeries } from '../../core/domain/aggregation.js'
import type { AggregateQuery } from '../../core/ports/data-queries.js'

/** conventions.md §Data: the folding functions over (num, present); `present` is false for a null value. */
function fold (fn: AggregateFn, num: string, present: string): string {
  switch (fn) {
    case 'mean': return `avg(${num})`
    case 'min': return `min(${num})`
    case 'max': return `max(${num})`
    case 'sum': return `sum(${num})`
    // The population deviation: the points of a bucket are all its points (one point gives 0).
    case 'stddev': return `stddev_pop(${num})`
    case 'ss': return `sum(${num} * ${num})`
    case 'cnt': return `count(*) FILTER (WHERE ${present})`
  }
}

/**
 * The same functions over partial stats (cnt, n_num, sum, ss, min, max, m2; `gm` the bucket's mean, for stddev), one
 * row per rollup hour or per bucket of edge points. stddev combines the parts as Chan et al. do for k groups: the
 * squared deviations from the overall mean are each part's m2 plus n·(its mean − overall mean)². That neither
 * subtracts two large sums (ss − sum²/n would lose every digit of a small deviation on large values) nor depends on
 * the order of the parts; against PostgreSQL's stddev_pop of the points (Youngs-Cramer) it differs by rounding only,
 * which the property test bounds to 1e-9 of the values' magnitude (test/integration/data/rollups-property.test.ts).
 */
function foldParts (fn: AggregateFn): string {
  const numeric = (v: string): string => `CASE WHEN sum(n_num) > 0 THEN ${v} END`
  switch (fn) {
    case 'mean': return numeric('sum(sum) / sum(n_num)::float8')
    case 'min': return 'min(min)'
    case 'max': return 'max(max)'
    case 'sum': return numeric('sum(sum)')
    case 'ss': return numeric('sum(ss)')
    case 'stddev': return numeric(`sqrt(greatest(0, coalesce(sum(m2), 0)
      + coalesce(sum(n_num::float8 * (sum / n_num - gm) ^ 2) FILTER (WHERE n_num > 0), 0)) / sum(n_num)::float8)`)
    case 'cnt': return 'sum(cnt)::int8'
  }
}

const MEASURES: Record<UsageMeasure, string> = {
  // A session counts on its first record (interim DATA records share its uid).
  session: `CASE WHEN NOT EXISTS (SELECT 1 FROM usage_records e WHERE e.system_uid = r.system_uid AND e.uid = r.uid
    AND e.type = r.type AND (e.start_ts < r.start_ts OR (e.start_ts = r.start_ts AND e.id < r.id))) THEN 1 END`,
  count: '1',
  duration: '(coalesce(r.end_ts, r.start_ts) - r.start_ts) / 1000.0',
  roundedDuration: 'r.rounded_duration',
  bytesSent: 'r.bytes_sent',
  bytesReceived: 'r.bytes_received',
  bytesTotal: 'r.bytes_total',
  roundedBytesTotal: 'r.rounded_bytes_total'
}

/** fleet-api.md §System usage data ids: start date, or the end processing date for INVOICED_ counters. */
const DATES = { start: 'r.start_ts', invoiced: 'coalesce(r.processed_at, r.end_ts, r.start_ts)' }

/** One usage series as points (system_uid, data_id, ts, num, present); ids and types come from a fixed table. */
function usageSource (dataId: string, u: UsageSeries): string {
  if (!/^[A-Z_]+$/.test(dataId) || !/^[A-Z_]+$/.test(u.type)) throw new Error(`not a usage data id: ${dataId}`)
  const date = DATES[u.date]
  return `SELECT system_uid, '${dataId}'::text AS data_id, ts, num, num IS NOT NULL AS present FROM (
      SELECT r.system_uid, ${date} AS ts, (${MEASURES[u.measure]})::float8 AS num
      FROM usage_records r
      WHERE r.system_uid = ANY($6::text[]) AND r.type = '${u.type}' AND ${date} >= $3 AND ${date} < $4) u`
}

/** The stored points in `where` (p: data_points) and the usage series in [$3, $4), as (system_uid, data_id, ts, num, present). */
function pointSources (q: AggregateQuery, where: string): string {
  return [
    `SELECT p.system_uid, p.data_id, p.ts, p.num, (p.num IS NOT NULL OR p.str IS NOT NULL) AS present
      FROM data_points p
      -- The system uids as a parameter (not a join on the CTE, nor a subquery the planner cannot size): PostgreSQL
      -- then reads the (system, data id, ts) index instead of scanning the whole table.
      WHERE p.system_uid = ANY($6::text[]) AND p.data_id = ANY($2::text[]) AND ${where}`,
    ...Object.entries(q.usage).map(([id, u]) => usageSource(id, u))
  ].join(' UNION ALL ')
}

function systemsCte (q: AggregateQuery): string {
  return 'systems' in q.targets
    ? 'SELECT uid, company_uid FROM systems WHERE uid = ANY($1::text[])'
    : 'SELECT uid, company_uid FROM systems WHERE company_uid = ANY($1::text[])'
}

/** The answer from per_system (system_uid, data_id, bucket, v): as is, or folded per company with fleetFn. */
function finalSelect (q: AggregateQuery): string {
  if ('systems' in q.targets) return 'SELECT system_uid AS key, data_id, bucket, v FROM per_system'
  const fleetFn = q.fleetFn ?? 'mean'
  return `SELECT sys.company_uid AS key, ps.data_id, ps.bucket, ${fold(fleetFn, 'ps.v', 'ps.v IS NOT NULL')} AS v
    FROM per_system ps JOIN sys ON sys.uid = ps.system_uid GROUP BY sys.company_uid, ps.data_id, ps.bucket`
}

/**
 * Folds the points. Parameters: $1 the target keys, $2 data ids, $3 from, $4 to, $5 bucket starts, $6 system uids.
 */
export function rawAggregateSql (q: AggregateQuery): string {
  const perSystem = `SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, ${fold(q.fn, 'num', 'present')} AS v
    FROM pts GROUP BY system_uid, data_id, bucket`
  return `WITH sys AS (${systemsCte(q)}), pts AS (${pointSources(q, 'p.ts >= $3 AND p.ts < $4')}), per_system AS (${perSystem})
    ${finalSelect(q)}`
}

/**
 * Folds the rollups of the whole hours [$7, $8) and the points of [$3, $7) and [$8, $4) (the usage series, which have
 * no rollups, over all of [$3, $4)); the other parameters as rawAggregateSql(). The caller makes sure no hour of the
 * range is `wide`.
 */
export function rollupAggregateSql (q: AggregateQuery): string {
  const edges = pointSources(q, '((p.ts >= $3 AND p.ts < $7) OR (p.ts >= $8 AND p.ts < $4))')
  const edgeParts = `SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, count(*) FILTER (WHERE present) AS cnt,
      count(num) AS n_num, sum(num) AS sum, sum(num * num) AS ss, min(num) AS min, max(num) AS max, var_pop(num) * count(num) AS m2
    FROM edges GROUP BY system_uid, data_id, bucket`
  const hourParts = `SELECT system_uid, data_id, width_bucket(hour, $5::int8[]) AS bucket, cnt, n_num, sum, ss, min, max, m2
    FROM data_rollups WHERE system_uid = ANY($6::text[]) AND data_id = ANY($2::text[]) AND hour >= $7 AND hour < $8`
  // The overall mean of each bucket, for stddev only: a window over the parts costs a sort the others do not need.
  const parts = q.fn === 'stddev'
    ? `SELECT *, sum(sum) OVER w / nullif(sum(n_num) OVER w, 0)::float8 AS gm FROM (${edgeParts} UNION ALL ${hourParts}) x
        WINDOW w AS (PARTITION BY system_uid, data_id, bucket)`
    : `${edgeParts} UNION ALL ${hourParts}`
  const perSystem = `SELECT system_uid, data_id, bucket, ${foldParts(q.fn)} AS v FROM parts GROUP BY system_uid, data_id, bucket`
  return `WITH sys AS (${systemsCte(q)}), edges AS (${edges}), parts AS (${parts}), per_system AS (${perSystem})
    ${finalSelect(q)}`
}
