// The job queue port of the operations engine (docs/decisions/0019-operations-engine-and-device-tasks.md,
// docs/architecture.md#one-process-by-default-scaled-out-by-environment): a jobs table in the store by default
// (storage/queue/local-queue.ts), BullMQ on Redis when REDIS_URL is set (storage/queue/bullmq-queue.ts). Both pass
// test/store/queue.contract.ts.
//
// Delivery is at least once: a job whose worker dies is run again, so handlers must be idempotent.
// Error contract (§2.7): a handler throwing a FleetError fails the job for good at once (a business failure
// such as operation.on.system.missing.comm.identifiers); any other error is transient and the job is retried
// with exponential backoff until its attempts are spent.
import { isFleetError } from '../errors.js'

/** The payload type of every job name: `{ 'operation.task': { operationUid: string, systemUid: string } }`. */
export type JobPayloadMap = object

/** The job names of a payload map. */
export type JobName<P extends JobPayloadMap> = keyof P & string

/** What a handler learns about the job it runs. */
export interface JobInfo {
  /** The id given to enqueue, or one the queue made up. */
  id: string
  name: string
  /** 1 on the first run, 2 on the first retry, and so on (a run cut short by a dead worker counts). */
  attempt: number
  /** The most runs this job gets (EnqueueOptions.attempts). */
  attempts: number
}

/** Runs one job. Resolving completes the job; throwing fails this attempt (see the error contract above). */
export type JobHandler<T = unknown> = (payload: T, job: JobInfo) => Promise<void>

/** One handler per job name. */
export type JobHandlers<P extends JobPayloadMap> = { [N in JobName<P>]: JobHandler<P[N]> }

export interface EnqueueOptions {
  /**
   * Makes the enqueue idempotent: while a job with this id is waiting, delayed or running, another enqueue
   * with the same id does nothing. Once the job has finished (completed or failed) the id is free again.
   * Any string; ids derived from the operation and system uids are the intended use.
   */
  jobId?: string
  /** Epoch ms before which the job does not start (a delayed job). Absent or past: as soon as possible. */
  runAt?: number
  /** The most runs of the job, the first included (default DEFAULT_ATTEMPTS). */
  attempts?: number
}

/** A job that failed for good: a permanent error, or a transient one on its last attempt. */
export type JobFailure<P extends JobPayloadMap> = { [N in JobName<P>]: {
  /** The job name (job.name), here too so that a check on it narrows the payload's type. */
  name: N
  job: JobInfo
  payload: P[N]
  error: unknown
  /** True when the handler threw a FleetError (or no handler exists): the job was not retried. */
  permanent: boolean
} }[JobName<P>]

export interface WorkOptions<P extends JobPayloadMap> {
  /** At most this many handlers run at once in this process. */
  concurrency: number
  /**
   * Called once when a job fails for good, before the queue forgets it, so the engine can record the
   * failure (for instance the error code on the task). It runs in the job's slot; should the process die
   * before the queue forgets the job, the job runs again, so this hook must be idempotent too. An error it
   * throws goes to the queue's onError and the job is forgotten all the same (the engine's timeout sweeper
   * is the safety net for such tasks).
   */
  onFailed?: (failure: JobFailure<P>) => Promise<void>
}

/** A queue of named jobs with JSON payloads. */
export interface JobQueue<P extends JobPayloadMap = Record<string, unknown>> {
  /**
   * Adds a job; it is durable once this resolves. The payload must survive JSON (it is stored as JSON).
   * It takes no part in a store transaction: call it after the commit (on PGlite, a call from inside
   * db.transaction waits for that transaction to end, a deadlock). A crash between the commit and the
   * enqueue is the caller's to repair, which an idempotent jobId makes safe.
   * @throws the store's or Redis's error when the job could not be stored; RangeError on attempts < 1
   */
  enqueue<N extends JobName<P>>(name: N, payload: P[N], opts?: EnqueueOptions): Promise<void>
  /**
   * Removes a waiting or delayed job (an operation cancelled before its task started).
   * A running job is not interrupted. Answers true when a job was removed.
   */
  remove (jobId: string): Promise<boolean>
  /** Jobs in the queue now, for metrics: due and waiting for a worker, delayed (runAt or a retry's backoff), running. */
  depth (): Promise<QueueDepth>
  /**
   * Declares a repeatable job (periodic work: the sweepers of bin/serve.ts): `name` runs with `payload` about
   * every `everyMs`, first as soon as it is declared, then one period after the previous run was due. Every
   * queue instance on the namespace (every process of a cluster) may declare it: it is one job, run once per
   * period by one of the workers, so a restart or a second process declaring it again does not duplicate it
   * (the period and payload of the last declaration apply). A run that throws is reported to the queue's
   * onError and not retried: the next period is its retry (onFailed is not called). It lives in the store or
   * Redis, not in the instance: closing a queue stops this process's runs; the others carry on.
   * @throws RangeError on everyMs that is not an integer ≥ 1
   */
  repeat<N extends JobName<P>>(name: N, everyMs: number, payload: P[N]): Promise<void>
  /** Starts working in this process; resolves once the worker is running. Call at most once. */
  work (handlers: JobHandlers<P>, opts: WorkOptions<P>): Promise<void>
  /** Stops taking jobs, waits for the running handlers and releases the queue's own resources. Idempotent. */
  close (): Promise<void>
}

export interface QueueDepth { waiting: number, delayed: number, active: number }

/** The id of the one job a repeatable job name stands for (JobInfo.id of its runs). */
export const repeatJobId = (name: string): string => `repeat:${name}`

/** repeat()'s check of its period, the same in every adapter. */
export function checkPeriod (everyMs: number): void {
  if (!Number.isInteger(everyMs) || everyMs < 1) throw new RangeError(`everyMs must be an integer ≥ 1, got ${everyMs}`)
}

/** Attempts of a job when EnqueueOptions.attempts is absent. */
export const DEFAULT_ATTEMPTS = 5

/** The error contract of §2.7: a FleetError is a permanent failure, anything else is worth a retry. */
export function isPermanentJobError (err: unknown): boolean {
  return isFleetError(err)
}

/** Delay before the retry that follows failed attempt number `attempt` (1-based): base, 2·base, 4·base… */
export function backoffDelay (attempt: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attempt - 1)
}
