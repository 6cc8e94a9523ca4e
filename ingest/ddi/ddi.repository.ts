// The DDI module's store (ddi.port.ts; migrations/0035_ddi_actions.sql).
import type { Queryable } from '../../core/ports/store.js'
import type { DeviceTask, DeviceTaskState } from '../../core/domain/device-task.js'
import type { DdiRepository } from './ddi.port.js'

export function createDdiRepository (q: Queryable): DdiRepository {
  return {
    async offers (systemUid, taskUids, now) {
      if (taskUids.length === 0) return []
      // Only the system's own device tasks get an id: a uid of another system's task names nothing here.
      await q.query(
        `INSERT INTO ddi_actions (system_uid, task_uid, created_at)
         SELECT $1, d.uid, $3 FROM device_tasks d WHERE d.system_uid = $1 AND d.uid = ANY($2::text[])
         ORDER BY d.created_at, d.uid
         ON CONFLICT (task_uid) DO NOTHING`, [systemUid, taskUids, now])
      const { rows } = await q.query<{ id: number, task_uid: string, op_state: string | null }>(
        `SELECT a.id, a.task_uid, o.state AS op_state
         FROM ddi_actions a JOIN device_tasks d ON d.uid = a.task_uid AND d.system_uid = a.system_uid
         LEFT JOIN operation_tasks o ON o.uid = d.operation_task_uid
         WHERE a.system_uid = $1 AND a.task_uid = ANY($2::text[]) ORDER BY a.id`, [systemUid, taskUids])
      return rows.map((r) => ({ id: Number(r.id), taskUid: r.task_uid, cancelling: r.op_state === 'BEING_CANCELLED' }))
    },
    async action (systemUid, id) {
      const { rows } = await q.query<{ task_uid: string, body: DeviceTask, state: DeviceTaskState, op_state: string | null }>(
        `SELECT a.task_uid, d.body, d.state, o.state AS op_state
         FROM ddi_actions a JOIN device_tasks d ON d.uid = a.task_uid AND d.system_uid = a.system_uid
         LEFT JOIN operation_tasks o ON o.uid = d.operation_task_uid
         WHERE a.id = $1 AND a.system_uid = $2`, [id, systemUid])
      const r = rows[0]
      return r === undefined ? undefined : { id, taskUid: r.task_uid, task: r.body, state: r.state, cancelling: r.op_state === 'BEING_CANCELLED' }
    },
    async feedback (systemUid, id, f, now) {
      await q.query('UPDATE ddi_actions SET execution = $3, details = $4, feedback_at = $5 WHERE id = $1 AND system_uid = $2',
        [id, systemUid, f.execution, f.details, now])
    },
    async lastFeedback (systemUid, id) {
      const { rows } = await q.query<{ execution: string | null, details: string | null }>(
        'SELECT execution, details FROM ddi_actions WHERE id = $1 AND system_uid = $2', [id, systemUid])
      const r = rows[0]
      return r?.execution == null ? undefined : { execution: r.execution, details: r.details }
    },
    async pruneEnded (endedBefore) {
      return (await q.query(
        `DELETE FROM ddi_actions a USING device_tasks d
         WHERE d.uid = a.task_uid AND d.state IN ('OK', 'ERROR', 'CANCELLED') AND d.acked_at < $1`, [endedBefore])).rowCount
    },
    async sha1 (sha256) {
      const { rows } = await q.query<{ sha1: string }>('SELECT sha1 FROM ddi_artifact_hashes WHERE sha256 = $1', [sha256])
      return rows[0]?.sha1
    },
    async putSha1 (sha256, sha1, now) {
      await q.query('INSERT INTO ddi_artifact_hashes (sha256, sha1, computed_at) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING', [sha256, sha1, now])
    }
  }
}
