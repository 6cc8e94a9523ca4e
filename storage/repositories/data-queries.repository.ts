import type { Queryable } from '../../core/ports/store.js'
import type { AggregateFn, UsageMeasure, UsageSeries } from '../../core/domain/aggregation.js'
import type { AggregateQuery, AggregateRow, DataQueriesRepository, MessageRecord, StoredPoint } from '../../core/ports/data-queries.js'
import { decodeValue } from '../../core/ports/telemetry.js'

// Reads of storage/migrations/0005_telemetry.sql. Aggregation runs in SQL: the bucket starts come as one array and
// width_bucket() places each point (a binary search), so calendar buckets cost no date arithmetic in SQL and
// nothing but one value per (series, bucket) comes back.

interface PointRow { data_id: string, ts: number, num: number | null, str: string | null }
interface MessageRow { uid: string, ts: number, protocol: string, nb_data_points: number }

const toPoint = (r: PointRow): StoredPoint => ({ dataId: r.data_id, ts: r.ts, value: decodeValue(r.num, r.str) })
const toMessage = (r: MessageRow): MessageRecord => ({ uid: r.uid, timestamp: r.ts, protocol: r.protocol, nbDataPoints: r.nb_data_points })

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

function aggregateSql (q: AggregateQuery): string {
  const sys = 'systems' in q.targets
    ? 'SELECT uid, company_uid FROM systems WHERE uid = ANY($1::text[])'
    : 'SELECT uid, company_uid FROM systems WHERE company_uid = ANY($1::text[])'
  const sources = [
    `SELECT p.system_uid, p.data_id, p.ts, p.num, (p.num IS NOT NULL OR p.str IS NOT NULL) AS present
      FROM data_points p
      -- The system uids as a parameter (not a join on the CTE, nor a subquery the planner cannot size): PostgreSQL
      -- then reads the (system, data id, ts) index instead of scanning the whole table.
      WHERE p.system_uid = ANY($6::text[]) AND p.data_id = ANY($2::text[]) AND p.ts >= $3 AND p.ts < $4`,
    ...Object.entries(q.usage).map(([id, u]) => usageSource(id, u))
  ]
  const perSystem = `SELECT system_uid, data_id, width_bucket(ts, $5::int8[]) AS bucket, ${fold(q.fn, 'num', 'present')} AS v
    FROM pts GROUP BY system_uid, data_id, bucket`
  const head = `WITH sys AS (${sys}), pts AS (${sources.join(' UNION ALL ')}), per_system AS (${perSystem})`
  if ('systems' in q.targets) return `${head} SELECT system_uid AS key, data_id, bucket, v FROM per_system`
  const fleetFn = q.fleetFn ?? 'mean'
  return `${head} SELECT sys.company_uid AS key, ps.data_id, ps.bucket, ${fold(fleetFn, 'ps.v', 'ps.v IS NOT NULL')} AS v
    FROM per_system ps JOIN sys ON sys.uid = ps.system_uid GROUP BY sys.company_uid, ps.data_id, ps.bucket`
}

export function createDataQueriesRepository (q: Queryable): DataQueriesRepository {
  return {
    async systemsOf (companyUid, uids) {
      if (uids.length === 0) return []
      const { rows } = await q.query<{ uid: string }>(
        'SELECT uid FROM systems WHERE company_uid = $1 AND uid = ANY($2::text[])', [companyUid, uids])
      return rows.map((r) => r.uid)
    },

    async last (systemUid, selection) {
      const base = 'SELECT data_id, ts, num, str FROM data_last WHERE system_uid = $1'
      const { rows } = 'ids' in selection
        ? await q.query<PointRow>(`${base} AND data_id = ANY($2::text[]) ORDER BY data_id`, [systemUid, selection.ids])
        : 'prefix' in selection
          ? await q.query<PointRow>(`${base} AND left(data_id, length($2)) = $2 ORDER BY data_id`, [systemUid, selection.prefix])
          : await q.query<PointRow>(`${base} ORDER BY data_id`, [systemUid])
      return rows.map(toPoint)
    },

    async raw (systemUids, dataIds, range, size) {
      // The LIMIT applies per (system, data id) pair, inside the lateral subquery, on the series index.
      const { rows } = await q.query<PointRow & { system_uid: string }>(
        `SELECT s.uid AS system_uid, d.id AS data_id, p.ts, p.num, p.str
         FROM unnest($1::text[]) AS s (uid) CROSS JOIN unnest($2::text[]) AS d (id)
         CROSS JOIN LATERAL (
           SELECT ts, num, str FROM data_points
           WHERE system_uid = s.uid AND data_id = d.id AND ts >= $3 AND ts < $4
           ORDER BY ts DESC LIMIT $5) p
         ORDER BY s.uid, d.id, p.ts DESC`,
        [systemUids, dataIds, range.from, range.to, size])
      return rows.map((r) => ({ systemUid: r.system_uid, ...toPoint(r) }))
    },

    async aggregate (query) {
      if (query.buckets.length === 0) return []
      const keys = 'systems' in query.targets ? query.targets.systems : query.targets.companies
      const systems = 'systems' in query.targets
        ? query.targets.systems
        : (await q.query<{ uid: string }>('SELECT uid FROM systems WHERE company_uid = ANY($1::text[])', [keys])).rows.map((r) => r.uid)
      if (systems.length === 0) return []
      const { rows } = await q.query<{ key: string, data_id: string, bucket: number, v: number | null }>(
        aggregateSql(query), [keys, query.dataIds, query.from, query.to, query.buckets, systems])
      // width_bucket answers 1 for the first bucket; nothing outside [from, to) is read, so 0 never comes back.
      return rows.map((r): AggregateRow => ({ key: r.key, dataId: r.data_id, bucket: r.bucket - 1, v: r.v === null ? null : Number(r.v) }))
    },

    async messages (systemUid, range, after, limit) {
      // The order of the index (system_uid, ts DESC, uid): the cursor continues after (ts, uid) in that order.
      const cursor = after === null ? '' : 'AND (ts < $4 OR (ts = $4 AND uid > $5))'
      const params = after === null
        ? [systemUid, range.from, range.to, limit]
        : [systemUid, range.from, range.to, after.ts, after.uid, limit]
      const { rows } = await q.query<MessageRow>(
        `SELECT uid, ts, protocol, nb_data_points FROM device_messages
         WHERE system_uid = $1 AND ts >= $2 AND ts < $3 ${cursor}
         ORDER BY ts DESC, uid LIMIT $${params.length}`, params)
      return rows.map(toMessage)
    },

    async message (systemUid, uid) {
      const { rows } = await q.query<MessageRow>(
        'SELECT uid, ts, protocol, nb_data_points FROM device_messages WHERE system_uid = $1 AND uid = $2', [systemUid, uid])
      return rows[0] === undefined ? undefined : toMessage(rows[0])
    },

    async messagePoints (systemUid, messageUid) {
      const { rows } = await q.query<PointRow>(
        `SELECT data_id, ts, num, str FROM data_points WHERE message_uid = $1 AND system_uid = $2
         ORDER BY data_id, ts DESC`, [messageUid, systemUid])
      return rows.map(toPoint)
    }
  }
}
