// The reads of an operation's tasks: pages and counts, claims and locks, and what the engine asks of them.
import type { Queryable } from '../../../core/ports/store.js'
import type { OperationsRepository } from '../../../core/ports/operations.js'
import type { TaskState } from '../../../core/domain/operation.js'
import { toTask, type TaskRow } from './rows.js'

export type TaskReads = Pick<OperationsRepository, 'counts' | 'tasks' | 'claimPending' | 'lockTask' | 'lockTasks' | 'hasOpenTasks' | 'parentSystems' | 'startedSince' | 'openTasksOf'>

export function createTaskReads (q: Queryable): TaskReads {
  return {
    async counts (uids) {
      const out = new Map<string, Partial<Record<TaskState, number>>>()
      if (uids.length === 0) return out
      const { rows } = await q.query<{ operation_uid: string, state: TaskState, n: number }>(
        `SELECT operation_uid, state, count(*)::int AS n FROM operation_tasks WHERE operation_uid = ANY($1::text[])
         GROUP BY operation_uid, state`, [uids])
      for (const r of rows) {
        const c = out.get(r.operation_uid) ?? {}
        c[r.state] = r.n
        out.set(r.operation_uid, c)
      }
      return out
    },
    async tasks (operationUid, states, page) {
      const p: unknown[] = [operationUid]
      let where = 'operation_uid = $1'
      if (states !== undefined) { p.push(states); where += ' AND state = ANY($2::text[])' }
      const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM operation_tasks WHERE ${where}`, p)
      const { rows } = await q.query<TaskRow>(
        `SELECT * FROM operation_tasks WHERE ${where} ORDER BY seq LIMIT ${page.size} OFFSET ${page.offset}`, p)
      return { count: total.rows[0]?.n ?? 0, items: rows.map(toTask) }
    },
    async claimPending (operationUid, limit) {
      const { rows } = await q.query<TaskRow>(
        `SELECT * FROM operation_tasks WHERE operation_uid = $1 AND state = 'PENDING' ORDER BY seq
         LIMIT ${Math.trunc(limit)} FOR UPDATE SKIP LOCKED`, [operationUid])
      return rows.map(toTask)
    },
    async lockTask (taskUid) {
      const { rows } = await q.query<TaskRow>('SELECT * FROM operation_tasks WHERE uid = $1 FOR UPDATE', [taskUid])
      return rows[0] === undefined ? undefined : toTask(rows[0])
    },
    async lockTasks (taskUids) {
      if (taskUids.length === 0) return new Map()
      const { rows } = await q.query<TaskRow>('SELECT * FROM operation_tasks WHERE uid = ANY($1::text[]) ORDER BY uid FOR UPDATE', [[...new Set(taskUids)]])
      return new Map(rows.map((r) => { const t = toTask(r); return [t.uid, t] }))
    },
    async hasOpenTasks (operationUid) {
      // Asked after every device answer: counting the open tasks would read all of them each time (10,000 answers of
      // an operation of 10,000 tasks read ~50 million index entries); EXISTS stops at the first.
      const { rows } = await q.query<{ open: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM operation_tasks WHERE operation_uid = $1 AND state IN (\'PENDING\', \'IN_PROGRESS\', \'BEING_CANCELLED\')) AS open', [operationUid])
      return rows[0]?.open === true
    },
    async parentSystems (d) {
      const p: unknown[] = [d.operation]
      let where = 'operation_uid = $1'
      if (d.states.length > 0) { p.push(d.states); where += ' AND state = ANY($2::text[])' }
      const { rows } = await q.query<{ system_uid: string, system_name: string | null }>(
        `SELECT system_uid, system_name FROM operation_tasks WHERE ${where} ORDER BY seq`, p)
      return rows.map((r) => ({ systemUid: r.system_uid, systemName: r.system_name }))
    },
    async startedSince (operationUid, since) {
      const { rows } = await q.query<{ n: number, oldest: string | number | null }>(
        'SELECT count(*)::int AS n, min(start_date) AS oldest FROM operation_tasks WHERE operation_uid = $1 AND start_date > $2',
        [operationUid, since])
      const oldest = rows[0]?.oldest ?? null
      return { count: rows[0]?.n ?? 0, oldest: oldest === null ? null : Number(oldest) }
    },
    async openTasksOf (systemUids, types) {
      if (systemUids.length === 0 || types.length === 0) return []
      // operation_tasks_open_system_idx (migration 0014): the few open tasks of each system, whatever its history.
      const { rows } = await q.query<{ uid: string, operation_uid: string }>(
        `SELECT t.uid, t.operation_uid FROM operation_tasks t JOIN operations o ON o.uid = t.operation_uid
         WHERE t.system_uid = ANY($1::text[]) AND t.state IN ('IN_PROGRESS', 'BEING_CANCELLED') AND o.type = ANY($2::text[])
         ORDER BY t.operation_uid, t.seq`, [[...systemUids], [...types]])
      return rows.map((r) => ({ uid: r.uid, operationUid: r.operation_uid }))
    }
  }
}
