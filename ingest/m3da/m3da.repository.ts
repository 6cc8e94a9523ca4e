// M3DA device state (m3da.port.ts; migrations/0016_m3da_sessions.sql).
import type { Queryable } from '../../core/ports/store.js'
import type { M3daRepository } from './m3da.port.js'

const MAX_TICKET = 2_147_483_647

export function createM3daRepository (q: Queryable): M3daRepository {
  return {
    async nonce (systemUid) {
      const { rows } = await q.query<{ nonce: Uint8Array | null }>('SELECT nonce FROM m3da_devices WHERE system_uid = $1', [systemUid])
      const n = rows[0]?.nonce
      return n == null ? null : Buffer.from(n)
    },
    async setNonces (nonces, now) {
      if (nonces.length === 0) return
      // One statement for many devices; nonces travel as hex (a bytea[] parameter is not portable across drivers).
      // A system deleted meanwhile is skipped (the join), never a foreign-key failure for the others.
      await q.query(
        `INSERT INTO m3da_devices (system_uid, nonce, updated_at)
         SELECT v.u, decode(v.n, 'hex'), $3 FROM unnest($1::text[], $2::text[]) AS v(u, n) JOIN systems s ON s.uid = v.u
         ON CONFLICT (system_uid) DO UPDATE SET nonce = EXCLUDED.nonce, updated_at = EXCLUDED.updated_at`,
        [nonces.map((n) => n.systemUid), nonces.map((n) => n.nonce.toString('hex')), now])
    },
    async tickets (systemUid, taskUids, now) {
      const out = new Map<string, number>()
      if (taskUids.length === 0) return out
      const { rows } = await q.query<{ task_uid: string, ticket: number }>(
        'SELECT task_uid, ticket FROM m3da_tickets WHERE system_uid = $1 AND task_uid = ANY($2::text[])', [systemUid, taskUids])
      for (const r of rows) out.set(r.task_uid, r.ticket)
      const missing = [...new Set(taskUids)].filter((u) => !out.has(u))
      if (missing.length === 0) return out
      // The counter wraps back to 1 before int32 ends (compared as int8: the sum itself may pass int32); a ticket given
      // again replaces its old task.
      const n = missing.length
      const { rows: [range] } = await q.query<{ first: number }>(
        `INSERT INTO m3da_devices (system_uid, next_ticket, updated_at) VALUES ($1, 1 + $2::int, $3)
         ON CONFLICT (system_uid) DO UPDATE SET updated_at = EXCLUDED.updated_at,
           next_ticket = CASE WHEN m3da_devices.next_ticket::int8 + $2::int > $4::int THEN 1 + $2::int ELSE m3da_devices.next_ticket + $2::int END
         RETURNING next_ticket - $2::int AS first`, [systemUid, n, now, MAX_TICKET])
      const first = range?.first ?? 1
      const given = missing.map((taskUid, i) => ({ taskUid, ticket: first + i }))
      await q.query('DELETE FROM m3da_tickets WHERE system_uid = $1 AND ticket = ANY($2::int[])', [systemUid, given.map((g) => g.ticket)])
      await q.query(
        `INSERT INTO m3da_tickets (system_uid, ticket, task_uid, created_at)
         SELECT $1, t, u, $4 FROM unnest($2::int[], $3::text[]) AS x(t, u) ON CONFLICT DO NOTHING`,
        [systemUid, given.map((g) => g.ticket), given.map((g) => g.taskUid), now])
      for (const g of given) out.set(g.taskUid, g.ticket)
      return out
    },
    async tasksOf (systemUid, tickets) {
      const out = new Map<number, string>()
      if (tickets.length === 0) return out
      const { rows } = await q.query<{ ticket: number, task_uid: string }>(
        'SELECT ticket, task_uid FROM m3da_tickets WHERE system_uid = $1 AND ticket = ANY($2::int[])', [systemUid, tickets])
      for (const r of rows) out.set(r.ticket, r.task_uid)
      return out
    },
    async release (systemUid, tickets) {
      if (tickets.length === 0) return
      await q.query('DELETE FROM m3da_tickets WHERE system_uid = $1 AND ticket = ANY($2::int[])', [systemUid, tickets])
    },
    async setPassword (systemUid, password) {
      // communication.m3da may be absent or null: the new password goes into an object either way.
      await q.query(
        `UPDATE systems SET communication = communication || jsonb_build_object('m3da',
           (CASE WHEN jsonb_typeof(communication->'m3da') = 'object' THEN communication->'m3da' ELSE '{}'::jsonb END)
           || jsonb_build_object('password', $2::text))
         WHERE uid = $1`, [systemUid, password])
    }
  }
}
