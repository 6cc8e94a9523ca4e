// The embedded job queue: jobs in the store's `jobs` table (storage/migrations/0004_jobs.sql), worked in this
// process (docs/architecture.md#one-process-by-default-scaled-out-by-environment;
// docs/decisions/0019-operations-engine-and-device-tasks.md). The same SQL runs on PGlite and on PostgreSQL, where
// several processes may work one table: a claim takes due rows with FOR UPDATE SKIP LOCKED, so two workers never take
// the same row, and holds them under a lease (locked_until) that the worker renews while the handler runs. A worker
// killed outright stops renewing; once its lease has passed the job is claimed again (at least once). A finished job
// (completed or failed for good) is deleted at once, which frees its id; onFailed is where a failure is recorded.
// A repeatable job (repeat()) is one row that is never deleted: the same claim gives one run to one worker, and
// the run's end moves run_at forward by the period, so the workers of a cluster run it once per period.
import type { Clock, Db } from '../../core/ports/store.js'
import type { JobHandler, JobPayloadMap, JobQueue } from '../../core/ports/queue.js'
import { createJobRows, type Claimed } from './local-queue-rows.js'
import { createJobRunner } from './local-queue-runner.js'
import { createJobProducer } from './local-queue-producer.js'

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
  const rows = createJobRows(db, { queue, leaseMs, backoffMs, clock })
  const running = new Set<Promise<void>>()
  let loop: Promise<void> | undefined
  let closing = false
  let closed: Promise<void> | undefined

  // Runs while work() is on: claims as many due jobs as there are free slots, then sleeps until a slot
  // frees, a job is enqueued in this process, or pollMs passes.
  async function runLoop (concurrency: number, runJob: (row: Claimed) => Promise<void>): Promise<void> {
    for (;;) {
      if (closing) return
      const free = concurrency - running.size
      if (free > 0) {
        try {
          const jobs = await rows.claim(free)
          // Jobs claimed while close() began are handed back untouched, their attempt not counted.
          if (closing) await rows.release(jobs.map((j) => j.token))
          else for (const job of jobs) start(runJob, job)
        } catch (err) { onError(err) }
      }
      if (!closing) await waker.wait(pollMs)
    }
  }

  function start (runJob: (row: Claimed) => Promise<void>, job: Claimed): void {
    const done: Promise<void> = runJob(job)
      .catch(onError)
      .finally(() => { running.delete(done); waker.wake() })
    running.add(done)
  }

  return {
    ...createJobProducer<P>(db, { queue, clock, wake: () => { waker.wake() } }),

    async work (h, opts) {
      if (loop !== undefined) throw new Error('work() was already called on this queue')
      if (closing) throw new Error('the queue is closed')
      if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
        throw new RangeError(`concurrency must be an integer ≥ 1, got ${opts.concurrency}`)
      }
      const handlers = h as Record<string, JobHandler | undefined>
      loop = runLoop(opts.concurrency, createJobRunner(rows, { handlers, work: opts, leaseMs, clock, onError }))
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
