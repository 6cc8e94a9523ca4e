// Where LwM2M installs stand on their devices (lwm2m.port.ts; migrations/0044_lwm2m_installs.sql), read with the
// state of their device task: an install goes on only while its task waits for the device's answer.
import type { Queryable } from '../../core/ports/store.js'
import type { Lwm2mInstall, Lwm2mRepository } from './lwm2m.port.js'

interface Row {
  state: string
  object_id: number | null
  instance_id: number | null
  step: string | null
  updated_at: string | number | null
}

const OPEN = new Set(['PENDING', 'SENT'])

function installOfRow (taskUid: string, r: Row): Lwm2mInstall | undefined {
  if (r.step === null || r.object_id === null || r.instance_id === null) return undefined
  return { taskUid, objectId: Number(r.object_id), instanceId: Number(r.instance_id), step: r.step, updatedAt: Number(r.updated_at) }
}

export function createInstallsRepository (q: Queryable): Pick<Lwm2mRepository, 'installOf' | 'saveInstall' | 'endInstall' | 'pruneInstalls'> {
  return {
    async installOf (taskUid) {
      const { rows } = await q.query<Row>(
        `SELECT d.state, i.object_id, i.instance_id, i.step, i.updated_at
         FROM device_tasks d LEFT JOIN lwm2m_installs i ON i.task_uid = d.uid WHERE d.uid = $1`, [taskUid])
      const row = rows[0]
      return row === undefined ? { open: false, install: undefined } : { open: OPEN.has(row.state), install: installOfRow(taskUid, row) }
    },
    async saveInstall (i) {
      // From the task's row: a task deleted meanwhile is skipped, never a foreign-key failure.
      await q.query(
        `INSERT INTO lwm2m_installs (task_uid, object_id, instance_id, step, updated_at)
         SELECT uid, $2, $3, $4, $5 FROM device_tasks WHERE uid = $1
         ON CONFLICT (task_uid) DO UPDATE SET object_id = EXCLUDED.object_id, instance_id = EXCLUDED.instance_id,
           step = EXCLUDED.step, updated_at = EXCLUDED.updated_at`,
        [i.taskUid, i.objectId, i.instanceId, i.step, i.updatedAt])
    },
    async endInstall (taskUid) {
      await q.query('DELETE FROM lwm2m_installs WHERE task_uid = $1', [taskUid])
    },
    async pruneInstalls () {
      return (await q.query(
        `DELETE FROM lwm2m_installs i USING device_tasks d
         WHERE d.uid = i.task_uid AND d.state NOT IN ('PENDING', 'SENT')`)).rowCount
    }
  }
}
