import type { Queryable } from '../../core/ports/store.js'
import type { PointPartitionsRepository } from '../../core/ports/point-partitions.js'
import { monthOf, monthOfTag, monthTag, type Month } from '../../core/domain/months.js'

// The monthly partitions of data_points (storage/migrations/0020_points_partitions.sql), named data_points_pYYYYMM
// and bounded by [first ms of the month, first ms of the next) in UTC; everything else is in data_points_default.

const DEFAULT = 'data_points_default'
const PREFIX = 'data_points_p'

/** The partition's name; only ever built from a Month (digits), so it is safe in DDL. */
function partitionName (month: Month): string {
  const tag = monthTag(month)
  if (monthOfTag(tag)?.start !== month.start) throw new RangeError(`no partition name for the month starting at ${month.start}`)
  return PREFIX + tag
}

/** A bound in DDL (partition bounds take no parameters): an integer, checked. */
function bound (ms: number): string {
  if (!Number.isSafeInteger(ms)) throw new RangeError(`not a partition bound: ${ms}`)
  return String(ms)
}

// DDL on a table that ingest writes to waits for the running batches; it must not make them queue behind it for long
// (a waiting ACCESS EXCLUSIVE request blocks every later one): past this, the run fails and the next one retries.
const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '10s'"

/** Whether the partition is attached to data_points. */
async function attached (q: Queryable, name: string): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'data_points'::regclass AND c.relname = $1`, [name])
  return rows.length > 0
}

/** The columns of data_points in order, so that moving rows follows whatever later migrations add. */
async function columns (q: Queryable): Promise<string> {
  const { rows } = await q.query<{ cols: string }>(
    `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS cols FROM pg_attribute
     WHERE attrelid = 'data_points'::regclass AND attnum > 0 AND NOT attisdropped`)
  return rows[0]?.cols ?? ''
}

export function createPointPartitionsRepository (q: Queryable): PointPartitionsRepository {
  return {
    async months () {
      const { rows } = await q.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'data_points'::regclass ORDER BY 1`)
      return rows.flatMap((r) => {
        const month = r.name.startsWith(PREFIX) ? monthOfTag(r.name.slice(PREFIX.length)) : undefined
        return month === undefined ? [] : [month]
      })
    },

    async defaultMonths (from, to) {
      // date_trunc with a time zone: UTC months whatever the session's TimeZone. One pass over the default partition,
      // which holds few points once the upkeep has run (all of them just after the migration).
      const { rows } = await q.query<{ start: number }>(
        `SELECT DISTINCT (extract(epoch FROM date_trunc('month', to_timestamp(ts / 1000.0), 'UTC')) * 1000)::int8 AS start
         FROM ${DEFAULT} WHERE ts >= $1 AND ts < $2 ORDER BY 1`, [from, to])
      return rows.map((r) => monthOf(r.start))
    },

    async create (month, { holdInserts }) {
      const name = partitionName(month)
      await q.query(LOCK_TIMEOUT)
      // Locks in the order every insert takes them, the parent first (no deadlock with ingest). SHARE ROW EXCLUSIVE
      // on the default partition holds back the inserts routed there until the commit, so that no point of the month
      // lands there between the move and the ATTACH (which fails when the default partition holds a row of the new
      // partition's range). An insert held back there, though, was routed before the ATTACH: PostgreSQL then refuses
      // its row of the new month ("violates partition constraint"; the ingest writes such a batch again, message by
      // message). For a month ingest writes to now (after the migration, the current month's points go to the
      // default partition until its partition exists), holdInserts locks the parent against inserts instead (SHARE
      // ROW EXCLUSIVE), so they wait before being routed and go to the new partition; reads go on either way. For
      // other months (late or odd points, rare), SHARE UPDATE EXCLUSIVE lets ingest into the other partitions go on
      // however long the move takes. Both modes keep a second upkeep out.
      await q.query(`LOCK TABLE ONLY data_points IN ${holdInserts ? 'SHARE ROW EXCLUSIVE' : 'SHARE UPDATE EXCLUSIVE'} MODE`)
      await q.query(`LOCK TABLE ${DEFAULT} IN SHARE ROW EXCLUSIVE MODE`)
      if (await attached(q, name)) return undefined
      const cols = await columns(q)
      // A table of its own attached afterwards (not CREATE TABLE ... PARTITION OF, which locks the parent against
      // every insert); its indexes are built by the ATTACH, after the rows are in.
      await q.query(`CREATE TABLE ${name} (LIKE data_points)`)
      const moved = await q.query(
        `WITH m AS (DELETE FROM ${DEFAULT} WHERE ts >= $1 AND ts < $2 RETURNING ${cols})
         INSERT INTO ${name} (${cols}) SELECT ${cols} FROM m`, [month.start, month.end])
      await q.query(`ALTER TABLE data_points ATTACH PARTITION ${name} FOR VALUES FROM (${bound(month.start)}) TO (${bound(month.end)})`)
      return moved.rowCount
    },

    async drop (month) {
      const name = partitionName(month)
      await q.query(LOCK_TIMEOUT)
      if (!(await attached(q, name))) return false
      await q.query(`ALTER TABLE data_points DETACH PARTITION ${name}`)
      await q.query(`DROP TABLE ${name}`)
      return true
    },

    async deleteDefaultBefore (before) {
      return (await q.query(`DELETE FROM ${DEFAULT} WHERE ts < $1`, [before])).rowCount
    },

    async deleteMessagesBefore (before, afterUid, limit) {
      // Per chunk of systems: the (system_uid, ts DESC) index of device_messages finds each one's old messages.
      const { rows } = await q.query<{ last: string | null, n: number }>(
        `WITH s AS (SELECT uid FROM systems WHERE $2::text IS NULL OR uid > $2 ORDER BY uid LIMIT $3),
           d AS (DELETE FROM device_messages m USING s WHERE m.system_uid = s.uid AND m.ts < $1 RETURNING 1)
         SELECT (SELECT max(uid) FROM s) AS last, (SELECT count(*) FROM d)::int8 AS n`, [before, afterUid, limit])
      return { lastUid: rows[0]?.last ?? null, deleted: rows[0]?.n ?? 0 }
    }
  }
}
