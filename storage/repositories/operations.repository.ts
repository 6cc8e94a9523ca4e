import type { Queryable } from '../../core/ports/store.js'
import type { OperationsRepository } from '../../core/ports/operations.js'
import type { AbortedBy, Operation, Task, TaskState } from '../../core/domain/operation.js'
import { newUid } from '../../core/security/secrets.js'

interface OperationRow {
  uid: string
  company_uid: string
  type: Operation['type']
  state: Operation['state']
  created_at: number
  start_date: number | null
  scheduled_time: number | null
  timeout_date: number
  end_date: number | null
  cancel_date: number | null
  total: number
  target: string | null
  user_uid: string | null
  user_email: string | null
  notify: boolean
  callback: string | null
  parameters: Record<string, unknown>
  depends_on: Operation['dependsOn']
  resolved: boolean
  callback_attempts: number
  callback_last_status: number | null
  callback_last_error: string | null
  callback_last_attempt_at: number | null
  callback_delivered: boolean
  aborted_by: AbortedBy | null
}

const toOperation = (r: OperationRow): Operation => ({
  uid: r.uid,
  companyUid: r.company_uid,
  type: r.type,
  state: r.state,
  createdAt: r.created_at,
  startDate: r.start_date,
  scheduledTime: r.scheduled_time,
  timeoutDate: r.timeout_date,
  endDate: r.end_date,
  cancelDate: r.cancel_date,
  total: r.total,
  target: r.target,
  userUid: r.user_uid,
  userEmail: r.user_email,
  notify: r.notify,
  callback: r.callback,
  parameters: r.parameters,
  dependsOn: r.depends_on,
  resolved: r.resolved,
  callbackDelivery: {
    attempts: r.callback_attempts,
    lastStatus: r.callback_last_status,
    lastError: r.callback_last_error,
    lastAttemptAt: r.callback_last_attempt_at === null ? null : Number(r.callback_last_attempt_at),
    delivered: r.callback_delivered
  },
  abortedBy: r.aborted_by
})

interface TaskRow {
  uid: string
  operation_uid: string
  seq: number
  system_uid: string
  system_name: string | null
  state: TaskState
  created_at: number
  start_date: number | null
  end_date: number | null
  error_code: string | null
  error_message: string | null
  line: number | null
  params: Record<string, unknown> | null
}

const toTask = (r: TaskRow): Task => ({
  uid: r.uid,
  operationUid: r.operation_uid,
  seq: r.seq,
  systemUid: r.system_uid,
  systemName: r.system_name,
  state: r.state,
  createdAt: r.created_at,
  startDate: r.start_date,
  endDate: r.end_date,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  line: r.line,
  params: r.params
})

export function createOperationsRepository (q: Queryable): OperationsRepository {
  return {
    async insert (op) {
      await q.query(
        `INSERT INTO operations (uid, company_uid, type, state, created_at, start_date, scheduled_time, timeout_date, end_date,
           cancel_date, total, target, user_uid, user_email, notify, callback, parameters, depends_on, resolved)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18::jsonb, $19)`,
        [op.uid, op.companyUid, op.type, op.state, op.createdAt, op.startDate, op.scheduledTime, op.timeoutDate, op.endDate,
          op.cancelDate, op.total, op.target, op.userUid, op.userEmail, op.notify, op.callback, JSON.stringify(op.parameters),
          op.dependsOn === null ? null : JSON.stringify(op.dependsOn), op.resolved])
    },
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
    async find (uid) {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE uid = $1', [uid])
      return rows[0] === undefined ? undefined : toOperation(rows[0])
    },
    async findInCompany (companyUid, uid) {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0] === undefined ? undefined : toOperation(rows[0])
    },
    async list (companyUid, f, page) {
      const p: unknown[] = [companyUid]
      const w = ['o.company_uid = $1']
      const add = (sql: string, v: unknown): void => { p.push(v); w.push(sql.replaceAll('?', `$${p.length}`)) }
      if (f.uid !== undefined) add('o.uid = ANY(?::text[])', f.uid)
      if (f.states !== undefined) add('o.state = ANY(?::text[])', f.states)
      if (f.operationTypes !== undefined) add('o.type = ANY(?::text[])', f.operationTypes)
      if (f.user !== undefined) add('lower(o.user_email) = lower(?)', f.user)
      if (f.createdAfter !== undefined) add('o.created_at >= ?', f.createdAfter)
      if (f.createdBefore !== undefined) add('o.created_at <= ?', f.createdBefore)
      if (f.target !== undefined) add('EXISTS (SELECT 1 FROM operation_tasks t WHERE t.operation_uid = o.uid AND t.system_uid = ?)', f.target)
      const where = w.join(' AND ')
      const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM operations o WHERE ${where}`, p)
      const { rows } = await q.query<OperationRow>(
        `SELECT o.* FROM operations o WHERE ${where} ORDER BY o.created_at DESC, o.uid LIMIT ${page.size} OFFSET ${page.offset}`, p)
      return { count: total.rows[0]?.n ?? 0, items: rows.map(toOperation) }
    },
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
    async setTaskResults (results, now) {
      if (results.length === 0) return
      await q.query(
        `UPDATE operation_tasks t SET state = v.state, error_code = v.code, error_message = v.message,
           start_date = coalesce(t.start_date, $1), end_date = CASE WHEN v.state IN ('SUCCESS', 'FAILURE') THEN $1 ELSE NULL END,
           params = coalesce(v.params, t.params), system_uid = coalesce(v.system_uid, t.system_uid),
           system_name = CASE WHEN v.system_uid IS NULL THEN t.system_name ELSE v.system_name END
         FROM jsonb_to_recordset($2::jsonb) AS v(uid text, state text, code text, message text, params jsonb, system_uid text, system_name text)
         WHERE t.uid = v.uid`,
        [now, JSON.stringify(results.map((r) => ({
          uid: r.uid, state: r.state, code: r.errorCode ?? null, message: r.errorMessage ?? null, params: r.params ?? null, system_uid: r.systemUid ?? null, system_name: r.systemName ?? null
        })))])
    },
    async hasOpenTasks (operationUid) {
      // Asked after every device answer: counting the open tasks would read all of them each time (10,000 answers of
      // an operation of 10,000 tasks read ~50 million index entries); EXISTS stops at the first.
      const { rows } = await q.query<{ open: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM operation_tasks WHERE operation_uid = $1 AND state IN (\'PENDING\', \'IN_PROGRESS\', \'BEING_CANCELLED\')) AS open', [operationUid])
      return rows[0]?.open === true
    },
    async transition (uid, from, to, patch) {
      const res = await q.query(
        `UPDATE operations SET state = $3, start_date = coalesce($4, start_date), end_date = coalesce($5, end_date),
           cancel_date = coalesce($6, cancel_date), followups_pending = coalesce($7, followups_pending)
         WHERE uid = $1 AND state = ANY($2::text[])`,
        [uid, from, to, patch.startDate ?? null, patch.endDate ?? null, patch.cancelDate ?? null, patch.followupsPending ?? null])
      return res.rowCount > 0
    },
    async pendingFollowups () {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE followups_pending ORDER BY end_date, uid')
      return rows.map(toOperation)
    },
    async clearFollowups (uid) {
      await q.query('UPDATE operations SET followups_pending = false WHERE uid = $1', [uid])
    },
    async setResolved (uid) {
      await q.query('UPDATE operations SET resolved = true WHERE uid = $1', [uid])
    },
    async parentSystems (d) {
      const p: unknown[] = [d.operation]
      let where = 'operation_uid = $1'
      if (d.states.length > 0) { p.push(d.states); where += ' AND state = ANY($2::text[])' }
      const { rows } = await q.query<{ system_uid: string, system_name: string | null }>(
        `SELECT system_uid, system_name FROM operation_tasks WHERE ${where} ORDER BY seq`, p)
      return rows.map((r) => ({ systemUid: r.system_uid, systemName: r.system_name }))
    },
    async children (operationUid) {
      const { rows } = await q.query<{ uid: string }>(
        "SELECT uid FROM operations WHERE depends_on ->> 'operation' = $1 AND state <> 'FINISHED'", [operationUid])
      return rows.map((r) => r.uid)
    },
    async cancelTasks (operationUid, now) {
      await q.query(
        `WITH withdrawn AS (
           UPDATE device_tasks SET state = 'CANCELLED', acked_at = $2
           WHERE operation_uid = $1 AND state = 'PENDING' RETURNING operation_task_uid)
         UPDATE operation_tasks t SET
           state = CASE WHEN t.state = 'PENDING' OR t.uid IN (SELECT operation_task_uid FROM withdrawn) THEN 'CANCELLED' ELSE 'BEING_CANCELLED' END,
           end_date = CASE WHEN t.state = 'PENDING' OR t.uid IN (SELECT operation_task_uid FROM withdrawn) THEN $2 ELSE t.end_date END
         WHERE t.operation_uid = $1 AND t.state IN ('PENDING', 'IN_PROGRESS')`, [operationUid, now])
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
    },
    async lock (uid) {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE uid = $1 FOR UPDATE', [uid])
      return rows[0] === undefined ? undefined : toOperation(rows[0])
    },
    async startedSince (operationUid, since) {
      const { rows } = await q.query<{ n: number, oldest: string | number | null }>(
        'SELECT count(*)::int AS n, min(start_date) AS oldest FROM operation_tasks WHERE operation_uid = $1 AND start_date > $2',
        [operationUid, since])
      const oldest = rows[0]?.oldest ?? null
      return { count: rows[0]?.n ?? 0, oldest: oldest === null ? null : Number(oldest) }
    },
    async setAborted (uid, abortedBy, now) {
      const res = await q.query(
        `UPDATE operations SET aborted_by = $2::jsonb, cancel_date = coalesce(cancel_date, $3)
         WHERE uid = $1 AND state <> 'FINISHED' AND aborted_by IS NULL`, [uid, JSON.stringify(abortedBy), now])
      return res.rowCount > 0
    },
    async openTasksOf (systemUids, types) {
      if (systemUids.length === 0 || types.length === 0) return []
      // operation_tasks_open_system_idx (migration 0014): the few open tasks of each system, whatever its history.
      const { rows } = await q.query<{ uid: string, operation_uid: string }>(
        `SELECT t.uid, t.operation_uid FROM operation_tasks t JOIN operations o ON o.uid = t.operation_uid
         WHERE t.system_uid = ANY($1::text[]) AND t.state IN ('IN_PROGRESS', 'BEING_CANCELLED') AND o.type = ANY($2::text[])
         ORDER BY t.operation_uid, t.seq`, [[...systemUids], [...types]])
      return rows.map((r) => ({ uid: r.uid, operationUid: r.operation_uid }))
    },
    async unfinished () {
      const { rows } = await q.query<OperationRow>("SELECT * FROM operations WHERE state <> 'FINISHED' ORDER BY created_at")
      return rows.map(toOperation)
    },
    async recordCallback (operationUid, a) {
      // Tries of several events may end out of order: every try counts, the latest try's outcome is kept (each SET
      // reads the row as it was, locked by this UPDATE).
      const latest = 'coalesce(callback_last_attempt_at, 0) <= $2::bigint'
      await q.query(
        `UPDATE operations SET callback_attempts = callback_attempts + 1,
           callback_last_status = CASE WHEN ${latest} THEN $3::integer ELSE callback_last_status END,
           callback_last_error = CASE WHEN ${latest} THEN $4::text ELSE callback_last_error END,
           callback_delivered = CASE WHEN ${latest} THEN $5::boolean ELSE callback_delivered END,
           callback_last_attempt_at = CASE WHEN ${latest} THEN $2::bigint ELSE callback_last_attempt_at END
         WHERE uid = $1`,
        [operationUid, a.at, a.status, a.error, a.delivered])
    },
    async putFile (operationUid, f) {
      await q.query(`INSERT INTO operation_files (operation_uid, name, content_type, data) VALUES ($1, $2, $3, $4)
        ON CONFLICT (operation_uid) DO UPDATE SET name = EXCLUDED.name, content_type = EXCLUDED.content_type, data = EXCLUDED.data`,
      [operationUid, f.name, f.contentType, f.data])
    },
    async file (operationUid) {
      const { rows } = await q.query<{ name: string, content_type: string, data: Uint8Array }>(
        'SELECT name, content_type, data FROM operation_files WHERE operation_uid = $1', [operationUid])
      const r = rows[0]
      return r === undefined ? undefined : { name: r.name, contentType: r.content_type, data: Buffer.from(r.data) }
    },
    async dataset (companyUid, uid) {
      const { rows } = await q.query<{ uid: string, name: string, data: string[] }>('SELECT uid, name, data FROM datasets WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0]
    },
    async datasetByName (companyUid, name) {
      const { rows } = await q.query<{ uid: string, name: string, data: string[] }>('SELECT uid, name, data FROM datasets WHERE company_uid = $1 AND name = $2', [companyUid, name])
      return rows[0]
    },
    async putDataset (d) {
      await q.query(`INSERT INTO datasets (uid, company_uid, name, data) VALUES ($1, $2, $3, $4)
        ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name, data = EXCLUDED.data`, [d.uid, d.companyUid, d.name, d.data])
    }
  }
}
