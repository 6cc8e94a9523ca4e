// The usage store (core/ports/usage.ts) over usage_records (migrations 0005 and 0018) and their daily rollups (0026).
// The text fields of a record (visited network, served identities, apn, peer number...) live in its `fields` jsonb
// column: they are shown, never searched.
import type { Queryable } from '../../core/ports/store.js'
import type { MonthUsage, NewUsageRecord, SystemBilling, UsageRepository, UsageTarget } from '../../core/ports/usage.js'
import type { UsageRecordType } from '../../core/domain/aggregation.js'
import type { UsageRecord } from '../../core/domain/usage-record.js'
import { addUsageRollups } from './usage-rollups.sql.js'

interface RecordRow {
  system_uid: string
  uid: string
  type: UsageRecordType
  start_ts: number
  end_ts: number | null
  processed_at: number | null
  partial: boolean
  bytes_sent: number | null
  bytes_received: number | null
  bytes_total: number | null
  rounded_bytes_total: number | null
  rounded_duration: number | null
  fields: UsageRecord['text']
}

const COLUMNS = `system_uid, uid, type, start_ts, end_ts, processed_at, partial, bytes_sent, bytes_received, bytes_total,
  rounded_bytes_total, rounded_duration, fields`

// bigint columns come back as strings from PostgreSQL (as numbers from PGlite): every one goes through Number.
const num = (v: number | string | null): number | null => v === null ? null : Number(v)

function toRecord (r: RecordRow): UsageRecord & { systemUid: string } {
  return {
    systemUid: r.system_uid,
    uid: r.uid,
    type: r.type,
    start: Number(r.start_ts),
    end: num(r.end_ts),
    partial: r.partial,
    bytesSent: num(r.bytes_sent),
    bytesReceived: num(r.bytes_received),
    bytesTotal: num(r.bytes_total),
    roundedBytesTotal: num(r.rounded_bytes_total),
    roundedDuration: num(r.rounded_duration),
    processedAt: num(r.processed_at),
    text: r.fields
  }
}

/** Most recent first; of records starting together, the one ending last, then the latest stored. */
const NEWEST_FIRST = 'start_ts DESC, end_ts DESC NULLS LAST, id DESC'

/** The systems' side: which systems rows name, their billing, the month's bytes and the usage status. */
function usageSystems (q: Queryable): Pick<UsageRepository, 'targets' | 'billing' | 'addMonthBytes' | 'setUsageStatus'> {
  return {
    async targets (companyUid, uids, iccids) {
      if (uids.length === 0 && iccids.length === 0) return []
      const { rows } = await q.query<{ uid: string, name: string, iccid: string | null }>(
        `SELECT s.uid, s.name, b.identifier AS iccid FROM systems s LEFT JOIN subscriptions b ON b.uid = s.subscription_uid
         WHERE s.company_uid = $1 AND (s.uid = ANY($2::text[]) OR b.identifier = ANY($3::text[]))`, [companyUid, uids, iccids])
      return rows.map((r): UsageTarget => ({ uid: r.uid, name: r.name, iccid: r.iccid }))
    },
    async billing (companyUid, systemUids) {
      const out = new Map<string, SystemBilling>()
      if (systemUids.length === 0) return out
      const { rows } = await q.query<{ uid: string, limit_bytes: number | null, data_inc: number | null, voice_inc: number | null }>(
        `SELECT s.uid, o.limit_bytes, o.data_increment_bytes AS data_inc, o.voice_increment_seconds AS voice_inc
         FROM systems s LEFT JOIN offers o ON o.uid = s.offer_uid
         WHERE s.company_uid = $1 AND s.uid = ANY($2::text[])`, [companyUid, [...new Set(systemUids)]])
      for (const r of rows) out.set(r.uid, { limit: num(r.limit_bytes), increments: { dataBytes: num(r.data_inc), voiceSeconds: num(r.voice_inc) } })
      return out
    },
    async addMonthBytes (added, monthStart, now) {
      if (added.size === 0) return []
      // Locked in uid order first: two imports adding to the same systems never deadlock. NO KEY UPDATE, the lock the
      // UPDATE itself takes: FOR UPDATE would also wait on the KEY SHARE locks that the records' foreign key took in
      // the other import's transaction, while that one waits for ours.
      await q.query('SELECT uid FROM systems WHERE uid = ANY($1::text[]) ORDER BY uid FOR NO KEY UPDATE', [[...added.keys()]])
      const { rows } = await q.query<{ uid: string, total: number | string, limit_bytes: number | string | null }>(
        `UPDATE systems s SET month_bytes_time = $4,
           month_bytes_total = (CASE WHEN s.month_bytes_time >= $3 THEN s.month_bytes_total ELSE 0 END) + a.bytes
         FROM unnest($1::text[], $2::int8[]) AS a (uid, bytes) WHERE s.uid = a.uid
         RETURNING s.uid, s.month_bytes_total AS total, (SELECT o.limit_bytes FROM offers o WHERE o.uid = s.offer_uid) AS limit_bytes`,
        [[...added.keys()], [...added.values()], monthStart, now])
      return rows.map((r) => ({ systemUid: r.uid, bytesTotal: Number(r.total), limit: num(r.limit_bytes) }))
    },
    async setUsageStatus (rows: readonly MonthUsage[]) {
      if (rows.length === 0) return
      await q.query(
        'UPDATE systems s SET usage_status = u.status FROM unnest($1::text[], $2::text[]) AS u (uid, status) WHERE s.uid = u.uid',
        [rows.map((r) => r.systemUid), rows.map((r) => r.status)])
    }
  }
}

/** The records: stored once with their daily rollups, listed and got. */
function usageRecords (q: Queryable): Omit<UsageRepository, 'targets' | 'billing' | 'addMonthBytes' | 'setUsageStatus'> {
  return {
    async insert (records) {
      if (records.length === 0) return []
      const col = <T>(f: (r: NewUsageRecord) => T): T[] => records.map(f)
      // The records' systems first, in uid order (no two imports wait on each other in a cycle): the daily rollups of
      // the session counters need to know each session's first record, which a concurrent import of the same system
      // could change unseen. NO KEY UPDATE, as addMonthBytes (which takes it again later in the same transaction).
      await q.query('SELECT uid FROM systems WHERE uid = ANY($1::text[]) ORDER BY uid FOR NO KEY UPDATE', [[...new Set(col((r) => r.systemUid))]])
      // One statement for the whole batch; the unique key (0005: system, uid, type, start, end) keeps a repeated
      // record once, also when the same batch holds it twice.
      const { rows } = await q.query<{ id: number | string, system_uid: string, type: UsageRecordType, start_ts: number | string, bytes_total: number | string | null }>(
        `INSERT INTO usage_records (${COLUMNS})
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::bool[], $8::int8[],
           $9::int8[], $10::int8[], $11::int8[], $12::int8[], $13::jsonb[])
         ON CONFLICT DO NOTHING RETURNING id, system_uid, type, start_ts, bytes_total`,
        [col((r) => r.systemUid), col((r) => r.uid), col((r) => r.type), col((r) => r.start), col((r) => r.end),
          col((r) => r.processedAt), col((r) => r.partial), col((r) => r.bytesSent), col((r) => r.bytesReceived),
          col((r) => r.bytesTotal), col((r) => r.roundedBytesTotal), col((r) => r.roundedDuration),
          col((r) => JSON.stringify(r.text))])
      // Their days' rollups (docs/store.md#rollups), in the same transaction: the stored records only, a repeat adds
      // nothing.
      await addUsageRollups(q, rows.map((r) => Number(r.id)))
      return rows.map((r) => ({ systemUid: r.system_uid, type: r.type, start: Number(r.start_ts), bytesTotal: num(r.bytes_total) }))
    },
    async list (systemUid, range, size) {
      const { rows } = await q.query<RecordRow>(
        `SELECT ${COLUMNS} FROM usage_records WHERE system_uid = $1 AND start_ts >= $2 AND start_ts < $3
         ORDER BY ${NEWEST_FIRST} LIMIT $4`, [systemUid, range.from, range.to, size])
      return rows.map(toRecord)
    },
    async listMany (systemUids, range, size) {
      if (systemUids.length === 0) return []
      // The LIMIT applies per (system, type) pair, inside the lateral subquery, on the (system, type, start) index.
      const { rows } = await q.query<RecordRow>(
        `SELECT r.* FROM unnest($1::text[]) AS s (uid)
         CROSS JOIN unnest(ARRAY['DATA', 'SMS_SENT', 'SMS_RECEIVED', 'VOICE_IN', 'VOICE_OUT', 'MSU']) AS t (type)
         CROSS JOIN LATERAL (
           SELECT ${COLUMNS} FROM usage_records
           WHERE system_uid = s.uid AND type = t.type AND start_ts >= $2 AND start_ts < $3
           ORDER BY ${NEWEST_FIRST} LIMIT $4) r
         ORDER BY r.system_uid, r.type, r.start_ts DESC, r.end_ts DESC NULLS LAST`, [systemUids, range.from, range.to, size])
      return rows.map(toRecord)
    },
    async get (systemUid, uid) {
      const { rows } = await q.query<RecordRow>(
        `SELECT ${COLUMNS} FROM usage_records WHERE system_uid = $1 AND uid = $2
         ORDER BY partial, end_ts DESC NULLS LAST, start_ts DESC, id DESC LIMIT 1`, [systemUid, uid])
      return rows[0] === undefined ? undefined : toRecord(rows[0])
    }
  }
}

export function createUsageRepository (q: Queryable): UsageRepository {
  return { ...usageSystems(q), ...usageRecords(q) }
}
