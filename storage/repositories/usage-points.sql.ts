// The usage data ids as points (docs/usage.md; core/domain/aggregation.ts USAGE_DATA_IDS): each
// usage record of a series' type is one point, dated and valued below. One definition for every reader and writer:
// the raw aggregation (aggregate.sql.ts), the daily rollups' increments and rebuild (usage-rollups.sql.ts) and the
// cut days of the rollup path (usage-aggregate.sql.ts), so that a rollup folds exactly the points the raw path reads.
import { USAGE_DATA_IDS, type UsageMeasure, type UsageSeries } from '../../core/domain/aggregation.js'
import { DAY_MS } from '../../core/domain/usage-rollup.js'

/** What record `r` contributes to a series; NULL is a point without a value (counted by no fn, but present in its bucket). */
export const MEASURE_SQL: Record<UsageMeasure, string> = {
  // A session counts on its first record (interim DATA records share its uid): the earliest start, then the first stored.
  session: `CASE WHEN NOT EXISTS (SELECT 1 FROM usage_records e WHERE e.system_uid = r.system_uid AND e.uid = r.uid
    AND e.type = r.type AND (e.start_ts < r.start_ts OR (e.start_ts = r.start_ts AND e.id < r.id))) THEN 1 END`,
  count: '1',
  // Seconds with the milliseconds as decimals: an exact numeric, which the raw path rounds to float8 point by point.
  duration: '(coalesce(r.end_ts, r.start_ts) - r.start_ts) / 1000.0',
  // The rounded (invoiced) values were computed at import with the offer's increments and stored with the record.
  roundedDuration: 'r.rounded_duration',
  bytesSent: 'r.bytes_sent',
  bytesReceived: 'r.bytes_received',
  bytesTotal: 'r.bytes_total',
  roundedBytesTotal: 'r.rounded_bytes_total'
}

/** docs/usage.md: the session start date, or the end processing date for INVOICED_ counters. */
export const DATE_SQL = { start: 'r.start_ts', invoiced: 'coalesce(r.processed_at, r.end_ts, r.start_ts)' } as const

/** The start of the UTC day of the epoch-ms expression `ts` (negative timestamps too), as core/domain/usage-rollup.ts dayOf. */
export const daySql = (ts: string): string => `(${ts} - ((${ts} % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS})`

/** Ids and types are pasted into SQL: they come from the fixed table USAGE_DATA_IDS, and are checked all the same. */
function checked (dataId: string, u: UsageSeries): void {
  if (!/^[A-Z_]+$/.test(dataId) || !/^[A-Z_]+$/.test(u.type)) throw new Error(`not a usage data id: ${dataId}`)
}

export interface PointSqlOptions {
  /** Which records `r` count, given the series' date expression. */
  filter: (date: string) => string
  /** float8 as the raw aggregation folds the values; numeric (exact) for the rollups. */
  type: 'float8' | 'numeric'
  /** Where the records come from: usage_records, or a query's set of its rows. */
  records?: string
  /** The value instead of the series' measure: an SQL expression over r. */
  value?: string
}

/** One usage series as points (system_uid, data_id, ts, num) of the records `r` the options select. */
export function usagePointSql (dataId: string, u: UsageSeries, o: PointSqlOptions): string {
  checked(dataId, u)
  const date = DATE_SQL[u.date]
  return `SELECT r.system_uid, '${dataId}'::text AS data_id, ${date} AS ts, (${o.value ?? MEASURE_SQL[u.measure]})::${o.type} AS num
    FROM ${o.records ?? 'usage_records'} r WHERE r.type = '${u.type}' AND ${o.filter(date)}`
}

/** Every usage data id, as [id, series] pairs. */
export const usageSeries = (): Array<[string, UsageSeries]> => Object.entries(USAGE_DATA_IDS)
