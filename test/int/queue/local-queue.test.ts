// What the local queue (storage/queue/local-queue.ts) promises beyond the JobQueue contract: low latency
// without hammering the store, rows gone once jobs finish, errors that cannot reach a caller, and openQueue's choice
// of adapter without Redis. A worker killed with SIGKILL and BullMQ on Redis: test/slow/queue-on-servers.test.ts.
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import type { JobQueue } from '../../../core/ports/queue.js'
import { createLocalQueue, type LocalQueueOptions } from '../../../storage/queue/local-queue.js'
import { openQueue } from '../../../storage/queue/open-queue.js'
import { until } from '../../store/queue.contract.js'
import { createTestDb, type TestDb } from '../../helpers/test-db.js'
import { eventually } from '../../helpers/eventually.js'

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
  let found: Array<Record<string, unknown>> = []
  return await eventually(async () => {
    found = await rows(queue)
    return check(found) ? found : undefined
  }, { timeoutMs: 10_000, intervalMs: 5, what, seen: () => JSON.stringify(found) })
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
})
