// A missed communication that a protocol module sees at once (docs/devices.md: a failed MSCI poll, a dead Sparkplug
// edge node) marks its system's state row: data.lastCommFailureDate, and the commStatus core/domain/comm-status.ts
// decides. The merge with the stored status (onFailure) is tabulated over every stored status and passed with the
// failures, so that one statement writes them however many arrive together. The state row of system_state
// (0024_system_state.sql) is created when the system has none; unknown systems are skipped.
import type { Queryable } from '../core/ports/store.js'
import { COMM_STATUSES, type CommStatus } from '../core/domain/system.js'
import { onFailure } from '../core/domain/comm-status.js'

/** A failure to write: the status the domain gives it, and when it happened (ms). */
export interface CommFailure { systemUid: string, status: CommStatus, at: number }

export async function markCommFailures (q: Queryable, failures: readonly CommFailure[]): Promise<void> {
  if (failures.length === 0) return
  const kinds = [...new Set(failures.map((f) => f.status))]
  const merges = COMM_STATUSES.flatMap((was) => kinds.map((status) => ({ was, status, merged: onFailure(was, status) })))
  await q.query(
    `INSERT INTO system_state AS st (system_uid, comm_status, data)
     SELECT f.uid, f.status, jsonb_build_object('lastCommFailureDate', f.at)
     FROM unnest($1::text[], $2::text[], $3::int8[]) AS f(uid, status, at) JOIN systems s ON s.uid = f.uid
     ON CONFLICT (system_uid) DO UPDATE SET
       comm_status = coalesce((SELECT m.merged FROM unnest($4::text[], $5::text[], $6::text[]) AS m(was, status, merged)
         WHERE m.was = st.comm_status AND m.status = EXCLUDED.comm_status), EXCLUDED.comm_status),
       data = jsonb_set(st.data, '{lastCommFailureDate}', EXCLUDED.data -> 'lastCommFailureDate')`,
    [failures.map((f) => f.systemUid), failures.map((f) => f.status), failures.map((f) => f.at),
      merges.map((m) => m.was), merges.map((m) => m.status), merges.map((m) => m.merged)])
}
