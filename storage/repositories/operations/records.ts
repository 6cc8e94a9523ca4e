// Operations themselves: written, read, listed, moved from state to state, locked, and their callbacks' tries.
import type { Queryable } from '../../../core/ports/store.js'
import type { OperationsRepository } from '../../../core/ports/operations.js'
import { toOperation, type OperationRow } from './rows.js'

/** OperationsRepository.list: the company's operations matching every given filter, newest first. */
async function list (q: Queryable, companyUid: string, f: Parameters<OperationsRepository['list']>[1], page: Parameters<OperationsRepository['list']>[2]): ReturnType<OperationsRepository['list']> {
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
}

export type OperationRecords = Pick<OperationsRepository, 'insert' | 'find' | 'findInCompany' | 'list' | 'transition' | 'pendingFollowups' | 'clearFollowups' | 'setResolved' | 'children' | 'lock' | 'setAborted' | 'unfinished' | 'recordCallback'>

export function createOperationRecords (q: Queryable): OperationRecords {
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
    async find (uid) {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE uid = $1', [uid])
      return rows[0] === undefined ? undefined : toOperation(rows[0])
    },
    async findInCompany (companyUid, uid) {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE company_uid = $1 AND uid = $2', [companyUid, uid])
      return rows[0] === undefined ? undefined : toOperation(rows[0])
    },
    async list (companyUid, f, page) { return await list(q, companyUid, f, page) },
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
    async children (operationUid) {
      const { rows } = await q.query<{ uid: string }>(
        "SELECT uid FROM operations WHERE depends_on ->> 'operation' = $1 AND state <> 'FINISHED'", [operationUid])
      return rows.map((r) => r.uid)
    },
    async lock (uid) {
      const { rows } = await q.query<OperationRow>('SELECT * FROM operations WHERE uid = $1 FOR UPDATE', [uid])
      return rows[0] === undefined ? undefined : toOperation(rows[0])
    },
    async setAborted (uid, abortedBy, now) {
      const res = await q.query(
        `UPDATE operations SET aborted_by = $2::jsonb, cancel_date = coalesce(cancel_date, $3)
         WHERE uid = $1 AND state <> 'FINISHED' AND aborted_by IS NULL`, [uid, JSON.stringify(abortedBy), now])
      return res.rowCount > 0
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
    }
  }
}
