import type { Queryable } from '../../core/ports/store.js'
import { encodeValue, type IngestSystemState, type TelemetryRepository } from '../../core/ports/telemetry.js'
import { hourStats } from '../../core/domain/rollup.js'
import { ON_TRAFFIC } from '../../core/domain/comm-status.js'
import { sweepCommStatus } from './comm-sweep.sql.js'
import { foldRollupDeltas, insertRollupDeltas } from './rollups.sql.js'
import { numberArray, textArray } from '../sql-arrays.js'
import { settledInOrder } from '../../core/settled.js'

// Batches are written with one statement per table: unnest() of typed arrays (docs/architecture.md#storage).
// The state of traffic (lastCommDate, commStatus, System data) is system_state's row (0024_system_state.sql).
// lockSystems takes FOR NO KEY UPDATE: the flush never changes a key.
interface StateRow { uid: string, company_uid: string, comm_status: string, last_comm_date: string | null, data: Record<string, unknown>, data_ts: Record<string, number> }

/** The systems' side of traffic: their state locked, read and updated, the comm status sweep, mobile numbers; and messages. */
function systemTraffic (q: Queryable): Pick<TelemetryRepository, 'lockSystems' | 'insertMessages' | 'updateSystems' | 'mobileNumbers' | 'sweepCommStatus'> {
  return {
    async lockSystems (uids) {
      const sorted = [...new Set(uids)].sort()
      const lock = async (keys: string[]): Promise<StateRow[]> => (await q.query<StateRow>(
        `SELECT st.system_uid AS uid, s.company_uid, st.comm_status, st.last_comm_date, st.data, st.data_ts
         FROM system_state st JOIN systems s ON s.uid = st.system_uid WHERE st.system_uid = ANY($1::text[])
         ORDER BY st.system_uid FOR NO KEY UPDATE OF st`, [keys])).rows
      let rows = await lock(sorted)
      if (rows.length < sorted.length) {
        // Systems without a state row yet (inserted behind the repositories' back): theirs is created, then locked.
        const have = new Set(rows.map((r) => r.uid))
        const missing = sorted.filter((u) => !have.has(u))
        await q.query(`INSERT INTO system_state (system_uid) SELECT uid FROM systems WHERE uid = ANY($1::text[])
          ON CONFLICT (system_uid) DO NOTHING`, [missing])
        rows = [...rows, ...await lock(missing)].sort((a, b) => a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0)
      }
      return rows.map((r): IngestSystemState => ({
        uid: r.uid, companyUid: r.company_uid, commStatus: r.comm_status, lastCommDate: r.last_comm_date === null ? null : Number(r.last_comm_date), data: r.data, dataTs: r.data_ts
      }))
    },
    async insertMessages (rows, { again }) {
      if (rows.length === 0) return { known: new Map(), inserted: [] }
      // One statement finds the systems and inserts their messages (the batch's first round trip was a lookup of its
      // own). ON CONFLICT only when written again: the speculative insertion it needs cost a quarter of the insert.
      const { rows: found } = await q.query<{ uid: string, company_uid: string | null }>(
        `WITH k AS (SELECT uid, company_uid FROM systems WHERE uid = ANY($2::text[])),
         ins AS (INSERT INTO device_messages (uid, system_uid, protocol, ts, received_at, nb_data_points)
           SELECT u.* FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int4[]) AS u(uid, system_uid, protocol, ts, received_at, n)
           WHERE u.system_uid IN (SELECT uid FROM k)
           ${again ? 'ON CONFLICT (uid) DO NOTHING RETURNING uid' : ''})
         SELECT uid, company_uid FROM k${again ? ' UNION ALL SELECT uid, NULL FROM ins' : ''}`,
        [textArray(rows.map((r) => r.uid)), textArray(rows.map((r) => r.systemUid)), textArray(rows.map((r) => r.protocol)),
          numberArray(rows.map((r) => r.ts)), numberArray(rows.map((r) => r.receivedAt)), numberArray(rows.map((r) => r.nbDataPoints))])
      const known = new Map<string, string>()
      const inserted: string[] = []
      for (const r of found) if (r.company_uid === null) inserted.push(r.uid); else known.set(r.uid, r.company_uid)
      return { known, inserted: again ? inserted : rows.filter((r) => known.has(r.systemUid)).map((r) => r.uid) }
    },
    async updateSystems (rows) {
      if (rows.length === 0) return
      await q.query(
        `UPDATE system_state st SET data = v.data, data_ts = v.data_ts, comm_status = '${ON_TRAFFIC}',
           last_comm_date = GREATEST(coalesce(st.last_comm_date, 0), v.lc)
         FROM jsonb_to_recordset($1::jsonb) AS v(uid text, data jsonb, data_ts jsonb, lc bigint)
         WHERE st.system_uid = v.uid`,
        [JSON.stringify(rows.map((r) => ({ uid: r.uid, data: r.data, data_ts: r.dataTs, lc: r.lastCommDate })))])
    },
    async mobileNumbers (systemUids) {
      if (systemUids.length === 0) return new Map()
      const { rows } = await q.query<{ uid: string, mobile_number: string }>(
        `SELECT s.uid, b.mobile_number FROM systems s JOIN subscriptions b ON b.uid = s.subscription_uid
         WHERE s.uid = ANY($1::text[]) AND b.mobile_number IS NOT NULL AND b.mobile_number <> ''`, [systemUids])
      return new Map(rows.map((r) => [r.uid, r.mobile_number]))
    },
    sweepCommStatus: async (now, defaultPeriodMs) => await sweepCommStatus(q, now, defaultPeriodMs)
  }
}

/** The data of traffic: points with their rollup increments, last values, acks, and what a retrieve received. */
function dataTraffic (q: Queryable): Omit<TelemetryRepository, 'lockSystems' | 'insertMessages' | 'updateSystems' | 'mobileNumbers' | 'sweepCommStatus'> {
  return {
    async insertPoints (rows) {
      if (rows.length === 0) return
      const enc = rows.map((r) => encodeValue(r.value))
      const points = q.query(
        `INSERT INTO data_points (system_uid, data_id, ts, num, str, message_uid)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::float8[], $5::text[], $6::text[])`,
        [textArray(rows.map((r) => r.systemUid)), textArray(rows.map((r) => r.dataId)), numberArray(rows.map((r) => r.ts)),
          numberArray(enc.map((e) => e.num)), textArray(enc.map((e) => e.str)), textArray(rows.map((r) => r.messageUid))])
      // Their hourly stats in the same transaction (docs/store.md#rollups): every writer of points keeps the rollups
      // exact. Appended as increments, folded into the hours and days by foldRollups
      // (storage/repositories/rollups.sql.ts). Sent without waiting for the points' answer: the store runs one while
      // this thread computes the other.
      await settledInOrder([points, insertRollupDeltas(q, hourStats(rows))])
    },
    foldRollups: async (limit) => await foldRollupDeltas(q, limit),
    async vacuumRollupDeltas () {
      // Outside any transaction (VACUUM cannot run in one): PGlite has no autovacuum, and a table whose every row is
      // deleted a second after its insert would otherwise only grow.
      await q.query('VACUUM data_rollup_deltas')
    },
    async upsertLast (rows) {
      if (rows.length === 0) return
      const enc = rows.map((r) => encodeValue(r.value))
      await q.query(
        `INSERT INTO data_last AS d (system_uid, data_id, ts, num, str)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::float8[], $5::text[])
         ON CONFLICT (system_uid, data_id) DO UPDATE SET ts = EXCLUDED.ts, num = EXCLUDED.num, str = EXCLUDED.str
         WHERE EXCLUDED.ts >= d.ts`,
        [textArray(rows.map((r) => r.systemUid)), textArray(rows.map((r) => r.dataId)), numberArray(rows.map((r) => r.ts)),
          numberArray(enc.map((e) => e.num)), textArray(enc.map((e) => e.str))])
    },
    async insertAcks (rows) {
      if (rows.length === 0) return
      await q.query(
        `INSERT INTO device_acks (system_uid, task_uid, status, message, protocol, received_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[])`,
        [textArray(rows.map((r) => r.systemUid)), textArray(rows.map((r) => r.taskUid)), textArray(rows.map((r) => r.status)),
          textArray(rows.map((r) => r.message)), textArray(rows.map((r) => r.protocol)), numberArray(rows.map((r) => r.receivedAt))])
    },
    async receivedIds (systemUid, dataIds, since) {
      if (dataIds.length === 0) return []
      const { rows } = await q.query<{ data_id: string }>(
        `SELECT DISTINCT p.data_id FROM device_messages m JOIN data_points p ON p.message_uid = m.uid
         WHERE m.system_uid = $1 AND m.received_at >= $2 AND p.data_id = ANY($3::text[])`, [systemUid, since, [...dataIds]])
      return rows.map((r) => r.data_id)
    }
  }
}

export function createTelemetryRepository (q: Queryable): TelemetryRepository {
  return { ...systemTraffic(q), ...dataTraffic(q) }
}
