import type { Queryable } from '../../core/ports/store.js'
import type { AggregateQuery, AggregateRow, DataQueriesRepository, MessageRecord, StoredPoint } from '../../core/ports/data-queries.js'
import { decodeValue } from '../../core/ports/telemetry.js'
import { HOUR_MS, hourOf } from '../../core/domain/rollup.js'
import { rollupDays } from '../../core/domain/usage-rollup.js'
import { rawAggregateSql, rollupAggregateStatement, type AggregatePlan } from './aggregate.sql.js'

// Reads of storage/migrations/0005_telemetry.sql, 0019_data_rollups.sql and 0026_usage_rollups.sql. Aggregation runs
// in SQL (aggregate.sql.ts), over the hourly rollups where whole hours allow it and over the daily usage rollups
// where whole days do.

interface PointRow { data_id: string, ts: number, num: number | null, str: string | null }
interface MessageRow { uid: string, ts: number, protocol: string, nb_data_points: number }

const toPoint = (r: PointRow): StoredPoint => ({ dataId: r.data_id, ts: r.ts, value: decodeValue(r.num, r.str) })
const toMessage = (r: MessageRow): MessageRecord => ({ uid: r.uid, timestamp: r.ts, protocol: r.protocol, nbDataPoints: r.nb_data_points })

export interface DataQueriesOptions {
  /**
   * Aggregations fold the hourly rollups of the points and the daily rollups of the usage data ids (default true);
   * false: the raw points and usage records only, the reference the rollups are tested against and the figure
   * bench/query.ts prints beside theirs (config DATA_ROLLUPS).
   */
  rollups?: boolean
}

/**
 * The whole hours of [from, to) as [first, end), or undefined when there is none or one of them is `wide` (a value
 * the rollups leave out, migrations/0019): then the points alone answer. The look for wide hours reads a partial
 * index that is empty unless some device sent a value of magnitude 1e100 or more.
 */
async function wholeHours (q: Queryable, query: AggregateQuery, systems: string[], from: number): Promise<[number, number] | undefined> {
  const first = hourOf(from) === from ? from : hourOf(from) + HOUR_MS
  const end = hourOf(query.to)
  if (first >= end || query.dataIds.length === 0) return undefined
  const { rows } = await q.query(
    `SELECT 1 FROM data_rollups WHERE wide AND system_uid = ANY($1::text[]) AND data_id = ANY($2::text[])
       AND hour >= $3 AND hour < $4
     UNION ALL SELECT 1 FROM data_rollup_deltas WHERE wide AND system_uid = ANY($1::text[]) AND data_id = ANY($2::text[])
       AND hour >= $3 AND hour < $4 LIMIT 1`, [systems, query.dataIds, hourOf(from), query.to])
  return rows.length > 0 ? undefined : [first, end]
}

/** Points and messages as stored: last values, raw series, a system's messages and their points. */
function seriesReads (q: Queryable): Omit<DataQueriesRepository, 'aggregate'> {
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
      // The LIMIT applies per (system, data id) pair, inside the lateral subquery, on the series index. Each series
      // comes back as one JSON array of [ts, num, str]: 5 systems × 10 ids × 500 points were 25,000 rows to send,
      // parse and sort (most of the request's time, bench query), where 50 arrays are parsed natively.
      const { rows } = await q.query<{ system_uid: string, data_id: string, pts: Array<[number, number | string | null, string | null]> | null }>(
        `SELECT s.uid AS system_uid, d.id AS data_id,
           (SELECT json_agg(json_build_array(p.ts, p.num, p.str) ORDER BY p.ts DESC) FROM (
              SELECT ts, num, str FROM data_points
              WHERE system_uid = s.uid AND data_id = d.id AND ts >= $3 AND ts < $4
              ORDER BY ts DESC LIMIT $5) p) AS pts
         FROM unnest($1::text[]) AS s (uid) CROSS JOIN unnest($2::text[]) AS d (id)`,
        [systemUids, dataIds, range.from, range.to, size])
      const out: Array<StoredPoint & { systemUid: string }> = []
      for (const r of rows) {
        // PostgreSQL writes NaN and ±Infinity as JSON strings ("NaN"): a number column never holds anything else.
        for (const [ts, num, str] of r.pts ?? []) out.push({ systemUid: r.system_uid, dataId: r.data_id, ts: Number(ts), value: decodeValue(typeof num === 'string' ? Number(num) : num, str) })
      }
      return out
    },
    async rawJson (systemUids, dataIds, range, size) {
      // The value as raw() decodes it (core/ports/telemetry.ts decodeValue): num (1 or 0 for a boolean), else str,
      // JSON's null for a NaN or an infinity. float8 text is the shortest that reads back the same double.
      const { rows } = await q.query<{ system_uid: string, data_id: string, json: string }>(
        `SELECT s.uid AS system_uid, d.id AS data_id,
           (SELECT string_agg('{"ts":' || p.ts || ',"v":' || CASE
                WHEN p.num IS NULL THEN coalesce(to_json(p.str)::text, 'null')
                WHEN p.num IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) THEN 'null'
                ELSE p.num::text END || '}', ',' ORDER BY p.ts DESC) FROM (
              SELECT ts, num, str FROM data_points
              WHERE system_uid = s.uid AND data_id = d.id AND ts >= $3 AND ts < $4
              ORDER BY ts DESC LIMIT $5) p) AS json
         FROM unnest($1::text[]) AS s (uid) CROSS JOIN unnest($2::text[]) AS d (id)`,
        [systemUids, dataIds, range.from, range.to, size])
      return rows.flatMap((r) => r.json === null ? [] : [{ systemUid: r.system_uid, dataId: r.data_id, json: `[${r.json}]` }])
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

/** Aggregations: over the rollups where whole hours and days allow it (useRollups), else over points and records. */
function aggregations (q: Queryable, useRollups: boolean): Pick<DataQueriesRepository, 'aggregate'> {
  return {
    async aggregate (query) {
      if (query.buckets.length === 0) return []
      const keys = 'systems' in query.targets ? query.targets.systems : query.targets.companies
      const systems = 'systems' in query.targets
        ? query.targets.systems
        : (await q.query<{ uid: string }>('SELECT uid FROM systems WHERE company_uid = ANY($1::text[])', [keys])).rows.map((r) => r.uid)
      if (systems.length === 0) return []
      // Points before the first bucket answer nothing (a `size` shorter than the range): the rollup path skips them.
      const from = Math.max(query.from, query.buckets[0] ?? query.from)
      const usage = Object.keys(query.usage).length > 0
      const hours = useRollups ? await wholeHours(q, query, systems, from) : undefined
      const plan: AggregatePlan = !useRollups
        ? {}
        : {
            hours,
            // Whole days among the whole hours, folded from one daily row each, when no bucket edge cuts a day.
            hourDays: hours === undefined ? undefined : rollupDays(query.buckets, hours[0], hours[1]),
            days: usage ? rollupDays(query.buckets, from, query.to) : undefined
          }
      const raw = plan.hours === undefined && plan.days === undefined
      const base = [keys, query.dataIds, raw ? query.from : from, query.to, query.buckets, systems]
      const statement = raw ? { text: rawAggregateSql(query), values: base } : rollupAggregateStatement(query, base, plan)
      const { rows } = await q.query<{ key: string, data_id: string, bucket: number, v: number | null }>(statement.text, statement.values)
      // width_bucket answers 1 for the first bucket; nothing outside [from, to) is read, so 0 never comes back.
      return rows.map((r): AggregateRow => ({ key: r.key, dataId: r.data_id, bucket: r.bucket - 1, v: r.v === null || !Number.isFinite(Number(r.v)) ? null : Number(r.v) }))
    }
  }
}

export function createDataQueriesRepository (q: Queryable, opts: DataQueriesOptions = {}): DataQueriesRepository {
  return { ...seriesReads(q), ...aggregations(q, opts.rollups ?? true) }
}
