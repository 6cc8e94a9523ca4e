// The producer side of the local queue (storage/queue/local-queue.ts): rows added to, removed from and counted in the
// jobs table. `wake` tells this process's worker loop of a job due now, so it does not wait for its next poll.
import { randomUUID } from 'node:crypto'
import type { Clock, Db } from '../../core/ports/store.js'
import { DEFAULT_ATTEMPTS, checkPeriod, repeatJobId, type JobPayloadMap, type JobQueue } from '../../core/ports/queue.js'

export type JobProducer<P extends JobPayloadMap> = Pick<JobQueue<P>, 'enqueue' | 'repeat' | 'remove' | 'depth'>

export function createJobProducer<P extends JobPayloadMap> (db: Db, o: { queue: string, clock: Clock, wake: () => void }): JobProducer<P> {
  const { queue, clock, wake } = o
  return {
    async enqueue (name, payload, opts = {}) {
      const attempts = opts.attempts ?? DEFAULT_ATTEMPTS
      if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError(`attempts must be an integer ≥ 1, got ${attempts}`)
      const now = clock.now()
      await db.query(
        `INSERT INTO jobs (queue, id, name, payload, run_at, max_attempts, created_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7) ON CONFLICT (queue, id) DO NOTHING`,
        [queue, opts.jobId ?? randomUUID(), name, JSON.stringify(payload ?? null), opts.runAt ?? now, attempts, now])
      // A job of this process is seen at once; a delayed one, by the poll that follows its runAt.
      if (opts.runAt === undefined || opts.runAt <= now) wake()
    },

    async repeat (name, everyMs, payload) {
      checkPeriod(everyMs)
      const now = clock.now()
      // A declaration again (a restart, another process) keeps the row and its due time, so it adds no run; a
      // shorter period than before brings the due time forward to at most one new period away.
      await db.query(
        `INSERT INTO jobs (queue, id, name, payload, run_at, max_attempts, created_at, repeat_every_ms)
         VALUES ($1, $2, $3, $4::jsonb, $5, 1, $5, $6)
         ON CONFLICT (queue, id) DO UPDATE SET name = EXCLUDED.name, payload = EXCLUDED.payload,
           repeat_every_ms = EXCLUDED.repeat_every_ms, run_at = LEAST(jobs.run_at, $5 + $6)`,
        [queue, repeatJobId(name), name, JSON.stringify(payload ?? null), now, everyMs])
      wake()
    },

    async remove (jobId) {
      const res = await db.query(
        'DELETE FROM jobs WHERE queue = $1 AND id = $2 AND (locked_until IS NULL OR locked_until <= $3)',
        [queue, jobId, clock.now()])
      return res.rowCount > 0
    },

    async depth () {
      // One pass over this queue's rows (the jobs table only holds unfinished jobs: a finished one is deleted).
      const { rows } = await db.query<{ waiting: number, delayed: number, active: number }>(
        `SELECT count(*) FILTER (WHERE run_at <= $2 AND (locked_until IS NULL OR locked_until <= $2))::int AS waiting,
                count(*) FILTER (WHERE run_at > $2 AND (locked_until IS NULL OR locked_until <= $2))::int AS delayed,
                count(*) FILTER (WHERE locked_until > $2)::int AS active
         FROM jobs WHERE queue = $1`, [queue, clock.now()])
      return rows[0] ?? { waiting: 0, delayed: 0, active: 0 }
    }
  }
}
