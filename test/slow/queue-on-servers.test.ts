// The local queue (storage/queue/local-queue.ts) and openQueue on the servers, beside what test/int/queue/local-queue
// checks on the embedded store: a worker process killed with SIGKILL on PostgreSQL, and openQueue choosing BullMQ when
// given a Redis URL. Each is registered only where its server is configured, or in CI, where its absence must fail:
// never reported as skipped.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createLocalQueue } from '../../storage/queue/local-queue.js'
import { openQueue } from '../../storage/queue/open-queue.js'
import { toBullId } from '../../storage/queue/bullmq-queue.js'
import { until } from '../store/queue.contract.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.js'
import { createTestDb, type TestDb } from '../helpers/test-db.js'

const CI = process.env.CI === 'true' // as in test/store/queue.test.ts: CI never skips the servers

async function rows (store: TestDb, queue: string): Promise<Array<Record<string, unknown>>> {
  return (await store.db.query('SELECT * FROM jobs WHERE queue = $1', [queue])).rows
}

const onPostgres = TEST_DATABASE_URL !== undefined || CI ? describe : undefined
onPostgres?.('local queue on PostgreSQL, worker killed with SIGKILL', () => {
  let store: TestDb
  beforeAll(async () => { store = await createTestDb('postgres') })
  afterAll(async () => { await store?.drop() })

  it('runs the job again once the dead worker\'s lease has passed', async () => {
    if (store.url === undefined) throw new Error('TEST_DATABASE_URL is not set')
    const lease = 1000
    const queue = `q-${randomUUID()}`
    const q = createLocalQueue(store.db, { backoffMs: 20, onError: () => {}, leaseMs: lease, pollMs: 20, queue })
    onTestFinished(async () => { await q.close() })
    await q.enqueue('hang', null, { jobId: 'killed-1' })
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./dead-worker.child.ts', import.meta.url)), store.url, queue, String(lease)],
      { stdio: ['ignore', 'pipe', 'inherit'] })
    onTestFinished(() => { child.kill('SIGKILL') })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    await until(() => out.includes('started killed-1 1'), 'the child to start the job', 20_000)
    child.kill('SIGKILL')
    await once(child, 'exit')
    const [orphan] = await rows(store, queue)
    expect(orphan).toMatchObject({ id: 'killed-1', attempt: 1, locked_by: expect.any(String) })
    let rerun: { at: number, attempt: number } | undefined
    await q.work({ hang: async (_p, job) => { rerun = { at: Date.now(), attempt: job.attempt } } }, { concurrency: 1 })
    await until(() => rerun !== undefined, 'the job on the surviving worker', 10_000)
    expect(rerun?.attempt).toBe(2)
    expect(rerun?.at).toBeGreaterThanOrEqual(orphan?.locked_until as number) // not before the dead lease ended
  })
})

const onRedis = TEST_REDIS_URL !== undefined || CI ? describe : undefined
onRedis?.('openQueue with a Redis URL', () => {
  let store: TestDb
  beforeAll(async () => { store = await createTestDb() })
  afterAll(async () => { await store?.drop() })

  it('opens BullMQ on Redis when a Redis URL is given', async () => {
    if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is not set')
    const prefix = `test-${randomUUID()}`
    const q = await openQueue({ redisUrl: TEST_REDIS_URL, db: store.db, prefix, onError: () => {} })
    const raw = new Queue('jobs', { connection: { url: TEST_REDIS_URL }, prefix })
    onTestFinished(async () => { await q.close(); await raw.obliterate({ force: true }); await raw.close() })
    await q.enqueue('x', { a: 1 }, { jobId: 'j1' })
    const job = await raw.getJob(toBullId('j1'))
    expect(job?.data).toEqual({ a: 1 })
    expect(await rows(store, prefix)).toEqual([])
  })
})
