// One run of a claimed job of the local queue (storage/queue/local-queue.ts): the handler under a renewed lease, then
// the row deleted (done, or failed for good after onFailed), put back for a retry with backoff, or, for a repeatable
// job, moved to its next period.
import type { Clock } from '../../core/ports/store.js'
import { isPermanentJobError, type JobFailure, type JobHandler, type JobInfo, type JobPayloadMap, type WorkOptions } from '../../core/ports/queue.js'
import type { Claimed, JobRows } from './local-queue-rows.js'

export interface RunnerOptions<P extends JobPayloadMap> {
  handlers: Record<string, JobHandler | undefined>
  work: WorkOptions<P>
  leaseMs: number
  clock: Clock
  onError: (err: unknown) => void
}

export function createJobRunner<P extends JobPayloadMap> (rows: JobRows, o: RunnerOptions<P>): (row: Claimed) => Promise<void> {
  const { handlers, work, leaseMs, clock, onError } = o

  /** Renews the lease a third of the way through it while fn runs. */
  async function leased<T> (row: Claimed, fn: () => Promise<T>): Promise<T> {
    const heartbeat = setInterval(() => {
      rows.renew(row).then((held) => {
        if (!held) onError(new Error(`job ${row.id}: lease lost, another worker may run it again`))
      }).catch(onError)
    }, Math.max(1, Math.floor(leaseMs / 3)))
    try { return await fn() } finally { clearInterval(heartbeat) }
  }

  async function fail (row: Claimed, job: JobInfo, error: unknown, permanent: boolean): Promise<void> {
    if (work.onFailed !== undefined) {
      const failure = { name: job.name, job, payload: row.payload, error, permanent } as JobFailure<P>
      await work.onFailed(failure).catch(onError)
    }
    await rows.forget(row)
  }

  // One run of a repeatable job; whatever its outcome, the row waits for the next period (core/ports/queue.ts repeat()).
  // A run whose worker died is run again once its lease has passed, like any job, within the same period.
  async function runRepeat (row: Claimed, everyMs: number): Promise<void> {
    const handler = handlers[row.name]
    await leased(row, async () => {
      if (handler === undefined) throw new Error(`no handler for job ${row.name}`)
      await handler(row.payload, { id: row.id, name: row.name, attempt: 1, attempts: 1 })
    }).catch(onError)
    // The next due time follows the previous one (a steady period), but never lies in the past: a queue that was
    // down for a while runs the job once, not once per missed period.
    await rows.reschedule(row, Math.max(Number(row.run_at) + everyMs, clock.now()))
  }

  return async function runJob (row) {
    if (row.repeat_every_ms !== null) return await runRepeat(row, Number(row.repeat_every_ms))
    const job: JobInfo = { id: row.id, name: row.name, attempt: row.attempt, attempts: row.max_attempts }
    // The previous run was the last one and its worker died: the attempts are spent.
    if (row.attempt > row.max_attempts) {
      return await fail(row, job, new Error(`job ${row.id}: the worker of its last attempt died`), false)
    }
    const handler = handlers[row.name]
    let error: unknown
    let ok = false
    await leased(row, async () => {
      try {
        if (handler === undefined) throw new Error(`no handler for job ${row.name}`)
        await handler(row.payload, job)
        ok = true
      } catch (err) { error = err }
    })
    if (ok) return await rows.forget(row)
    const permanent = handler === undefined || isPermanentJobError(error)
    if (permanent || row.attempt >= row.max_attempts) return await fail(row, job, error, permanent)
    await rows.retry(row, error)
  }
}
