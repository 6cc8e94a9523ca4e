// The scaled-out job queue: BullMQ on Redis, used when REDIS_URL is set
// (docs/architecture.md#one-process-by-default-scaled-out-by-environment;
// docs/decisions/0019-operations-engine-and-device-tasks.md). One BullMQ queue carries every job name; the worker
// dispatches on job.name. The adapter keeps the port's contract (test/store/queue.contract.ts) where BullMQ differs by
// default:
// - job ids: BullMQ refuses ids holding ':' or made of digits, so ids are escaped ("j." + %-escaped);
// - attempts count runs started, a run whose worker died included (BullMQ's attemptsStarted), as the local
//   queue does; the processor decides when a failure is final and then throws UnrecoverableError, so
//   BullMQ never retries past it, and stalled jobs are left to that count (maxStalledCount is not the limit);
// - a FleetError is permanent (UnrecoverableError, §2.7 error contract); finished jobs are removed at once;
// - a repeatable job is a BullMQ job scheduler (upsertJobScheduler, one per name, shared by every process on
//   the prefix): BullMQ puts one job per period in the queue, which one worker takes; a failed run goes to
//   onError and is not retried (the next period is).
import { randomUUID } from 'node:crypto'
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq'
import { Redis } from 'ioredis'
import {
  DEFAULT_ATTEMPTS, checkPeriod, isPermanentJobError, repeatJobId,
  type JobFailure, type JobHandler, type JobInfo, type JobPayloadMap, type JobQueue, type WorkOptions
} from '../../core/ports/queue.js'

export interface BullmqQueueOptions {
  /** redis:// or rediss:// URL. */
  url: string
  /** Prefix of every Redis key (default 'fleet'); tests use a unique one per file and obliterate it after. */
  prefix?: string
  /** BullMQ queue name under the prefix (default 'jobs'). */
  name?: string
  /** Lock of a running job, renewed while it runs: a dead worker's job runs again after it (default 30 s). */
  leaseMs?: number
  /** Base of the exponential delay between attempts: base, 2·base, 4·base… (default 1 s). */
  backoffMs?: number
  /** Errors no caller can receive: Redis connection errors, onFailed throwing (default: stderr). */
  onError?: (err: unknown) => void
}

// A stall (dead worker) sends the job back to wait; the attempts count decides when to give up.
const STALLS_UNBOUNDED = 1_000_000

/** Our id → a BullMQ custom id (no ':', never an integer); fromBullId reverses it. */
export const toBullId = (id: string): string => 'j.' + id.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'))
export const fromBullId = (id: string): string => id.slice(2).replace(/%3A|%25/g, (c) => (c === '%3A' ? ':' : '%'))

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err))

// BullMQ's clients retry a dead server forever; a start with a wrong REDIS_URL fails at once instead.
async function checkRedis (url: string): Promise<void> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000, retryStrategy: () => null })
  let cause: unknown
  probe.on('error', (err) => { cause ??= err }) // the socket's error (ECONNREFUSED…), more telling than connect's
  try {
    await probe.connect()
    await probe.ping()
  } catch (err) {
    cause ??= err
    throw new Error(`Redis at ${new URL(url).host} does not answer: ${message(cause)}`, { cause })
  } finally { probe.disconnect() }
}

/**
 * The worker's function: runs a job's handler, throws for BullMQ to retry with its backoff, or reports the job as
 * failed (onFailed) and ends it as unrecoverable; a repeatable job's run only reports its error.
 */
function processor<P extends JobPayloadMap> (handlers: Record<string, JobHandler | undefined>, opts: WorkOptions<P>, onError: (err: unknown) => void) {
  async function fail (job: JobInfo, payload: unknown, error: unknown, permanent: boolean): Promise<never> {
    if (opts.onFailed !== undefined) {
      await opts.onFailed({ name: job.name, job, payload, error, permanent } as JobFailure<P>).catch(onError)
    }
    throw new UnrecoverableError(message(error))
  }
  return async (j: Job): Promise<void> => {
    if (j.repeatJobKey !== undefined) {
      const handler = handlers[j.name]
      try {
        if (handler === undefined) throw new Error(`no handler for job ${j.name}`)
        await handler(j.data, { id: repeatJobId(j.name), name: j.name, attempt: 1, attempts: 1 })
      } catch (err) { onError(err) }
      return
    }
    const job: JobInfo = { id: fromBullId(j.id ?? ''), name: j.name, attempt: j.attemptsStarted, attempts: j.opts.attempts ?? 1 }
    if (job.attempt > job.attempts) {
      return await fail(job, j.data, new Error(`job ${job.id}: the worker of its last attempt died`), false)
    }
    const handler = handlers[j.name]
    try {
      if (handler === undefined) throw new Error(`no handler for job ${j.name}`)
      await handler(j.data, job)
    } catch (err) {
      const permanent = handler === undefined || isPermanentJobError(err)
      if (!permanent && job.attempt < job.attempts) throw err // BullMQ retries with its backoff
      await fail(job, j.data, err, permanent)
    }
  }
}

/** A job queue on Redis; resolves once Redis answers, rejects when it does not. */
export async function createBullmqQueue<P extends JobPayloadMap = Record<string, unknown>> (
  options: BullmqQueueOptions
): Promise<JobQueue<P>> {
  const name = options.name ?? 'jobs'
  const prefix = options.prefix ?? 'fleet'
  const leaseMs = options.leaseMs ?? 30_000
  const backoffMs = options.backoffMs ?? 1000
  const onError = options.onError ?? ((err: unknown) => { console.error('bullmq queue:', err) })
  await checkRedis(options.url)
  const queue = new Queue(name, { connection: { url: options.url }, prefix })
  queue.on('error', onError)
  await queue.waitUntilReady()
  let worker: Worker | undefined
  let closed: Promise<void> | undefined

  return {
    async enqueue (jobName, payload, opts = {}) {
      const attempts = opts.attempts ?? DEFAULT_ATTEMPTS
      if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError(`attempts must be an integer ≥ 1, got ${attempts}`)
      await queue.add(jobName, payload ?? null, {
        jobId: toBullId(opts.jobId ?? randomUUID()),
        delay: opts.runAt === undefined ? 0 : Math.max(0, opts.runAt - Date.now()),
        attempts,
        backoff: { type: 'exponential', delay: backoffMs },
        removeOnComplete: true,
        removeOnFail: true
      })
    },

    async repeat (jobName, everyMs, payload) {
      checkPeriod(everyMs)
      // The scheduler id is the job name: a second upsert (a restart, another process) updates the one scheduler.
      await queue.upsertJobScheduler(toBullId(repeatJobId(jobName)), { every: everyMs }, {
        name: jobName,
        data: payload ?? null,
        opts: { attempts: 1, removeOnComplete: true, removeOnFail: true }
      })
    },

    async remove (jobId) {
      const id = toBullId(jobId)
      if (await queue.getJob(id) === undefined) return false
      return await queue.remove(id) === 1 // 0 when the job is running (locked)
    },

    async depth () {
      // BullMQ keeps prioritized and waiting-children jobs apart; both wait for a worker all the same.
      const c = await queue.getJobCounts('waiting', 'prioritized', 'waiting-children', 'delayed', 'active')
      return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c['waiting-children'] ?? 0), delayed: c.delayed ?? 0, active: c.active ?? 0 }
    },

    async work (handlers, opts) {
      if (worker !== undefined) throw new Error('work() was already called on this queue')
      if (closed !== undefined) throw new Error('the queue is closed')
      if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
        throw new RangeError(`concurrency must be an integer ≥ 1, got ${opts.concurrency}`)
      }
      worker = new Worker(name, processor(handlers as Record<string, JobHandler | undefined>, opts, onError), {
        connection: { url: options.url, maxRetriesPerRequest: null },
        prefix,
        concurrency: opts.concurrency,
        lockDuration: leaseMs,
        stalledInterval: leaseMs,
        maxStalledCount: STALLS_UNBOUNDED
      })
      worker.on('error', onError)
      await worker.waitUntilReady()
    },

    async close () {
      closed ??= (async () => {
        try { await worker?.close() } finally { await queue.close() }
      })()
      await closed
    }
  }
}
