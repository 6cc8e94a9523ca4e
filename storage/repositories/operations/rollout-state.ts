// What the safe rollouts keep on an operation (docs/operations.md#safe-rollouts; migration 0034): its pause, the
// time its rollout next lets a task leave, and how many of its tasks have left.
import type { Queryable } from '../../../core/ports/store.js'
import type { OperationsRepository } from '../../../core/ports/operations.js'

export type RolloutState = Pick<OperationsRepository, 'setPaused' | 'setRolloutNextAt' | 'started'>

export function createRolloutState (q: Queryable): RolloutState {
  return {
    async setPaused (uid, pausedAt) {
      // A pause of a paused operation, or a resume of one that is not, changes nothing (and answers false).
      const res = await q.query(
        `UPDATE operations SET paused_at = $2 WHERE uid = $1 AND state <> 'FINISHED'
           AND (paused_at IS NULL) = ($2::bigint IS NOT NULL)`, [uid, pausedAt])
      return res.rowCount > 0
    },
    async setRolloutNextAt (uid, at) {
      await q.query('UPDATE operations SET rollout_next_at = $2 WHERE uid = $1', [uid, at])
    },
    async started (uids) {
      const out = new Map<string, number>()
      if (uids.length === 0) return out
      // operation_tasks_started_idx (migration 0015) holds only the tasks with a start date.
      const { rows } = await q.query<{ operation_uid: string, n: number }>(
        `SELECT operation_uid, count(*)::int AS n FROM operation_tasks WHERE operation_uid = ANY($1::text[]) AND start_date IS NOT NULL
         GROUP BY operation_uid`, [uids])
      for (const r of rows) out.set(r.operation_uid, r.n)
      return out
    }
  }
}
