// What the JobQueue contract's cases work with (test/store/queue.contract.ts): a backend's namespaces, a queue closed
// when its test ends, a worker that records failures and can wait for everything enqueued before.
import { onTestFinished } from 'vitest'
import type { JobFailure, JobHandlers, JobQueue } from '../../core/ports/queue.js'
import { eventually } from '../helpers/eventually.js'

/** One namespace of a backend: an empty queue that several instances (processes) may share. */
export interface QueueHarness {
  /** A queue instance on this namespace. */
  open (): Promise<JobQueue>
  /** The lease and the backoff base the harness's queues use (ms). */
  leaseMs: number
  backoffMs: number
  /**
   * Stores the job as claimed by a worker that then died without finishing it (SIGKILL): its lease ends
   * at the answered epoch ms, at the latest.
   */
  claimAsDeadWorker (name: string, payload: unknown, jobId: string, attempts?: number): Promise<number>
}

export interface QueueBackend {
  /** A fresh namespace, empty. */
  namespace (): QueueHarness
  /** Drops what the backend created (database, Redis keys). */
  close (): Promise<void>
}

export type Handlers = JobHandlers<Record<string, unknown>>

/** Polls `check` until it holds: eventually() with the arguments these cases pass (no fixed sleeps: docs/testing.md). */
export async function until (check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await eventually(check, { timeoutMs, intervalMs: 5, what })
}

export function deferred (): { promise: Promise<void>, resolve: () => void } {
  let release = (): void => {}
  const promise = new Promise<void>((resolve) => { release = resolve })
  return { promise, resolve: () => { release() } }
}

export async function open (h: QueueHarness): Promise<JobQueue> {
  const q = await h.open()
  onTestFinished(async () => { await q.close() })
  return q
}

/** A queue working `handlers`, recording final failures; `sentinel` jobs mark "everything before ran". */
export async function worker (h: QueueHarness, handlers: Handlers, concurrency = 1) {
  const q = await open(h)
  const failures: Array<JobFailure<Record<string, unknown>>> = []
  let sentinels = 0
  await q.work({ ...handlers, sentinel: async () => { sentinels++ } }, {
    concurrency,
    onFailed: async (f) => { failures.push(f) }
  })
  return {
    q,
    failures,
    /** Runs a job and waits for it: jobs that ran before it have had their chance to run twice. */
    async settle () {
      const seen = sentinels
      await q.enqueue('sentinel', null)
      await until(() => sentinels > seen, 'the sentinel job')
    }
  }
}

/** One case of the contract, given the namespace of a fresh queue of the backend under test. */
export type QueueCase = (harness: () => QueueHarness) => Promise<void>
