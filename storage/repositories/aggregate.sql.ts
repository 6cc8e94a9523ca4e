// The SQL of aggregated and fleet queries (docs/devices.md;
// docs/devices.md). Buckets come as one array of starts and width_bucket() places each point or hour in its
// bucket (a binary search), so calendar buckets cost no date arithmetic in SQL and nothing but one value per
// (series, bucket) comes back.
//
// Two ways to the same answer: rawAggregateSql() folds the points and usage records themselves;
// rollupAggregateStatement() folds the hourly rollups of the data points (storage/migrations/0019_data_rollups.sql)
// over the whole hours inside [from, to) (and the daily ones, 0027_data_rollups_daily.sql, over the whole days among
// them when every bucket starts on a day) and the raw points of the partial hours at its edges, and the daily rollups
// of the usage data ids (0026_usage_rollups.sql, usage-aggregate.sql.ts) over the whole days that no bucket edge cuts
// and the raw records elsewhere. Every bucket start is on a UTC hour (hours, days, months and years all are), so a
// whole hour never straddles two buckets.
import { DEFAULT_AGGREGATE_FN, type AggregateFn } from '../../core/domain/aggregation.js'
import type { AggregateQuery } from '../../core/ports/data-queries.js'
import { usagePointSql } from './usage-points.sql.js'
import { usageDaysSql } from './usage-aggregate.sql.js'

/** docs/devices.md: the folding functions over (num, present); `present` is false for a null value. */
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
 * which the property test bounds to 1e-9 of the values' magnitude (test/slow/property/rollups-property.test.ts).
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

/** The usage series in [$3, $4), as (system_uid, data_id, ts, num, present). */
function usageSources (q: AggregateQuery): string[] {
  return Object.entries(q.usage).map(([id, u]) => `SELECT system_uid, data_id, ts, num, num IS NOT NULL AS present FROM (${
    usagePointSql(id, u, { filter: (date) => `r.system_uid = ANY($6::text[]) AND ${date} >= $3 AND ${date} < $4`, type: 'float8' })}) u`)
}

/** The stored points in `where` (p: data_points), as (system_uid, data_id, ts, num, present). */
function dataPointsSource (where: string): string {
  return `SELECT p.system_uid, p.data_id, p.ts, p.num, (p.num IS NOT NULL OR p.str IS NOT NULL) AS present
      FROM data_points p
      -- The system uids as a parameter (not a join on the CTE, nor a subquery the planner cannot size): PostgreSQL
      -- then reads the (system, data id, ts) index instead of scanning the whole table.
      WHERE p.system_uid = ANY($6::text[]) AND p.data_id = ANY($2::text[]) AND ${where}`
}

/** The stored points in `where` and the usage series in [$3, $4), as (system_uid, data_id, ts, num, present). */
function pointSources (q: AggregateQuery, where: string): string {
  return [dataPointsSource(where), ...usageSources(q)].join(' UNION ALL ')
}

function systemsCte (q: AggregateQuery): string {
  return 'systems' in q.targets
    ? 'SELECT uid, company_uid FROM systems WHERE uid = ANY($1::text[])'
    : 'SELECT uid, company_uid FROM systems WHERE company_uid = ANY($1::text[])'
}

/** The answer from per_system (system_uid, data_id, bucket, v): as is, or folded per company with fleetFn. */
function finalSelect (q: AggregateQuery): string {
  if ('systems' in q.targets) return 'SELECT system_uid AS key, data_id, bucket, v FROM per_system'
  const fleetFn = q.fleetFn ?? DEFAULT_AGGREGATE_FN
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
 * Whole hours [first, end) of data_rollups, and within them the whole days [first, end) of data_rollups_daily
 * (`hourDays`); whole days [first, end) of usage_rollups (`days`). Absent: read raw (hours), or hour by hour (hourDays).
 */
export interface AggregatePlan { hours?: [number, number], hourDays?: [number, number], days?: [number, number] }

/** The rollup rows of one period table over [lo, hi), as parts (system_uid, data_id, bucket, cnt, ... m2). */
function rollupParts (table: 'data_rollups' | 'data_rollups_daily' | 'data_rollup_deltas', column: 'hour' | 'day', lo: string, hi: string): string {
  return `SELECT system_uid, data_id, width_bucket(${column}, $5::int8[]) AS bucket, cnt, n_num, sum, ss, min, max, m2
    FROM ${table} WHERE system_uid = ANY($6::text[]) AND data_id = ANY($2::text[]) AND ${column} >= ${lo} AND ${column} < ${hi}`
}

/**
 * per_system rows (system_uid, data_id, bucket, v) of the data points: folded raw, or through the hours, and the days
 * where whole days are given (a day lies in one bucket: the caller gives days only when every bucket starts on one).
 */
function dataBranch (q: AggregateQuery, hours: [string, string] | undefined, days: [string, string] | undefined): string[] {
  if (hours === undefined) {
    return [`data_pts AS (${dataPointsSource('p.ts >= $3 AND p.ts < $4')})`,
      `data_ps AS (SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, ${fold(q.fn, 'num', 'present')} AS v
        FROM data_pts GROUP BY system_uid, data_id, bucket)`]
  }
  const [first, end] = hours
  const edges = dataPointsSource(`((p.ts >= $3 AND p.ts < ${first}) OR (p.ts >= ${end} AND p.ts < $4))`)
  const edgeParts = `SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, count(*) FILTER (WHERE present) AS cnt,
      count(num) AS n_num, sum(num) AS sum, sum(num * num) AS ss, min(num) AS min, max(num) AS max, var_pop(num) * count(num) AS m2
    FROM edges GROUP BY system_uid, data_id, bucket`
  // The increments not folded yet (data_rollup_deltas) are parts of their hours like the rows of the rollups.
  const hourParts = [
    ...days === undefined
      ? [rollupParts('data_rollups', 'hour', first, end)]
      : [rollupParts('data_rollups', 'hour', first, days[0]), rollupParts('data_rollups_daily', 'day', days[0], days[1]),
          rollupParts('data_rollups', 'hour', days[1], end)],
    rollupParts('data_rollup_deltas', 'hour', first, end)
  ].join(' UNION ALL ')
  // The overall mean of each bucket, for stddev only: a window over the parts costs a sort the others do not need.
  const parts = q.fn === 'stddev'
    ? `SELECT *, sum(sum) OVER w / nullif(sum(n_num) OVER w, 0)::float8 AS gm FROM (${edgeParts} UNION ALL ${hourParts}) x
        WINDOW w AS (PARTITION BY system_uid, data_id, bucket)`
    : `${edgeParts} UNION ALL ${hourParts}`
  return [`edges AS (${edges})`, `parts AS (${parts})`,
    `data_ps AS (SELECT system_uid, data_id, bucket, ${foldParts(q.fn)} AS v FROM parts GROUP BY system_uid, data_id, bucket)`]
}

/** per_system rows of the usage series: folded from the records, as rawAggregateSql() does. */
function rawUsageBranch (q: AggregateQuery): string[] {
  return [`usage_pts AS (${usageSources(q).join(' UNION ALL ')})`,
    `usage_ps AS (SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, ${fold(q.fn, 'num', 'present')} AS v
      FROM usage_pts GROUP BY system_uid, data_id, bucket)`]
}

export interface Statement { text: string, values: unknown[] }

/**
 * Folds the data points through the hours and the usage series through the days the plan gives (each raw where the
 * plan gives none). `values` are the six parameters of rawAggregateSql() ($3: a from at or after the first bucket);
 * the hours and days are added after them. The caller makes sure no hour of the plan's is `wide`.
 */
export function rollupAggregateStatement (q: AggregateQuery, values: readonly unknown[], plan: AggregatePlan): Statement {
  const all = [...values]
  const param = (v: number): string => `$${all.push(v)}::int8`
  // The data branch even without data ids: it reads nothing then, and uses $2, which PostgreSQL must see typed.
  const ctes = dataBranch(q, plan.hours === undefined ? undefined : [param(plan.hours[0]), param(plan.hours[1])],
    plan.hours === undefined || plan.hourDays === undefined ? undefined : [param(plan.hourDays[0]), param(plan.hourDays[1])])
  const branches = ['SELECT system_uid, data_id, bucket, v FROM data_ps']
  if (Object.keys(q.usage).length > 0) {
    ctes.push(...plan.days === undefined ? rawUsageBranch(q) : usageDaysSql(q, [param(plan.days[0]), param(plan.days[1])]))
    branches.push('SELECT system_uid, data_id, bucket, v FROM usage_ps')
  }
  const text = `WITH sys AS (${systemsCte(q)}), ${ctes.join(', ')}, per_system AS (${branches.join(' UNION ALL ')})
    ${finalSelect(q)}`
  return { text, values: all }
}
