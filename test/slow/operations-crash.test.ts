// An operation survives a crash of the service (docs/operations.md#bulk-operations;
// docs/architecture.md#how-data-flows): the real service runs as a child process (`node bin/fleet.mjs serve`), a label
// operation on 3,000 systems is started, the service is killed with SIGKILL once some but not all tasks are done, and
// restarted on the same store. The operation resumes and finishes with every task SUCCESS, no task lost. Then "applied
// once" is proven with an operation whose effect cannot be applied twice: a bulk delete of the same 3,000 systems is
// killed the same way — a task whose deletion had been committed but that ran again would fail with system.unknown, so
// FINISHED with 3,000 SUCCESS and no FAILURE means each deletion was committed exactly once, together with its task's
// state.
//
// Store: PostgreSQL (a fresh database, DATABASE_URL) with the BullMQ queue (REDIS_URL) when TEST_DATABASE_URL and
// TEST_REDIS_URL are set; else PGlite in DATA_DIR.
import { randomBytes, randomInt } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { pino } from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { loadConfig } from '../../core/config.js'
import { initialSystemData } from '../../core/domain/system-data.js'
import { createContext, openInfra } from '../../bin/context.js'
import type { Child } from '../helpers/child.js'
import { cliService } from '../helpers/cli-service.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL, databaseUrl } from '../helpers/env.js'
import { eventually } from '../helpers/eventually.js'

const SYSTEMS = 3000
const COMPANY = 'Crash Company'
const ADMIN = 'admin@crash.test'
const PASSWORD = 'crash-password'
const CLIENT_ID = 'crash-client'
const CLIENT_SECRET = 'crash-secret'
const CI = process.env.CI === 'true'

interface Store { env: Record<string, string>, drop (): Promise<void> }

async function pgliteStore (): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-opcrash-'))
  return { env: { DATA_DIR: dir }, drop: async () => { await rm(dir, { recursive: true, force: true }) } }
}

/** A fresh empty database (the seeding migrates it); with `redis`, a Redis database of its own for the queue. */
async function postgresStore (redis: boolean): Promise<Store> {
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set')
  const base = TEST_DATABASE_URL
  const name = `fleet_opcrash_${randomBytes(6).toString('hex')}`
  const admin = async (sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: base })
    await c.connect()
    try { await c.query(sql) } finally { await c.end() }
  }
  await admin(`CREATE DATABASE ${name}`)
  const dir = await mkdtemp(join(tmpdir(), 'fleet-opcrash-'))
  const env: Record<string, string> = { DATA_DIR: dir, DATABASE_URL: databaseUrl(base, name) }
  let redisUrl: string | undefined
  if (redis) {
    if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is not set')
    // The service's BullMQ keys have a fixed prefix: a Redis database of its own keeps them apart from others'.
    const u = new URL(TEST_REDIS_URL)
    u.pathname = `/${randomInt(1, 16)}`
    redisUrl = u.toString()
    env.REDIS_URL = redisUrl
  }
  return {
    env,
    drop: async () => {
      if (redisUrl !== undefined) {
        const r = new Redis(redisUrl)
        try {
          for (let cursor = '0'; ;) {
            const [next, keys] = await r.scan(cursor, 'MATCH', 'fleet*', 'COUNT', 1000)
            if (keys.length > 0) await r.del(...keys)
            cursor = next
            if (cursor === '0') break
          }
        } finally { r.disconnect() }
      }
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/**
 * Before the service runs: migrates the store, seeds the company, its administrator and an API client (the
 * service then skips its bootstrap), and inserts the systems in one statement (`fleet seed` makes them one by one).
 */
async function seedStore (env: Record<string, string>): Promise<void> {
  const config = loadConfig({ ...env, REDIS_URL: undefined, LOG_LEVEL: 'silent' })
  const log = pino({ level: 'silent' })
  const infra = await openInfra(config, log)
  const ctx = createContext(config, log, infra)
  try {
    await ctx.services.seed.seed({
      companies: [{ name: COMPANY }],
      profiles: [{ company: COMPANY, name: 'Operator', rights: ['entities.systems.view', 'entities.systems.edit', 'entities.systems.delete'] }],
      users: [{ email: ADMIN, name: 'Crash admin', password: PASSWORD, companies: [{ company: COMPANY, profile: 'Operator', administrator: true }] }],
      clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }]
    })
    const now = Date.now()
    await infra.db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date,
        last_state_change_date)
      SELECT md5('crash' || i), c.uid, 'crash-' || i, 'INVENTORY', 'INVENTORY', 'ACTIVATED', $2::bigint + i, $2::bigint + i
      FROM companies c, generate_series(1, $1::int) AS i WHERE c.name = $3`, [SYSTEMS, now, COMPANY])
    // Their System data as the service writes it at creation (storage/migrations/0024_system_state.sql).
    await infra.db.query(`INSERT INTO system_state (system_uid, data)
      SELECT md5('crash' || i), $2::jsonb FROM generate_series(1, $1::int) AS i`, [SYSTEMS, JSON.stringify(initialSystemData())])
  } finally { await ctx.close() }
}

interface Op { uid: string, state: string, total: number, counters: Array<{ state: string, count: number }>, endDate: number | null }
interface Task { uid: string, system: { uid: string }, state: string, startDate: number | null, endDate: number | null, error: unknown }

const count = (op: Op, state: string): number => op.counters.find((c) => c.state === state)?.count ?? 0

/** A client of the API at `origin`, logged in as the seeded administrator. */
async function connect (origin: string) {
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: ADMIN, password: PASSWORD, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })
  })
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`)
  const token = ((await res.json()) as { access_token: string }).access_token
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
    return await r.json() as T
  }
  return {
    call,
    operation: async (uid: string) => await call<Op>('GET', `/api/v1/operations/${uid}`),
    async tasks (uid: string): Promise<Task[]> {
      const out: Task[] = []
      for (let offset = 0; ; offset += 500) {
        const page = await call<{ items: Task[] }>('GET', `/api/v1/operations/${uid}/tasks?offset=${offset}&size=500`)
        out.push(...page.items)
        if (page.items.length < 500) return out
      }
    },
    async poll (uid: string, ok: (op: Op) => boolean, timeoutMs: number, what: string): Promise<Op> {
      let last: Op | undefined
      return await eventually(async () => {
        last = await call<Op>('GET', `/api/v1/operations/${uid}`)
        return ok(last) ? last : undefined
      }, { timeoutMs, what, seen: () => JSON.stringify(last) })
    }
  }
}

const midway = (op: Op): boolean => op.state === 'IN_PROGRESS' && count(op, 'SUCCESS') > 0 && count(op, 'SUCCESS') <= SYSTEMS / 2
const finished = (op: Op): boolean => op.state === 'FINISHED'

/** Every task SUCCESS exactly once, one per seeded system, dates set; the counters sum to the total. */
async function expectAllSucceeded (api: Awaited<ReturnType<typeof connect>>, op: Op, systems: string[]): Promise<void> {
  expect(op.total).toBe(SYSTEMS)
  expect(Object.fromEntries(op.counters.map((c) => [c.state, c.count]))).toEqual({
    PENDING: 0, IN_PROGRESS: 0, SUCCESS: SYSTEMS, FAILURE: 0, BEING_CANCELLED: 0, CANCELLED: 0
  })
  const tasks = await api.tasks(op.uid)
  expect(tasks).toHaveLength(SYSTEMS)
  expect(new Set(tasks.map((t) => t.uid)).size).toBe(SYSTEMS)
  expect(tasks.map((t) => t.system.uid).sort()).toEqual(systems)
  const wrong = tasks.filter((t) => t.state !== 'SUCCESS' || t.error !== null || t.startDate === null || t.endDate === null || t.endDate > (op.endDate ?? 0))
  expect(wrong).toEqual([])
}

// The slow tier runs once, on the servers when their URLs are set (always in CI): PostgreSQL with the BullMQ queue, as
// a cluster runs; else the embedded store and its queue (test/helpers/cli-stores.ts, storeKinds()).
const onServers = (TEST_DATABASE_URL !== undefined && TEST_REDIS_URL !== undefined) || CI
const kinds: Array<[string, () => Promise<Store>]> = onServers
  ? [['PostgreSQL with BullMQ (REDIS_URL)', async () => await postgresStore(true)]]
  : [['PGlite in DATA_DIR', pgliteStore]]

describe.each(kinds)('SIGKILL of the service during an operation, on %s', (_kind, makeStore) => {
  it(`resumes a label and a bulk delete of ${SYSTEMS} systems: no task lost, none applied twice`, { timeout: 600_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    await seedStore(store.env)
    const service = await cliService(store, { WORKER_CONCURRENCY: '2' }, 120_000)
    const { httpPort } = service
    const serve = service.serve
    const kill = async (child: Child): Promise<void> => {
      child.signal('SIGKILL')
      expect(await child.exited()).toMatchObject({ signal: 'SIGKILL' })
    }
    const origin = `http://127.0.0.1:${httpPort}`

    // 1. A label operation on every system, killed midway.
    let child = await serve()
    let api = await connect(origin)
    const systems = (await api.call<{ count: number, items: Array<{ uid: string }> }>('GET', '/api/v1/systems?size=500&fields=uid'))
    expect(systems.count).toBe(SYSTEMS)
    const all: string[] = []
    for (let offset = 0; offset < SYSTEMS; offset += 500) {
      all.push(...(await api.call<{ items: Array<{ uid: string }> }>('GET', `/api/v1/systems?offset=${offset}&size=500&fields=uid`)).items.map((s) => s.uid))
    }
    all.sort()
    expect(new Set(all).size).toBe(SYSTEMS)

    const { operation: label } = await api.call<{ operation: string }>('POST', '/api/v1/operations/systems/label', { labels: { add: ['crash'] } })
    const atKill = await api.poll(label, (op) => midway(op) || finished(op), 120_000, 'some tasks done')
    await kill(child)
    expect(atKill.state, 'the operation was still running when the service was killed').toBe('IN_PROGRESS')

    // 2. Restarted on the same store: the operation resumes and finishes; then a bulk delete, killed midway.
    child = await serve()
    api = await connect(origin)
    const labelled = await api.poll(label, finished, 180_000, 'the label operation FINISHED')
    await expectAllSucceeded(api, labelled, all)
    expect((await api.call<{ count: number }>('GET', '/api/v1/systems?labels=crash&size=1')).count).toBe(SYSTEMS)

    const { operation: del } = await api.call<{ operation: string }>('POST', '/api/v1/operations/systems/delete', { systems: { label: 'crash' } })
    const delAtKill = await api.poll(del, (op) => midway(op) || finished(op), 120_000, 'some deletions done')
    await kill(child)
    expect(delAtKill.state, 'the delete was still running when the service was killed').toBe('IN_PROGRESS')

    // 3. Restarted again: every deletion done once — a replayed one would be a FAILURE (system.unknown).
    child = await serve()
    api = await connect(origin)
    const deleted = await api.poll(del, finished, 180_000, 'the delete operation FINISHED')
    await expectAllSucceeded(api, deleted, all)
    expect((await api.call<{ count: number }>('GET', '/api/v1/systems?size=1')).count).toBe(0)
    // The first operation is unchanged by all this.
    expect(await api.operation(label)).toEqual(labelled)

    child.signal('SIGTERM')
    expect(await child.exited()).toEqual({ code: 0, signal: null })
  })
})
