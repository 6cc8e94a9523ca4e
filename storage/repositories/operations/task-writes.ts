// The writes of an operation's tasks: inserted, given their results, cancelled, timed out.
import type { Queryable } from '../../../core/ports/store.js'
import type { OperationsRepository } from '../../../core/ports/operations.js'
import { newUid } from '../../../core/security/secrets.js'

export type TaskWrites = Pick<OperationsRepository, 'insertTasks' | 'setTaskResults' | 'cancelTasks' | 'timeOut'>

export function createTaskWrites (q: Queryable): TaskWrites {
  return {
    async insertTasks (operationUid, tasks, now) {
      if (tasks.length === 0) return 0
      const { rows } = await q.query<{ n: number }>('SELECT coalesce(max(seq), 0)::int AS n FROM operation_tasks WHERE operation_uid = $1', [operationUid])
      const base = rows[0]?.n ?? 0
      // One statement per 5,000 tasks keeps parameter arrays reasonable on both stores.
      for (let at = 0; at < tasks.length; at += 5000) {
        const chunk = tasks.slice(at, at + 5000)
        await q.query(
          `INSERT INTO operation_tasks (uid, operation_uid, seq, system_uid, system_name, state, created_at, params, line)
           SELECT u, $1, s, sys, name, 'PENDING', $2, p, l
           FROM unnest($3::text[], $4::int4[], $5::text[], $6::text[], $7::jsonb[], $8::int4[]) AS t(u, s, sys, name, p, l)`,
          [operationUid, now, chunk.map(() => newUid()), chunk.map((_, i) => base + at + i + 1), chunk.map((t) => t.systemUid),
            chunk.map((t) => t.systemName), chunk.map((t) => t.params === undefined ? null : JSON.stringify(t.params)),
            chunk.map((t) => t.line ?? null)])
      }
      await q.query('UPDATE operations SET total = total + $2 WHERE uid = $1', [operationUid, tasks.length])
      return tasks.length
    },
    async setTaskResults (results, now) {
      if (results.length === 0) return
      await q.query(
        `UPDATE operation_tasks t SET state = v.state, error_code = v.code, error_message = v.message,
           start_date = coalesce(t.start_date, $1), end_date = CASE WHEN v.state IN ('SUCCESS', 'FAILURE', 'CANCELLED') THEN $1 ELSE NULL END,
           params = coalesce(v.params, t.params), system_uid = coalesce(v.system_uid, t.system_uid),
           system_name = CASE WHEN v.system_uid IS NULL THEN t.system_name ELSE v.system_name END
         FROM jsonb_to_recordset($2::jsonb) AS v(uid text, state text, code text, message text, params jsonb, system_uid text, system_name text)
         WHERE t.uid = v.uid`,
        [now, JSON.stringify(results.map((r) => ({
          uid: r.uid, state: r.state, code: r.errorCode ?? null, message: r.errorMessage ?? null, params: r.params ?? null, system_uid: r.systemUid ?? null, system_name: r.systemName ?? null
        })))])
    },
    async cancelTasks (operationUid, now, reason) {
      const ends = "t.state = 'PENDING' OR t.uid IN (SELECT operation_task_uid FROM withdrawn)"
      await q.query(
        `WITH withdrawn AS (
           UPDATE device_tasks SET state = 'CANCELLED', acked_at = $2
           WHERE operation_uid = $1 AND state = 'PENDING' RETURNING operation_task_uid)
         UPDATE operation_tasks t SET
           state = CASE WHEN ${ends} THEN 'CANCELLED' ELSE 'BEING_CANCELLED' END,
           end_date = CASE WHEN ${ends} THEN $2 ELSE t.end_date END,
           error_code = CASE WHEN ${ends} THEN coalesce($3, t.error_code) ELSE t.error_code END,
           error_message = CASE WHEN ${ends} THEN coalesce($4, t.error_message) ELSE t.error_message END
         WHERE t.operation_uid = $1 AND t.state IN ('PENDING', 'IN_PROGRESS')`, [operationUid, now, reason?.code ?? null, reason?.message ?? null])
    },
    async timeOut (now) {
      const { rows } = await q.query<{ operation_uid: string, uid: string }>(
        `UPDATE operation_tasks t SET state = 'FAILURE', error_code = 'operation.timeout', error_message = 'operation.timeout', end_date = $1
         FROM operations o WHERE o.uid = t.operation_uid AND o.state <> 'FINISHED' AND o.timeout_date <= $1
           AND t.state IN ('PENDING', 'IN_PROGRESS', 'BEING_CANCELLED')
         RETURNING t.operation_uid, t.uid`, [now])
      if (rows.length > 0) {
        await q.query(
          `UPDATE device_tasks SET state = 'CANCELLED', acked_at = $2
           WHERE operation_task_uid = ANY($1::text[]) AND state IN ('PENDING', 'SENT')`, [rows.map((r) => r.uid), now])
      }
      const { rows: empty } = await q.query<{ uid: string }>(
        "SELECT uid FROM operations WHERE state <> 'FINISHED' AND timeout_date <= $1", [now])
      return [...new Set([...rows.map((r) => r.operation_uid), ...empty.map((r) => r.uid)])]
    }
  }
}
