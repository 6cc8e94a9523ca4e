// Picks the queue adapter (docs/architecture.md#one-process-by-default-scaled-out-by-environment): BullMQ on Redis when
// REDIS_URL is set, otherwise the jobs table of the store, worked in-process.
import type { Db } from '../../core/ports/store.js'
import type { JobPayloadMap, JobQueue } from '../../core/ports/queue.js'
import { createBullmqQueue } from './bullmq-queue.js'
import { createLocalQueue } from './local-queue.js'

export interface OpenQueueOptions {
  /** REDIS_URL: set → BullMQ on Redis; absent → the local queue on `db`. */
  redisUrl?: string | undefined
  /** The store (used by the local queue only; it stays open after the queue closes). */
  db: Db
  /** Namespace: the Redis key prefix, or the jobs table's `queue` column (default 'fleet'). */
  prefix?: string
  /** Lease of a running job (default 30 s). */
  leaseMs?: number
  /** Base of the exponential retry delay (default 1 s). */
  backoffMs?: number
  /** Local queue only: idle poll interval (default 500 ms). */
  pollMs?: number
  /** Errors no caller can receive (the composition root passes its logger). */
  onError?: (err: unknown) => void
}

/** Opens the job queue the configuration asks for; with Redis, resolves once Redis answers. */
export async function openQueue<P extends JobPayloadMap = Record<string, unknown>> (opts: OpenQueueOptions): Promise<JobQueue<P>> {
  const common = { leaseMs: opts.leaseMs, backoffMs: opts.backoffMs, onError: opts.onError }
  if (opts.redisUrl !== undefined) {
    return await createBullmqQueue<P>({ url: opts.redisUrl, prefix: opts.prefix, ...common })
  }
  return createLocalQueue<P>(opts.db, { queue: opts.prefix, pollMs: opts.pollMs, ...common })
}
