// The JobQueue contract's cases for jobs run once or retried (test/store/queue.contract.ts).
import { expect } from 'vitest'
import { FleetError } from '../../core/errors.js'
import type { JobInfo } from '../../core/ports/queue.js'
import { deferred, open, until, worker, type Handlers, type QueueCase } from './queue-harness.js'

export const JOB_CASES: Record<string, QueueCase> = {
  'runs a job once with its payload and its info': async (harness) => {
    const h = harness()
    const runs: Array<{ payload: unknown, job: JobInfo }> = []
    const { q, settle } = await worker(h, { greet: async (payload, job) => { runs.push({ payload, job }) } })
    await q.enqueue('greet', { to: 'world', n: [1, 2] }, { jobId: 'operation.task:op-1:sys-1' })
    await until(() => runs.length === 1, 'the job')
    await settle()
    expect(runs).toEqual([{ payload: { to: 'world', n: [1, 2] }, job: { id: 'operation.task:op-1:sys-1', name: 'greet', attempt: 1, attempts: 5 } }])
  },

  'carries JSON payloads of every kind and makes up an id when none is given': async (harness) => {
    const h = harness()
    const seen: unknown[] = []
    const ids: string[] = []
    const { q } = await worker(h, { echo: async (payload, job) => { seen.push(payload); ids.push(job.id) } })
    for (const payload of ['text', 42, null, [1, 'a'], { nested: { ok: true } }]) await q.enqueue('echo', payload)
    await until(() => seen.length === 5, 'five jobs')
    expect(seen).toEqual(expect.arrayContaining(['text', 42, null, [1, 'a'], { nested: { ok: true } }]))
    expect(new Set(ids).size).toBe(5)
    expect(ids.every((id) => id.length > 0)).toBe(true)
  },

  'ignores a second enqueue with the id of a job that still exists, and frees the id once it finished': async (harness) => {
    const h = harness()
    const q = await open(h)
    await q.enqueue('count', { v: 1 }, { jobId: 'same:id' })
    await q.enqueue('count', { v: 2 }, { jobId: 'same:id' })
    const seen: unknown[] = []
    const { settle } = await worker(h, { count: async (payload) => { seen.push(payload) } })
    await until(() => seen.length >= 1, 'the job')
    await settle()
    expect(seen).toEqual([{ v: 1 }])
    await q.enqueue('count', { v: 3 }, { jobId: 'same:id' })
    await until(() => seen.length >= 2, 'the job enqueued again')
    expect(seen).toEqual([{ v: 1 }, { v: 3 }])
  },

  'does not start a delayed job before its runAt, and starts it after': async (harness) => {
    const h = harness()
    const ran: Record<string, number> = {}
    const { q } = await worker(h, { at: async (payload) => { ran[payload as string] = Date.now() } })
    const runAt = Date.now() + 700
    await q.enqueue('at', 'late', { runAt })
    await q.enqueue('at', 'now')
    await until(() => ran.now !== undefined, 'the job without delay')
    expect(ran.late).toBeUndefined()
    await until(() => ran.late !== undefined, 'the delayed job')
    expect(ran.late).toBeGreaterThanOrEqual(runAt)
  },

  'retries a job that throws an ordinary error, with growing delays, until it succeeds': async (harness) => {
    const h = harness()
    const attempts: Array<{ attempt: number, at: number }> = []
    let done = false
    const { failures } = await worker(h, {
      flaky: async (_payload, job) => {
        attempts.push({ attempt: job.attempt, at: Date.now() })
        if (job.attempt < 3) throw new Error('store busy')
        done = true
      }
    })
    const q = await open(h)
    await q.enqueue('flaky', null, { attempts: 4 })
    await until(() => done, 'the third attempt')
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
    expect(failures).toEqual([])
    // Exponential backoff: at least base, then 2·base between starts (a few ms of clock slack).
    const [a1, a2, a3] = attempts.map((a) => a.at) as [number, number, number]
    expect(a2 - a1).toBeGreaterThanOrEqual(h.backoffMs - 5)
    expect(a3 - a2).toBeGreaterThanOrEqual(2 * h.backoffMs - 5)
  },

  'fails a job that throws a FleetError at once: not retried, reported as a permanent failure': async (harness) => {
    const h = harness()
    let runs = 0
    const { q, failures, settle } = await worker(h, {
      task: async () => { runs++; throw new FleetError('operation.on.system.missing.comm.identifiers', ['sys-1']) }
    })
    await q.enqueue('task', { systemUid: 'sys-1' }, { jobId: 'task-1' })
    await until(() => failures.length === 1, 'the failure')
    await settle()
    expect(runs).toBe(1)
    expect(failures).toHaveLength(1)
    const [f] = failures
    expect(f?.permanent).toBe(true)
    expect(f?.name).toBe('task')
    expect(f?.job).toEqual({ id: 'task-1', name: 'task', attempt: 1, attempts: 5 })
    expect(f?.payload).toEqual({ systemUid: 'sys-1' })
    expect(f?.error).toBeInstanceOf(FleetError)
    expect((f?.error as FleetError).code).toBe('operation.on.system.missing.comm.identifiers')
  },

  'reports a job as failed once its attempts are spent': async (harness) => {
    const h = harness()
    const seen: number[] = []
    const { q, failures, settle } = await worker(h, { doomed: async (_p, job) => { seen.push(job.attempt); throw new Error(`boom ${job.attempt}`) } })
    await q.enqueue('doomed', 'x', { attempts: 3, jobId: 'doomed-1' })
    await until(() => failures.length === 1, 'the failure')
    await settle()
    expect(seen).toEqual([1, 2, 3])
    expect(failures[0]?.permanent).toBe(false)
    expect(failures[0]?.job).toMatchObject({ id: 'doomed-1', attempt: 3, attempts: 3 })
    expect((failures[0]?.error as Error).message).toBe('boom 3')
  },

  'reports a job without a handler as a permanent failure': async (harness) => {
    const h = harness()
    const { q, failures } = await worker(h, {})
    await q.enqueue('nobody.handles.this', { a: 1 })
    await until(() => failures.length === 1, 'the failure')
    expect(failures[0]).toMatchObject({ permanent: true, payload: { a: 1 }, job: { name: 'nobody.handles.this', attempt: 1 } })
  },

  'never runs more handlers at once than its concurrency, and runs every one of 200 jobs once': async (harness) => {
    const h = harness()
    const q = await open(h)
    const N = 200
    const counts = new Map<number, number>()
    let active = 0
    let peak = 0
    let started = 0
    // A handler holds its slot until the queue has filled all four (or started the last job): the handlers overlap
    // by construction rather than by the chance of a few ms of work, and a queue that never fills its slots fails.
    let held: Array<() => void> = []
    await Promise.all(Array.from({ length: N }, async (_, i) => { await q.enqueue('n', i) }))
    await q.work({
      n: async (payload) => {
        active++
        started++
        peak = Math.max(peak, active)
        if (active >= 4 || started >= N) {
          for (const release of held) release()
          held = []
        } else await new Promise<void>((resolve) => { held.push(resolve) })
        counts.set(payload as number, (counts.get(payload as number) ?? 0) + 1)
        active--
      }
    }, { concurrency: 4 })
    await until(() => counts.size === N, `${N} jobs`, 30_000)
    expect(peak).toBeLessThanOrEqual(4)
    expect(peak).toBeGreaterThan(1)
    expect([...counts.values()].every((c) => c === 1)).toBe(true)
  },

  'shares the jobs between two workers: each job runs once': async (harness) => {
    const h = harness()
    const counts = new Map<number, number>()
    const handlers: Handlers = { n: async (payload) => { counts.set(payload as number, (counts.get(payload as number) ?? 0) + 1) } }
    const a = await open(h)
    const b = await open(h)
    await a.work(handlers, { concurrency: 3 })
    await b.work(handlers, { concurrency: 3 })
    await Promise.all(Array.from({ length: 60 }, async (_, i) => { await (i % 2 === 0 ? a : b).enqueue('n', i) }))
    await until(() => counts.size === 60, '60 jobs')
    await a.close() // close waits for running handlers: no run is still under way
    await b.close()
    expect([...counts.values()].every((c) => c === 1)).toBe(true)
  },

  'close() waits for running handlers and starts no new job': async (harness) => {
    const h = harness()
    const started: string[] = []
    const finished: string[] = []
    const gate = deferred()
    const q = await open(h)
    await q.work({
      slow: async (payload) => { started.push(payload as string); await gate.promise; finished.push(payload as string) }
    }, { concurrency: 1 })
    await q.enqueue('slow', 'first')
    await until(() => started.length === 1, 'the first job')
    await q.enqueue('slow', 'second')
    let closed = false
    const closing = q.close().then(() => { closed = true })
    // Another worker runs the job the closing queue leaves, and then a job after it: store round trips made after
    // close() began, in which a close() that did not wait for the held handler would have resolved.
    const rest: unknown[] = []
    const other = await worker(h, { slow: async (payload) => { rest.push(payload) } })
    await until(() => rest.length === 1, 'the second job on another worker')
    await other.settle()
    expect(closed).toBe(false)
    await other.q.close()
    // A job that, with no other worker left, the closing queue alone could take once its handler ends: it must not.
    await (await open(h)).enqueue('slow', 'third')
    gate.resolve()
    await closing
    expect(finished).toEqual(['first'])
    expect(started).toEqual(['first'])
    // The third job is still stored: a worker started after runs it.
    const { settle } = await worker(h, { slow: async (payload) => { rest.push(payload) } })
    await until(() => rest.length === 2, 'the third job on a later worker')
    await settle()
    expect(rest).toEqual(['second', 'third'])
  },

  'tells its depth: waiting, delayed and running jobs (the queue depth metric)': async (harness) => {
    const h = harness()
    const q = await open(h)
    expect(await q.depth()).toEqual({ waiting: 0, delayed: 0, active: 0 })
    await q.enqueue('job', 'later', { runAt: Date.now() + 60_000 })
    await q.enqueue('job', 'a')
    await q.enqueue('job', 'b')
    expect(await q.depth()).toEqual({ waiting: 2, delayed: 1, active: 0 })
    const gate = deferred()
    let started = 0
    await q.work({ job: async () => { started++; await gate.promise } }, { concurrency: 1 })
    await until(() => started === 1, 'the first job')
    expect(await q.depth()).toEqual({ waiting: 1, delayed: 1, active: 1 })
    gate.resolve()
    await until(() => started === 2, 'the second job')
  },

  'removes a waiting job, which then never runs, but not a running one': async (harness) => {
    const h = harness()
    const ran: string[] = []
    const gate = deferred()
    const q = await open(h)
    await q.enqueue('job', 'cancelled', { jobId: 'cancel:me', runAt: Date.now() + 60_000 })
    expect(await q.remove('cancel:me')).toBe(true)
    expect(await q.remove('cancel:me')).toBe(false)
    expect(await q.remove('never-enqueued')).toBe(false)
    await q.work({ job: async (payload) => { ran.push(payload as string); if (payload === 'running') await gate.promise } }, { concurrency: 1 })
    await q.enqueue('job', 'running', { jobId: 'busy' })
    await until(() => ran.length === 1, 'the running job')
    expect(await q.remove('busy')).toBe(false)
    gate.resolve()
    await q.enqueue('job', 'after')
    await until(() => ran.length === 2, 'the next job')
    expect(ran).toEqual(['running', 'after'])
  },

  'runs again, once its lease has passed, a job whose worker died while running it': async (harness) => {
    const h = harness()
    const leaseEnd = await h.claimAsDeadWorker('orphan', { k: 'v' }, 'orphan-1')
    const runs: Array<{ at: number, job: JobInfo, payload: unknown }> = []
    const { settle } = await worker(h, { orphan: async (payload, job) => { runs.push({ at: Date.now(), job, payload }) } })
    await until(() => runs.length === 1, 'the orphaned job', 20_000)
    await settle()
    expect(runs).toHaveLength(1)
    expect(runs[0]?.at).toBeGreaterThanOrEqual(leaseEnd)
    expect(runs[0]?.payload).toEqual({ k: 'v' })
    expect(runs[0]?.job).toMatchObject({ id: 'orphan-1', attempt: 2 }) // the dead run counted as attempt 1
  },

  'reports as failed, without running it again, a job whose worker died on its last attempt': async (harness) => {
    const h = harness()
    const leaseEnd = await h.claimAsDeadWorker('orphan', 'p', 'orphan-2', 1)
    let runs = 0
    const { failures, settle } = await worker(h, { orphan: async () => { runs++ } })
    await until(() => failures.length === 1, 'the failure', 20_000)
    await settle()
    expect(runs).toBe(0)
    expect(Date.now()).toBeGreaterThanOrEqual(leaseEnd)
    expect(failures[0]).toMatchObject({ permanent: false, payload: 'p', job: { id: 'orphan-2', name: 'orphan', attempts: 1 } })
  }
}
