// The embedded job queue: jobs in the store's `jobs` table (storage/migrations/0004_jobs.sql), worked in this
// process (shared/design.md "queue, scheduler"; shared/style.md §2.7). The same SQL runs on PGlite and on
// PostgreSQL, where several processes may work one table: a claim takes due rows with FOR UPDATE SKIP LOCKED,
// so two workers never take the same row, and holds them under a lease (locked_until) that the worker renews
// while the handler runs. A worker killed outright stops renewing; once its lease has passed the job is
// claimed again (at least once). A finished job (completed or failed for good) is deleted at once, which
// frees its id; onFailed is where a failure is recorded.
// A repeatable job (repeat()) is one row that is never deleted: the same claim gives one run to one worker, and
// the run's end moves run_at forward by the period, so the workers of a cluster run it once per period.
import { randomUUID } from 'node:crypto'
import type { Clock, Db } from '../../core/ports/store.js'
import {
  DEFAULT_ATTEMPTS, backoffDelay, checkPeriod, isPermanentJobError, repeatJobId,
  type JobFailure, type JobHandler, type JobInfo, type JobPayloadMap, type JobQueue, type WorkOptions
} from '../../core/ports/queue.js'

export interface LocalQueueOptions {
  /** Namespace of this queue's rows in the jobs table (default 'fleet'). */
  queue?: string
  /** How long a claim holds without renewal: a dead worker's job runs again this long after (default 30 s). */
  leaseMs?: number
  /** Idle poll interval: how soon jobs of other processes and due delayed jobs are seen (default 500 ms). */
  pollMs?: number
  /** Base of the exponential delay between attempts: base, 2·base, 4·base… (default 1 s). */
  backoffMs?: number
  clock?: Clock
  /** Errors no caller can receive: the store failing while polling, onFailed throwing (default: stderr). */
  onError?: (err: unknown) => void
}

interface Claimed {
  id: string
  name: string
  payload: unknown
  attempt: number
  max_attempts: number
  run_at: string | number
  /** Set on a repeatable job (bigint: a string from node-postgres, a number from PGlite). */
  repeat_every_ms: string | number | null
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

/** A sleep that wake() cuts short; a wake() while awake is remembered, so none is lost. */
function createWaker (): { wake: () => void, wait: (ms: number) => Promise<void> } {
  let pending = false
  let resolveWait: (() => void) | undefined
  return {
    wake () {
      pending = true
      resolveWait?.()
    },
    async wait (ms) {
      if (!pending) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms)
          function done (): void { clearTimeout(timer); resolveWait = undefined; resolve() }
          resolveWait = done
        })
      }
      pending = false
    }
  }
}

/** A job queue on the store; `db` stays open after close (the composition root owns it). */
export function createLocalQueue<P extends JobPayloadMap = Record<string, unknown>> (
  db: Db, options: LocalQueueOptions = {}
): JobQueue<P> {
  const queue = options.queue ?? 'fleet'
  const leaseMs = options.leaseMs ?? 30_000
  const pollMs = options.pollMs ?? 500
  const backoffMs = options.backoffMs ?? 1000
  const clock = options.clock ?? { now: () => Date.now() }
  const onError = options.onError ?? ((err: unknown) => { console.error('local queue:', err) })
  const waker = createWaker()
  const running = new Set<Promise<void>>()
  let handlers: Record<string, JobHandler | undefined> = {}
  let work: WorkOptions<P> | undefined
  let loop: Promise<void> | undefined
  let closing = false
  let closed: Promise<void> | undefined

  async function claim (limit: number): Promise<Array<Claimed & { token: string }>> {
    const now = clock.now()
    const token = randomUUID()
    const { rows } = await db.query<Claimed>(CLAIM, [queue, now, limit, now + leaseMs, token])
    return rows.map((row) => ({ ...row, token }))
  }

  // Runs while work() is on: claims as many due jobs as there are free slots, then sleeps until a slot
  // frees, a job is enqueued in this process, or pollMs passes.
  async function runLoop (concurrency: number): Promise<void> {
    for (;;) {
      if (closing) return
      const free = concurrency - running.size
      if (free > 0) {
        try {
          const jobs = await claim(free)
          if (closing) await release(jobs.map((j) => j.token))
          else for (const job of jobs) start(job)
        } catch (err) { onError(err) }
      }
      if (!closing) await waker.wait(pollMs)
    }
  }

  function start (job: Claimed & { token: string }): void {
    const done: Promise<void> = runJob(job)
      .catch(onError)
      .finally(() => { running.delete(done); waker.wake() })
    running.add(done)
  }

  async function runJob (row: Claimed & { token: string }): Promise<void> {
    if (row.repeat_every_ms !== null) return await runRepeat(row, Number(row.repeat_every_ms))
    const job: JobInfo = { id: row.id, name: row.name, attempt: row.attempt, attempts: row.max_attempts }
    // The previous run was the last one and its worker died: the attempts are spent.
    if (row.attempt > row.max_attempts) {
      return await fail(row, job, new Error(`job ${row.id}: the worker of its last attempt died`), false)
    }
    const handler = handlers[row.name]
    const heartbeat = setInterval(() => { renew(row).catch(onError) }, Math.max(1, Math.floor(leaseMs / 3)))
    let error: unknown
    let ok = false
    try {
      if (handler === undefined) throw new Error(`no handler for job ${row.name}`)
      await handler(row.payload, job)
      ok = true
    } catch (err) {
      error = err
    } finally {
      clearInterval(heartbeat)
    }
    if (ok) return await forget(row)
    const permanent = handler === undefined || isPermanentJobError(error)
    if (permanent || row.attempt >= row.max_attempts) return await fail(row, job, error, permanent)
    await retry(row, error)
  }

  // One run of a repeatable job; whatever its outcome, the row waits for the next period (core/ports/queue.ts repeat()).
  // A run whose worker died is run again once its lease has passed, like any job, within the same period.
  async function runRepeat (row: Claimed & { token: string }, everyMs: number): Promise<void> {
    const handler = handlers[row.name]
    const heartbeat = setInterval(() => { renew(row).catch(onError) }, Math.max(1, Math.floor(leaseMs / 3)))
    try {
      if (handler === undefined) throw new Error(`no handler for job ${row.name}`)
      await handler(row.payload, { id: row.id, name: row.name, attempt: 1, attempts: 1 })
    } catch (err) {
      onError(err)
    } finally {
      clearInterval(heartbeat)
    }
    // The next due time follows the previous one (a steady period), but never lies in the past: a queue that was
    // down for a while runs the job once, not once per missed period.
    const next = Math.max(Number(row.run_at) + everyMs, clock.now())
    await db.query(
      `UPDATE jobs SET run_at = $4, attempt = 0, locked_until = NULL, locked_by = NULL
       WHERE queue = $1 AND id = $2 AND locked_by = $3`, [queue, row.id, row.token, next])
  }

  async function renew (row: Claimed & { token: string }): Promise<void> {
    const res = await db.query('UPDATE jobs SET locked_until = $4 WHERE queue = $1 AND id = $2 AND locked_by = $3',
      [queue, row.id, row.token, clock.now() + leaseMs])
    if (res.rowCount === 0) onError(new Error(`job ${row.id}: lease lost, another worker may run it again`))
  }

  async function forget (row: Claimed & { token: string }): Promise<void> {
    await db.query('DELETE FROM jobs WHERE queue = $1 AND id = $2 AND locked_by = $3', [queue, row.id, row.token])
  }

  async function fail (row: Claimed & { token: string }, job: JobInfo, error: unknown, permanent: boolean): Promise<void> {
    if (work?.onFailed !== undefined) {
      const failure = { name: job.name, job, payload: row.payload, error, permanent } as JobFailure<P>
      await work.onFailed(failure).catch(onError)
    }
    await forget(row)
  }

  async function retry (row: Claimed & { token: string }, error: unknown): Promise<void> {
    await db.query(
      `UPDATE jobs SET run_at = $4, locked_until = NULL, locked_by = NULL, last_error = $5
       WHERE queue = $1 AND id = $2 AND locked_by = $3`,
      [queue, row.id, row.token, clock.now() + backoffDelay(row.attempt, backoffMs), String(error)])
  }

  // Jobs claimed while close() began are handed back untouched, their attempt not counted.
  async function release (tokens: string[]): Promise<void> {
    for (const token of new Set(tokens)) {
      await db.query(`UPDATE jobs SET locked_until = NULL, locked_by = NULL, attempt = attempt - 1
                      WHERE queue = $1 AND locked_by = $2`, [queue, token])
    }
  }

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
      if (opts.runAt === undefined || opts.runAt <= now) waker.wake()
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
      waker.wake()
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
    },

    async work (h, opts) {
      if (loop !== undefined) throw new Error('work() was already called on this queue')
      if (closing) throw new Error('the queue is closed')
      if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
        throw new RangeError(`concurrency must be an integer ≥ 1, got ${opts.concurrency}`)
      }
      handlers = h as Record<string, JobHandler | undefined>
      work = opts
      loop = runLoop(opts.concurrency)
    },

    async close () {
      closed ??= (async () => {
        closing = true
        waker.wake()
        await loop
        await Promise.allSettled([...running])
      })()
      await closed
    }
  }
}
