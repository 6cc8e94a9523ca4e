// The JobQueue contract's cases for repeatable jobs and long handlers (test/store/queue.contract.ts).
import { expect } from 'vitest'
import type { JobInfo } from '../../core/ports/queue.js'
import { deferred, open, until, worker, type Handlers, type QueueCase } from './queue-harness.js'

// Repeatable jobs (core/ports/queue.ts repeat()): the periodic work of bin/serve.ts, once per period in a cluster.
const PERIOD_MS = 300

/**
 * No period ran twice: at no time since the job was declared have more runs started than periods began (a run due
 * at once, then one per period). Each due time follows the previous one by a period at least, so the k-th run
 * (from 0) cannot start before k - 1 periods have passed, however late the runs start on a loaded machine; gaps
 * between runs say nothing, since a late run's successor may be due at once.
 */
function expectOncePerPeriod (starts: number[], declared: number): void {
  const early = starts.map((t, k) => ({ k, after: t - declared })).filter(({ k, after }) => after < (k - 1) * PERIOD_MS)
  expect(early, `runs started ahead of the periods (ms after the declaration): ${starts.map((t) => t - declared).join(', ')}`).toEqual([])
}

export const REPEAT_CASES: Record<string, QueueCase> = {
  'runs a repeatable job about every period with its payload, even after a run that threw': async (harness) => {
    const h = harness()
    const runs: Array<{ at: number, payload: unknown, job: JobInfo }> = []
    const { q, failures } = await worker(h, {
      tick: async (payload, job) => {
        runs.push({ at: Date.now(), payload, job })
        if (runs.length === 1) throw new Error('sweep failed') // reported to onError; the next period runs all the same
      }
    })
    const declared = Date.now()
    await q.repeat('tick', PERIOD_MS, { sweep: 'timeouts' })
    await until(() => runs.length >= 4, 'four runs')
    const elapsed = (runs[3]?.at ?? 0) - declared
    // The first run is due at once, the next three one period apart each.
    expect(elapsed).toBeGreaterThanOrEqual(3 * PERIOD_MS - 30)
    expect(elapsed).toBeLessThan(3 * PERIOD_MS + 1500)
    expectOncePerPeriod(runs.map((r) => r.at), declared)
    expect(runs[0]?.payload).toEqual({ sweep: 'timeouts' })
    expect(runs[0]?.job).toEqual({ id: 'repeat:tick', name: 'tick', attempt: 1, attempts: 1 })
    expect(failures).toEqual([])
    await expect(q.repeat('tick', 0, null)).rejects.toThrow(RangeError)
  },

  'runs a repeatable job declared by two queues (two processes) once per period between them': async (harness) => {
    const h = harness()
    const starts: number[] = []
    const byQueue = { a: 0, b: 0 }
    const a = await open(h)
    const b = await open(h)
    await a.work({ tick: async () => { starts.push(Date.now()); byQueue.a++ } }, { concurrency: 2 })
    await b.work({ tick: async () => { starts.push(Date.now()); byQueue.b++ } }, { concurrency: 2 })
    const declared = Date.now()
    await Promise.all([a.repeat('tick', PERIOD_MS, null), b.repeat('tick', PERIOD_MS, null)])
    await until(() => Date.now() - declared >= 8 * PERIOD_MS, 'eight periods', 20_000)
    await a.close()
    await b.close()
    const elapsed = Date.now() - declared
    expectOncePerPeriod(starts, declared)
    expect(starts.length).toBeLessThanOrEqual(Math.floor(elapsed / PERIOD_MS) + 1)
    expect(starts.length).toBeGreaterThanOrEqual(5)
  },

  'stops running a repeatable job in a queue once it is closed': async (harness) => {
    const h = harness()
    let runs = 0
    const q = await open(h)
    await q.work({ tick: async () => { runs++ } }, { concurrency: 1 })
    await q.repeat('tick', PERIOD_MS, null)
    await until(() => runs >= 2, 'two runs')
    await q.close()
    const seen = runs
    // The job lives on in the store or Redis: another process's queue carries on with it. Three of its runs are
    // three periods gone by since the close, none of them in the closed queue.
    let carried = 0
    const other = await open(h)
    await other.work({ tick: async () => { carried++ } }, { concurrency: 1 })
    await until(() => carried >= 3, 'three runs in the other queue')
    expect(runs).toBe(seen)
  },

  'does not duplicate a repeatable job declared again at a restart': async (harness) => {
    const h = harness()
    const starts: number[] = []
    const handlers: Handlers = { tick: async () => { starts.push(Date.now()) } }
    const first = await open(h)
    await first.work(handlers, { concurrency: 1 })
    const declared = Date.now()
    await first.repeat('tick', PERIOD_MS, null)
    await until(() => starts.length >= 2, 'two runs')
    await first.close()
    // The restart: a new queue declares the job again (twice: a start that declares it more than once).
    const restarted = await open(h)
    await restarted.repeat('tick', PERIOD_MS, null)
    await restarted.repeat('tick', PERIOD_MS, null)
    await restarted.work(handlers, { concurrency: 2 })
    const before = starts.length
    const from = Date.now()
    await until(() => Date.now() - from >= 5 * PERIOD_MS, 'five periods', 20_000)
    await restarted.close()
    expectOncePerPeriod(starts, declared)
    expect(starts.length - before).toBeGreaterThanOrEqual(3)
    expect(starts.length - before).toBeLessThanOrEqual(6)
  },

  'keeps the lease of a handler that runs longer than it: the job runs once': async (harness) => {
    const h = harness()
    let runs = 0
    let done = false
    const started = deferred()
    const leasePassed = deferred()
    const handlers: Handlers = {
      // The first run lasts until the marker below has run; a second run, should the job be claimed again, ends at
      // once, to be counted rather than to hold the other worker too.
      long: async () => {
        runs++
        if (runs > 1) return
        started.resolve()
        await leasePassed.promise
        done = true
      },
      // Due two and a half leases after the long run took its lease, and run by the worker left free: a lease not
      // renewed would have passed before, and that worker, polling all along, would have claimed the long job first.
      marker: async () => { leasePassed.resolve() }
    }
    const a = await open(h)
    const b = await open(h)
    await a.work(handlers, { concurrency: 1 })
    await b.work(handlers, { concurrency: 1 })
    await a.enqueue('long', null)
    await started.promise
    await a.enqueue('marker', null, { runAt: Date.now() + h.leaseMs * 2.5 })
    await until(() => done, 'the long job', 20_000)
    await a.close()
    await b.close()
    expect(runs).toBe(1)
  }
}
