import type { Queryable } from '../../core/ports/store.js'
import type { DeviceTasksRepository } from '../../core/ports/devices.js'
import type { DeviceProtocol } from '../../core/domain/device-message.js'
import type { AnswerStatus, DeviceAnswer, DeviceTask, DeviceTaskState } from '../../core/domain/device-task.js'

interface TaskRow { body: DeviceTask, created_at: number, seq: number }

/** Oldest first; tasks written within the same ms in the order they were written (0028_device_task_order.sql). */
const byAge = (a: TaskRow, b: TaskRow): number => Number(a.created_at) - Number(b.created_at) || Number(a.seq) - Number(b.seq)

/** The way out: tasks written, then taken for delivery (marked SENT), again when unanswered. */
function taskDeliveries (q: Queryable): Pick<DeviceTasksRepository, 'insert' | 'take' | 'takeMany' | 'takeStale' | 'withPending'> {
  return {
    async insert (tasks) {
      if (tasks.length === 0) return
      await q.query(
        `INSERT INTO device_tasks (uid, system_uid, operation_uid, operation_task_uid, protocol, body, created_at)
         SELECT v.uid, v.system_uid, v.operation_uid, v.operation_task_uid, v.protocol, v.body, v.created_at
         FROM jsonb_to_recordset($1::jsonb) AS v(uid text, system_uid text, operation_uid text, operation_task_uid text, protocol text, body jsonb, created_at bigint)`,
        [JSON.stringify(tasks.map((t) => ({
          uid: t.uid, system_uid: t.systemUid, operation_uid: t.operationUid, operation_task_uid: t.operationTaskUid, protocol: t.protocol, body: t.task, created_at: t.createdAt
        })))])
    },
    async take (systemUid, protocol, now, opts = {}) {
      const states = opts.again === true ? ['PENDING', 'SENT'] : ['PENDING']
      const { rows } = await q.query<TaskRow>(
        `UPDATE device_tasks SET state = 'SENT', sent_at = $3
         WHERE system_uid = $1 AND protocol = $2 AND state = ANY($4::text[])
         RETURNING body, created_at, seq`, [systemUid, protocol, now, states])
      return rows.sort(byAge).map((r) => r.body)
    },
    async takeMany (requests, now) {
      if (requests.length === 0) return []
      // One row per system and protocol (an UPDATE joined twice to a row would update it once, for one of them).
      const keyOf = (systemUid: string, protocol: string): string => `${protocol}\u0000${systemUid}`
      // Two requests of one system: again if either asks it, and only the tasks both confirmed receiving are skipped.
      const wanted = new Map<string, { system_uid: string, protocol: string, again: boolean, received: string[] }>()
      for (const r of requests) {
        const k = keyOf(r.systemUid, r.protocol)
        const seen = wanted.get(k)
        const received = r.received ?? []
        wanted.set(k, {
          system_uid: r.systemUid,
          protocol: r.protocol,
          again: (seen?.again ?? false) || r.again === true,
          received: seen === undefined ? [...received] : seen.received.filter((u) => received.includes(u))
        })
      }
      const { rows } = await q.query<TaskRow & { system_uid: string, protocol: string }>(
        `UPDATE device_tasks t SET state = 'SENT', sent_at = $1
         FROM jsonb_to_recordset($2::jsonb) AS v(system_uid text, protocol text, again boolean, received text[])
         WHERE t.system_uid = v.system_uid AND t.protocol = v.protocol
           AND (t.state = 'PENDING' OR (v.again AND t.state = 'SENT' AND NOT (t.uid = ANY(v.received))))
         RETURNING t.system_uid, t.protocol, t.body, t.created_at, t.seq`, [now, JSON.stringify([...wanted.values()])])
      const taken = new Map<string, TaskRow[]>()
      for (const r of rows) {
        const k = keyOf(r.system_uid, r.protocol)
        taken.set(k, [...(taken.get(k) ?? []), r])
      }
      return requests.map((r) => (taken.get(keyOf(r.systemUid, r.protocol)) ?? []).sort(byAge).map((t) => t.body))
    },
    async takeStale (protocol, sentBefore, now, systems) {
      const { rows } = await q.query<TaskRow & { system_uid: string }>(
        `WITH s AS (SELECT DISTINCT system_uid FROM device_tasks WHERE protocol = $1 AND state = 'SENT' AND sent_at < $2 LIMIT $4)
         UPDATE device_tasks t SET sent_at = $3 FROM s
         WHERE t.system_uid = s.system_uid AND t.protocol = $1 AND t.state = 'SENT' AND t.sent_at < $2
         RETURNING t.system_uid, t.body, t.created_at, t.seq`, [protocol, sentBefore, now, Math.trunc(systems)])
      const by = new Map<string, TaskRow[]>()
      for (const r of rows) by.set(r.system_uid, [...(by.get(r.system_uid) ?? []), r])
      return [...by].map(([systemUid, list]) => ({ systemUid, tasks: list.sort(byAge).map((t) => t.body) }))
    },
    async withPending (systemUids, protocol: DeviceProtocol) {
      if (systemUids.length === 0) return []
      const { rows } = await q.query<{ system_uid: string }>(
        `SELECT DISTINCT system_uid FROM device_tasks
         WHERE system_uid = ANY($1::text[]) AND protocol = $2 AND state = 'PENDING'`, [systemUids, protocol])
      return rows.map((r) => r.system_uid)
    }
  }
}

/** The way back: devices' answers recorded, tasks withdrawn, answers the engine may not have heard, states. */
function taskAnswers (q: Queryable): Omit<DeviceTasksRepository, 'insert' | 'take' | 'takeMany' | 'takeStale' | 'withPending'> {
  const answers: Omit<DeviceTasksRepository, 'insert' | 'take' | 'takeMany' | 'takeStale' | 'withPending'> = {
    async answerMany (requests, now) {
      // One row per system and task: the first request and ack that name it (an UPDATE joined twice to a row updates
      // it once). Keyed by the system too: another system naming a task does not hide its own device's ack.
      const key = (systemUid: string, taskUid: string): string => `${systemUid}\u0000${taskUid}`
      const first = new Map<string, { uid: string, system_uid: string, state: string, message: string | null, n: number }>()
      requests.forEach((r, n) => {
        for (const a of r.acks) if (!first.has(key(r.systemUid, a.taskUid))) first.set(key(r.systemUid, a.taskUid), { uid: a.taskUid, system_uid: r.systemUid, state: a.status, message: a.message, n })
      })
      const out: DeviceAnswer[][] = requests.map(() => [])
      if (first.size === 0) return out
      const { rows } = await q.query<{ uid: string, system_uid: string, operation_uid: string | null, operation_task_uid: string | null, state: AnswerStatus, message: string | null }>(
        `UPDATE device_tasks t SET state = v.state, message = v.message, acked_at = $1
         FROM jsonb_to_recordset($2::jsonb) AS v(uid text, system_uid text, state text, message text)
         WHERE t.uid = v.uid AND t.system_uid = v.system_uid AND t.state IN ('PENDING', 'SENT')
         RETURNING t.uid, t.system_uid, t.operation_uid, t.operation_task_uid, t.state, t.message`,
        [now, JSON.stringify([...first.values()].map(({ n, ...v }) => v))])
      for (const r of rows) {
        out[first.get(key(r.system_uid, r.uid))?.n ?? 0]?.push({ taskUid: r.uid, systemUid: r.system_uid, operationUid: r.operation_uid, operationTaskUid: r.operation_task_uid, status: r.state, message: r.message, at: now })
      }
      return out
    },
    async answer (systemUid, acks, now) {
      return (await answers.answerMany([{ systemUid, acks }], now))[0] ?? []
    },
    async withdraw (taskUids, now) {
      if (taskUids.length === 0) return []
      const { rows } = await q.query<{ uid: string }>(
        'UPDATE device_tasks SET state = \'CANCELLED\', acked_at = $2 WHERE uid = ANY($1::text[]) AND state = \'PENDING\' RETURNING uid',
        [taskUids, now])
      return rows.map((r) => r.uid)
    },
    async unheard (ackedBefore = Number.MAX_SAFE_INTEGER) {
      // A CANCELLED device task of an open operation task is a device's answer: a withdrawal or a timeout ends the
      // operation task in the same statement or transaction as its device tasks.
      const { rows } = await q.query<{ uid: string, system_uid: string, operation_uid: string, operation_task_uid: string, state: AnswerStatus, message: string | null, acked_at: number }>(
        `SELECT d.uid, d.system_uid, d.operation_uid, d.operation_task_uid, d.state, d.message, d.acked_at
         FROM (SELECT DISTINCT ON (operation_task_uid) * FROM device_tasks
               WHERE operation_task_uid IN (SELECT uid FROM operation_tasks WHERE state IN ('IN_PROGRESS', 'BEING_CANCELLED'))
               ORDER BY operation_task_uid, created_at DESC, uid DESC) d
         WHERE d.state IN ('OK', 'ERROR', 'CANCELLED') AND d.acked_at < $1`, [ackedBefore])
      return rows.map((r): DeviceAnswer => ({
        taskUid: r.uid, systemUid: r.system_uid, operationUid: r.operation_uid, operationTaskUid: r.operation_task_uid, status: r.state, message: r.message, at: Number(r.acked_at)
      }))
    },
    async states (taskUids) {
      if (taskUids.length === 0) return new Map()
      const { rows } = await q.query<{ uid: string, state: DeviceTaskState }>('SELECT uid, state FROM device_tasks WHERE uid = ANY($1::text[])', [taskUids])
      return new Map(rows.map((r) => [r.uid, r.state]))
    }
  }
  return answers
}

export function createDeviceTasksRepository (q: Queryable): DeviceTasksRepository {
  return { ...taskDeliveries(q), ...taskAnswers(q) }
}
