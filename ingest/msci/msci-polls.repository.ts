import type { Queryable } from '../../core/ports/store.js'
import type { ClaimedPoll, MsciPollsRepository } from './msci-polls.port.js'
import type { Communication } from '../../core/domain/system.js'
import { failedPollsStatus } from '../../core/domain/comm-status.js'
import { markCommFailures } from '../comm-failures.sql.js'

// The predicate of migrations/0022_msci_polls.sql's partial index, word for word, so that the index serves it.
const HAS_HOST = "coalesce(s.communication #>> '{msci,host}', '') <> ''"

export function createMsciPollsRepository (q: Queryable): MsciPollsRepository {
  return {
    async sync (now) {
      const added = await q.query(
        `INSERT INTO msci_polls (system_uid, next_poll_at)
         SELECT s.uid, $1::bigint FROM systems s WHERE ${HAS_HOST}
         ON CONFLICT (system_uid) DO NOTHING`, [now])
      const removed = await q.query(
        `DELETE FROM msci_polls p WHERE NOT EXISTS (SELECT 1 FROM systems s WHERE s.uid = p.system_uid AND ${HAS_HOST})`)
      return { added: added.rowCount, removed: removed.rowCount }
    },
    async hurry (now) {
      const res = await q.query(
        `UPDATE msci_polls p SET next_poll_at = $1
         FROM (SELECT DISTINCT system_uid FROM device_tasks WHERE protocol = 'MSCI' AND state = 'PENDING') t
         WHERE p.system_uid = t.system_uid AND p.next_poll_at > $1 AND p.failures = 0`, [now])
      return res.rowCount
    },
    async claim (now, limit, leaseUntil, token) {
      const { rows } = await q.query<{ system_uid: string, company_uid: string, communication: Communication, next_poll_at: string | number, failures: number, last_success_at: string | number | null, has_tasks: boolean }>(
        `WITH due AS (
           SELECT system_uid FROM msci_polls
           WHERE next_poll_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
           ORDER BY next_poll_at LIMIT $2
           FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE msci_polls p SET locked_until = $3, locked_by = $4
           FROM due WHERE p.system_uid = due.system_uid
           RETURNING p.system_uid, p.next_poll_at, p.failures, p.last_success_at
         )
         SELECT c.*, s.company_uid, s.communication,
           EXISTS (SELECT 1 FROM device_tasks t WHERE t.system_uid = c.system_uid AND t.state IN ('PENDING', 'SENT') AND t.protocol = 'MSCI') AS has_tasks
         FROM claimed c JOIN systems s ON s.uid = c.system_uid
         ORDER BY c.next_poll_at`, [now, limit, leaseUntil, token])
      return rows.map((r): ClaimedPoll => ({
        systemUid: r.system_uid,
        companyUid: r.company_uid,
        msci: r.communication.msci ?? {},
        dueAt: Number(r.next_poll_at),
        failures: r.failures,
        polledBefore: r.last_success_at !== null,
        hasTasks: r.has_tasks
      }))
    },
    async finish (outcomes, errorAfter) {
      if (outcomes.length === 0) return
      const cols = {
        uid: outcomes.map((o) => o.systemUid),
        token: outcomes.map((o) => o.token),
        ok: outcomes.map((o) => o.ok),
        at: outcomes.map((o) => o.at),
        next: outcomes.map((o) => o.nextPollAt)
      }
      const { rows } = await q.query<{ system_uid: string, failures: number, at: string | number }>(
        `UPDATE msci_polls p SET next_poll_at = o.next, locked_until = NULL, locked_by = NULL, last_poll_at = o.at,
           failures = CASE WHEN o.ok THEN 0 ELSE p.failures + 1 END,
           last_success_at = CASE WHEN o.ok THEN o.at ELSE p.last_success_at END
         FROM unnest($1::text[], $2::text[], $3::bool[], $4::int8[], $5::int8[]) AS o(uid, token, ok, at, next)
         WHERE p.system_uid = o.uid AND p.locked_by = o.token
         RETURNING p.system_uid, p.failures, o.at`, [cols.uid, cols.token, cols.ok, cols.at, cols.next])
      const failed = rows.filter((r) => r.failures > 0).sort((a, b) => a.system_uid.localeCompare(b.system_uid))
      // docs/devices.md: commStatus follows communication; a gateway that does not answer its poll is a missed
      // communication now, not only once its period has passed (core/domain/comm-status.ts: failedPollsStatus).
      await markCommFailures(q, failed.map((r) => ({ systemUid: r.system_uid, status: failedPollsStatus(r.failures, errorAfter), at: Number(r.at) })))
    },
    async release (tokens) {
      if (tokens.length === 0) return
      await q.query('UPDATE msci_polls SET locked_until = NULL, locked_by = NULL WHERE locked_by = ANY($1::text[])', [[...tokens]])
    }
  }
}
