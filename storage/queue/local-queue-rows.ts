// The statements of a local queue's worker on its rows of the jobs table (storage/queue/local-queue.ts): claim due
// rows under a lease, renew it, and end a run by deleting the row, putting it back for a retry or handing it back.
// Every statement after the claim names the claim's token (locked_by): a worker that lost its lease changes nothing.
import { randomUUID } from 'node:crypto'
import type { Clock, Db } from '../../core/ports/store.js'
import { backoffDelay } from '../../core/ports/queue.js'

export interface Claimed {
  id: string
  name: string
  payload: unknown
  attempt: number
  max_attempts: number
  run_at: string | number
  /** Set on a repeatable job (bigint: a string from node-postgres, a number from PGlite). */
  repeat_every_ms: string | number | null
  /** The claim's token, in locked_by while the lease holds. */
  token: string
}

const CLAIM = `
  WITH due AS (
    SELECT id FROM jobs
    WHERE queue = $1 AND run_at <= $2 AND (locked_until IS NULL OR locked_until <= $2)
    ORDER BY run_at
    LIMIT $3
    FOR UPDATE SKIP LOCKED
  )
  UPDATE jobs j SET attempt = j.attempt + 1, locked_until = $4, locked_by = $5
  FROM due WHERE j.queue = $1 AND j.id = due.id
  RETURNING j.id, j.name, j.payload, j.attempt, j.max_attempts, j.run_at, j.repeat_every_ms`

export interface JobRows {
  claim (limit: number): Promise<Claimed[]>
  /** Extends the lease; false when the row is no longer this claim's. */
  renew (row: Claimed): Promise<boolean>
  /** Deletes a finished job (done, or failed for good): its id is free again. */
  forget (row: Claimed): Promise<void>
  retry (row: Claimed, error: unknown): Promise<void>
  /** A repeatable job's run is over: the row waits for `next`. */
  reschedule (row: Claimed, next: number): Promise<void>
  /** Hands back untouched the jobs of these claims, their attempt not counted. */
  release (tokens: string[]): Promise<void>
}

export function createJobRows (db: Db, o: { queue: string, leaseMs: number, backoffMs: number, clock: Clock }): JobRows {
  const { queue, leaseMs, backoffMs, clock } = o
  return {
    async claim (limit) {
      const now = clock.now()
      const token = randomUUID()
      const { rows } = await db.query<Omit<Claimed, 'token'>>(CLAIM, [queue, now, limit, now + leaseMs, token])
      return rows.map((row) => ({ ...row, token }))
    },
    async renew (row) {
      const res = await db.query('UPDATE jobs SET locked_until = $4 WHERE queue = $1 AND id = $2 AND locked_by = $3',
        [queue, row.id, row.token, clock.now() + leaseMs])
      return res.rowCount > 0
    },
    async forget (row) {
      await db.query('DELETE FROM jobs WHERE queue = $1 AND id = $2 AND locked_by = $3', [queue, row.id, row.token])
    },
    async retry (row, error) {
      await db.query(
        `UPDATE jobs SET run_at = $4, locked_until = NULL, locked_by = NULL, last_error = $5
         WHERE queue = $1 AND id = $2 AND locked_by = $3`,
        [queue, row.id, row.token, clock.now() + backoffDelay(row.attempt, backoffMs), String(error)])
    },
    async reschedule (row, next) {
      await db.query(
        `UPDATE jobs SET run_at = $4, attempt = 0, locked_until = NULL, locked_by = NULL
         WHERE queue = $1 AND id = $2 AND locked_by = $3`, [queue, row.id, row.token, next])
    },
    async release (tokens) {
      for (const token of new Set(tokens)) {
        await db.query(`UPDATE jobs SET locked_until = NULL, locked_by = NULL, attempt = attempt - 1
                        WHERE queue = $1 AND locked_by = $2`, [queue, token])
      }
    }
  }
}
