// What the local queue (storage/queue/local-queue.ts) promises beyond the JobQueue contract: low latency
// without hammering the store, rows gone once jobs finish, errors that cannot reach a caller, a worker
// killed with SIGKILL, and openQueue's choice of adapter.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import type { JobQueue } from '../../../core/ports/queue.js'
import { createLocalQueue, type LocalQueueOptions } from '../../../storage/queue/local-queue.js'
import { openQueue } from '../../../storage/queue/open-queue.js'
import { toBullId } from '../../../storage/queue/bullmq-queue.js'
import { until } from '../../store/queue.contract.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../helpers/env.js'
import { createTestDb, type TestDb } from '../../helpers/test-db.js'

const CI = process.env.CI === 'true' // as in test/store/queue.test.ts: CI never skips the servers

let store: TestDb
beforeAll(async () => { store = await createTestDb() })
afterAll(async () => { await store?.drop() })

function open (opts: LocalQueueOptions & { db?: Db } = {}): { q: JobQueue, queue: string } {
  const queue = opts.queue ?? `q-${randomUUID()}`
  const q = createLocalQueue(opts.db ?? store.db, { backoffMs: 20, onError: () => {}, ...opts, queue })
  onTestFinished(async () => { await q.close() })
  return { q, queue }
}

async function rows (queue: string): Promise<Array<Record<string, unknown>>> {
  return (await store.db.query('SELECT * FROM jobs WHERE queue = $1', [queue])).rows
}

/** Polls the rows of `queue` until check holds; answers them. */
async function rowsWhen (queue: string, check: (rows: Array<Record<string, unknown>>) => boolean, what: string) {
  const deadline = Date.now() + 10_000
  for (;;) {
    const found = await rows(queue)
    if (check(found)) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(found)}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('local queue', () => {
  it('starts a job enqueued in its own process at once, without waiting for the next poll', async () => {
    const { q } = open({ pollMs: 60_000 })
    let ran = false
    await q.work({ now: async () => { ran = true } }, { concurrency: 1 })
    await q.enqueue('now', null)
    await until(() => ran, 'the job, long before the 60 s poll', 5000)
  })

  it('finds by polling a job another process enqueued', async () => {
    const { q, queue } = open({ pollMs: 30 })
    const { q: other } = open({ queue })
    let ran = false
    await q.work({ remote: async () => { ran = true } }, { concurrency: 1 })
    await other.enqueue('remote', null)
    await until(() => ran, 'the job of the other instance')
  })

  it('deletes the row of a completed and of a failed job', async () => {
    const { q, queue } = open()
    let failed = 0
    let ok = 0
    await q.work({ ok: async () => { ok++ }, ko: async () => { throw new Error('no') } },
      { concurrency: 2, onFailed: async () => { failed++ } })
    await q.enqueue('ok', null)
    await q.enqueue('ko', null, { attempts: 1 })
    await until(() => ok === 1 && failed === 1, 'both jobs')
    await rowsWhen(queue, (r) => r.length === 0, 'no row left')
  })

  it('keeps a job to retry with its last error, unlocked and due after the backoff', async () => {
    const { q, queue } = open({ backoffMs: 60_000 })
    let runs = 0
    await q.work({ flaky: async () => { runs++; throw new Error('store busy') } }, { concurrency: 1 })
    const before = Date.now()
    await q.enqueue('flaky', null, { jobId: 'f1', attempts: 3 })
    await until(() => runs === 1, 'the first attempt')
    const [row] = await rowsWhen(queue, (r) => typeof r[0]?.last_error === 'string', 'the retry to be stored')
    expect(row).toMatchObject({ id: 'f1', attempt: 1, max_attempts: 3, locked_until: null, locked_by: null, last_error: 'Error: store busy' })
    expect(row?.run_at as number).toBeGreaterThanOrEqual(before + 60_000)
  })

  it('sends an onFailed that throws to onError and forgets the job all the same', async () => {
    const errors: unknown[] = []
    const { q, queue } = open({ onError: (err) => { errors.push(err) } })
    await q.work({ ko: async () => { throw new Error('no') } }, {
      concurrency: 1,
      onFailed: async () => { throw new Error('recording failed') }
    })
    await q.enqueue('ko', null, { attempts: 1 })
    await until(() => errors.length === 1, 'the onFailed error')
    expect((errors[0] as Error).message).toBe('recording failed')
    await rowsWhen(queue, (r) => r.length === 0, 'no row left')
  })

  it('reports a store that fails while polling to onError and carries on', async () => {
    let failures = 2
    const flaky: Db = {
      ...store.db,
      async query (sql, params) {
        if (sql.includes('FOR UPDATE SKIP LOCKED') && failures-- > 0) throw new Error('connection lost')
        return await store.db.query(sql, params)
      }
    }
    const errors: unknown[] = []
    const { q } = open({ db: flaky, pollMs: 10, onError: (err) => { errors.push(err) } })
    let ran = false
    await q.work({ j: async () => { ran = true } }, { concurrency: 1 })
    await q.enqueue('j', null)
    await until(() => ran, 'the job once the store answers again')
    expect(errors.map((e) => (e as Error).message)).toEqual(['connection lost', 'connection lost'])
  })
})

// Registered only where PostgreSQL is configured (or in CI, where its absence must fail): never reported as skipped.
const onPostgres = TEST_DATABASE_URL !== undefined || CI ? describe : undefined
onPostgres?.('local queue on PostgreSQL, worker killed with SIGKILL', () => {
  it('runs the job again once the dead worker\'s lease has passed', async () => {
    if (store.url === undefined) throw new Error('TEST_DATABASE_URL is not set')
    const lease = 1000
    const { q, queue } = open({ leaseMs: lease, pollMs: 20 })
    await q.enqueue('hang', null, { jobId: 'killed-1' })
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./dead-worker.child.ts', import.meta.url)), store.url, queue, String(lease)],
      { stdio: ['ignore', 'pipe', 'inherit'] })
    onTestFinished(() => { child.kill('SIGKILL') })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    await until(() => out.includes('started killed-1 1'), 'the child to start the job', 20_000)
    child.kill('SIGKILL')
    await once(child, 'exit')
    const [orphan] = await rows(queue)
    expect(orphan).toMatchObject({ id: 'killed-1', attempt: 1, locked_by: expect.any(String) })
    let rerun: { at: number, attempt: number } | undefined
    await q.work({ hang: async (_p, job) => { rerun = { at: Date.now(), attempt: job.attempt } } }, { concurrency: 1 })
    await until(() => rerun !== undefined, 'the job on the surviving worker', 10_000)
    expect(rerun?.attempt).toBe(2)
    expect(rerun?.at).toBeGreaterThanOrEqual(orphan?.locked_until as number) // not before the dead lease ended
  })
})

describe('openQueue', () => {
  it('opens the local queue on the store when no Redis URL is given', async () => {
    const prefix = `p-${randomUUID()}`
    const q = await openQueue({ db: store.db, prefix, onError: () => {} })
    onTestFinished(async () => { await q.close() })
    await q.enqueue('x', { a: 1 }, { jobId: 'j1' })
    expect(await rows(prefix)).toMatchObject([{ id: 'j1', name: 'x', payload: { a: 1 } }])
  })

  it('rejects at once, naming the server, when Redis does not answer', async () => {
    const server = createServer()
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    server.close()
    await once(server, 'close')
    await expect(openQueue({ redisUrl: `redis://127.0.0.1:${port}`, db: store.db, onError: () => {} }))
      .rejects.toThrow(`Redis at 127.0.0.1:${port} does not answer`)
  })

  const onRedis = TEST_REDIS_URL !== undefined || CI ? it : undefined
  onRedis?.('opens BullMQ on Redis when a Redis URL is given', async () => {
    if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is not set')
    const prefix = `test-${randomUUID()}`
    const q = await openQueue({ redisUrl: TEST_REDIS_URL, db: store.db, prefix, onError: () => {} })
    const raw = new Queue('jobs', { connection: { url: TEST_REDIS_URL }, prefix })
    onTestFinished(async () => { await q.close(); await raw.obliterate({ force: true }); await raw.close() })
    await q.enqueue('x', { a: 1 }, { jobId: 'j1' })
    const job = await raw.getJob(toBullId('j1'))
    expect(job?.data).toEqual({ a: 1 })
    expect(await rows(prefix)).toEqual([])
  })
})
