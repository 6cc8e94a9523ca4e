// First run and everyday use of the real command line (docs/cli.md#command-line): a start that fails says so in one
// line naming the variable to change and creates nothing; the embedded store has one process at a time; a lost
// administrator password can be replaced. Child processes, real ports, stores on disk or on PostgreSQL.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { verifyPassword } from '../../core/security/secrets.js'
import { fleetCommand, freePort, runFleet, spawnFleet, type Child, type Exit } from '../helpers/child.js'
import { bothStoreKinds, inspect, quiet, type Store } from '../helpers/cli-stores.js'
import { TEST_DATABASE_URL, databaseUrl } from '../helpers/env.js'

/** A port held by another server for the rest of the test. */
async function busyPort (): Promise<number> {
  const server: Server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  onTestFinished(async () => { server.close(); await once(server, 'close') })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function startServe (store: Store, env: Record<string, string> = {}): Promise<{ child: Child, port: number }> {
  const port = await freePort()
  const child = spawnFleet(['serve'], { ...store.env, ...quiet, HTTP_PORT: String(port), LOG_LEVEL: 'info', ...env })
  await child.waitForLine(/fleet service started/)
  return { child, port }
}

/** A failure a user can fix: exit 1, one line on stderr, no stack trace, nothing on stdout that looks like a secret. */
function expectOneLine (r: Exit & { stdout: string, stderr: string }, line: RegExp): void {
  expect(r.code, r.stderr).toBe(1)
  expect(r.stderr.split('\n').filter((l) => l !== ''), r.stderr).toHaveLength(1)
  expect(r.stderr.trim()).toMatch(line)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect(r.stdout).not.toMatch(/password|secret/i)
}

/** The companies of the store; 0 when it was never migrated either (a start refused for a busy port opens nothing). */
const companies = async (db: Db): Promise<number> => {
  if ((await db.query<{ t: string | null }>("SELECT to_regclass('companies')::text AS t")).rows[0]?.t == null) return 0
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]?.n ?? -1
}
const adminHash = async (db: Db): Promise<string | null> =>
  (await db.query<{ h: string | null }>("SELECT password_hash AS h FROM users WHERE email = 'admin@fleet.local'")).rows[0]?.h ?? null

const SEED = { companies: [{ name: 'Acme' }] }

describe.each(bothStoreKinds())('first run on %s', { timeout: 300_000 }, (kind, makeStore) => {
  let store: Store | undefined
  let seedFile = ''
  beforeAll(async () => {
    store = await makeStore()
    seedFile = join(await mkdtemp(join(tmpdir(), 'fleet-seed-')), 'seed.json')
    await writeFile(seedFile, JSON.stringify(SEED))
  })
  afterAll(async () => { await store?.drop() })
  const theStore = (): Store => { if (store === undefined) throw new Error('no store'); return store }

  it('a busy MQTT or HTTP port stops the first start with one line naming the variable and creates nothing; the next start prints the credentials', async () => {
    const busy = await busyPort()
    const mqttBusy = await runFleet(['serve'], { ...theStore().env, ...quiet, HTTP_PORT: String(await freePort()), MQTT_PORT: String(busy) })
    expectOneLine(mqttBusy, new RegExp(`^fleet: MQTT_PORT ${busy} is already in use .*: set MQTT_PORT to a free port$`, 'm'))
    const httpBusy = await runFleet(['serve'], { ...theStore().env, ...quiet, HTTP_PORT: String(busy) })
    expectOneLine(httpBusy, new RegExp(`^fleet: HTTP_PORT ${busy} is already in use .*: set HTTP_PORT to a free port$`, 'm'))
    expect(await inspect(theStore(), companies)).toBe(0)

    const { child } = await startServe(theStore())
    expect(child.stdout()).toMatch(/administrator password \(shown once\): \S+/)
    expect(child.stdout()).toMatch(/client secret \(shown once\): +\S+/)
    expect(child.stdout()).toMatch(/http:\/\/localhost:\d+\/console\//)
    child.signal('SIGTERM')
    expect(await child.exited()).toEqual({ code: 0, signal: null })
  })

  it('admin reset-password gives a user a new password, printed once; an unknown e-mail is one line and exit 1', async () => {
    const before = await inspect(theStore(), adminHash)
    expect(before).not.toBeNull()
    const r = await runFleet(['admin', 'reset-password', 'admin@fleet.local'], { ...theStore().env, ...quiet })
    expect(r).toMatchObject({ code: 0, stderr: '' })
    const password = /^new password of admin@fleet\.local \(shown once\): (\S+)$/m.exec(r.stdout)?.[1] ?? ''
    expect(password).toMatch(/^[\w-]{12,}$/)
    const after = await inspect(theStore(), adminHash)
    expect(after).not.toBe(before)
    expect(await verifyPassword(password, after)).toBe(true)

    expectOneLine(await runFleet(['admin', 'reset-password', 'nobody@fleet.local'], { ...theStore().env, ...quiet }), /^fleet: no user has the e-mail "nobody@fleet\.local"$/)
    expectOneLine(await runFleet(['admin', 'frobnicate'], { ...theStore().env, ...quiet }), /^fleet: usage: fleet admin reset-password <email> \| fleet admin unlock <email>$/)
  })

  it('admin unlock stores when the user\'s sign-in counters were cleared (every process keys them by it); an unknown e-mail is one line and exit 1', async () => {
    const unlockedAt = async (db: Db): Promise<number | undefined> =>
      (await db.query<{ at: string }>('SELECT unlocked_at AS at FROM sign_in_unlocks')).rows.map((r) => Number(r.at))[0]
    const before = Date.now()
    const r = await runFleet(['admin', 'unlock', 'Admin@Fleet.local'], { ...theStore().env, ...quiet })
    expect(r).toMatchObject({ code: 0, stderr: '', stdout: 'sign-in of Admin@Fleet.local unlocked: its failed tries from every address are forgotten\n' })
    expect(await inspect(theStore(), unlockedAt)).toBeGreaterThanOrEqual(before)
    expectOneLine(await runFleet(['admin', 'unlock', 'nobody@fleet.local'], { ...theStore().env, ...quiet }), /^fleet: no user has the e-mail "nobody@fleet\.local"$/)
  })

  if (kind.startsWith('PGlite')) {
    it('a second process on the same DATA_DIR fails at once, naming the holder and what to do; the store stays whole', async () => {
      const { child } = await startServe(theStore())
      const r = await runFleet(['seed', seedFile], { ...theStore().env, ...quiet })
      // The holder's command line as that process saw it: node and the script the test started (the build here).
      const script = (fleetCommand().at(-1) ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      expectOneLine(r, new RegExp(`^fleet: the embedded store in ${theStore().env.DATA_DIR ?? ''} is in use by process ${child.proc.pid ?? 0} ` +
        `\\(node ${script} serve, since [^)]+\\): stop that process, or give this one another DATA_DIR, or set DATABASE_URL so that several processes share a PostgreSQL store$`))
      child.signal('SIGTERM')
      expect(await child.exited()).toEqual({ code: 0, signal: null })

      // Released on exit: the same seed now runs, and what it wrote is there for the next process.
      expect(await runFleet(['seed', seedFile], { ...theStore().env, ...quiet })).toMatchObject({ code: 0, stderr: '' })
      expect(await inspect(theStore(), companies)).toBe(2)
      expect(existsSync(join(theStore().env.DATA_DIR ?? '', 'pglite.lock'))).toBe(false)
    })

    it('a lock left by a process that died is taken over', async () => {
      const dead = spawn(process.execPath, ['-e', ''])
      await once(dead, 'exit')
      const lock = join(theStore().env.DATA_DIR ?? '', 'pglite.lock')
      await mkdir(theStore().env.DATA_DIR ?? '', { recursive: true })
      await writeFile(lock, JSON.stringify({ pid: dead.pid, command: 'node bin/fleet.mjs serve', host: '', since: '2026-01-01T00:00:00.000Z' }))
      const r = await runFleet(['migrate'], { ...theStore().env, ...quiet })
      expect(r).toMatchObject({ code: 0, stderr: '', stdout: 'migrations: up to date\n' })
      expect(existsSync(lock)).toBe(false)

      // SIGKILL leaves the lock behind: the next start takes it over.
      const { child } = await startServe(theStore())
      child.signal('SIGKILL')
      await child.exited()
      expect(existsSync(lock)).toBe(true)
      expect(await runFleet(['migrate'], { ...theStore().env, ...quiet })).toMatchObject({ code: 0, stderr: '' })
    })
  } else {
    it('with DATABASE_URL several processes share the store: a seed runs while the service serves', async () => {
      const { child } = await startServe(theStore())
      expect(await runFleet(['seed', seedFile], { ...theStore().env, ...quiet })).toMatchObject({ code: 0, stderr: '' })
      child.signal('SIGTERM')
      expect(await child.exited()).toEqual({ code: 0, signal: null })
      expect(await inspect(theStore(), companies)).toBe(2)
    })
  }
})

describe('start failures on PostgreSQL and Redis', { timeout: 120_000 }, () => {
  const dataDir = join(tmpdir(), 'fleet-never-created')
  afterAll(async () => { await rm(dataDir, { recursive: true, force: true }) })

  it('PostgreSQL down: one line naming DATABASE_URL, the password masked', async () => {
    const closed = await freePort()
    const r = await runFleet(['serve'], { ...quiet, DATA_DIR: dataDir, DATABASE_URL: `postgres://fleet:s3cret-pw@127.0.0.1:${closed}/fleet` })
    expectOneLine(r, new RegExp(`^fleet: cannot reach PostgreSQL at postgres://fleet:\\*\\*\\*@127\\.0\\.0\\.1:${closed}/fleet \\(.*ECONNREFUSED.*\\): ` +
      'start the server, or set DATABASE_URL to one that runs$'))
    expect(r.stderr + r.stdout).not.toContain('s3cret-pw')
    const migrate = await runFleet(['migrate'], { ...quiet, DATA_DIR: dataDir, DATABASE_URL: `postgres://fleet:s3cret-pw@127.0.0.1:${closed}/fleet` })
    expectOneLine(migrate, /^fleet: cannot reach PostgreSQL at postgres:\/\/fleet:\*\*\*@/)
  })

  it('Redis down: one line naming REDIS_URL, the password masked', async () => {
    const closed = await freePort()
    const r = await runFleet(['serve'], { ...quiet, DATA_DIR: dataDir, REDIS_URL: `redis://:s3cret-pw@127.0.0.1:${closed}` })
    expectOneLine(r, new RegExp(`^fleet: cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${closed} \\(.*ECONNREFUSED.*\\): ` +
      'start the server, or set REDIS_URL to one that runs \\(unset: counters and jobs in this process\\)$'))
    expect(r.stderr + r.stdout).not.toContain('s3cret-pw')
  })

  // A server must answer for "no such database": in CI it does (the suite fails rather than skips).
  if (TEST_DATABASE_URL !== undefined || process.env.CI === 'true') {
    it('a missing database: one line naming DATABASE_URL, the password masked', async () => {
      const u = new URL(databaseUrl(TEST_DATABASE_URL ?? '', 'does_not_exist'))
      u.password = 's3cret-pw'
      const r = await runFleet(['serve'], { ...quiet, DATA_DIR: dataDir, DATABASE_URL: u.toString() })
      expectOneLine(r, /^fleet: PostgreSQL at postgres:\/\/[^:]+:\*\*\*@[^/]+\/does_not_exist: database "does_not_exist" does not exist: create it \(createdb\), or set DATABASE_URL to an existing database$/)
      expect(r.stderr).not.toContain('s3cret-pw')
    })
  }
})
