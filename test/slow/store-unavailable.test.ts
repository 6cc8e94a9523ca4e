// The PostgreSQL adapter when its connections are lost: terminating the service's backends ended the
// process ("Unhandled 'error' event ... Connection terminated unexpectedly") because a client checked out for a
// transaction had no error listener. Now the transaction rejects with StoreUnavailableError, the broken connection
// leaves the pool and the next statement runs on a new one.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { StoreUnavailableError } from '../../core/store-errors.js'
import { openPostgresDb } from '../../storage/postgres-db.js'
import { TEST_DATABASE_URL } from '../helpers/env.js'
import { openKiller, type Killer } from '../helpers/pg-kill.js'
import { createTestDb, type TestDb } from '../helpers/test-db.js'
import { eventually } from '../helpers/eventually.js'

/** TCP sockets this process holds open: one fewer once pg has seen a terminated backend close its connection. */
const tcpSockets = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length

// PostgreSQL only, registered as test/store/db.test.ts registers its PostgreSQL run: without TEST_DATABASE_URL
// (and outside CI) the suite is absent, not skipped.
if (TEST_DATABASE_URL !== undefined || process.env.CI === 'true') {
  describe('PostgreSQL adapter: lost connections', () => {
    let t: TestDb
    let db: Db
    let admin: pg.Client
    let killer: Killer
    beforeAll(async () => {
      t = await createTestDb('postgres')
      db = t.db
      admin = new pg.Client({ connectionString: t.url, application_name: 'fleet-test-admin' })
      await admin.connect()
      killer = await openKiller(db)
      await db.exec('CREATE TABLE loss_probe (x int)')
    })
    afterAll(async () => {
      await killer.close()
      await admin.end()
      await t.drop()
    })

    /** Terminates one backend and waits until the server has let it go. */
    async function terminate (pid: number): Promise<void> {
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
      await eventually(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0,
        { what: `backend ${pid} to end` })
    }

    /** Waits until the backend runs a statement matching `like`. */
    async function running (pid: number, like: string): Promise<void> {
      await eventually(async () => (await admin.query(
        'SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = \'active\' AND query LIKE $2', [pid, like])).rowCount === 1,
      { what: `backend ${pid} running ${like}` })
    }

    const rows = async (): Promise<number> => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM loss_probe')).rows[0]?.n ?? 0

    it('names its sessions: application_name fleet (a name in the URL wins)', async () => {
      const name = async (d: Db): Promise<string> =>
        (await d.query<{ name: string }>('SELECT current_setting(\'application_name\') AS name')).rows[0]?.name ?? ''
      expect(await name(db)).toBe('fleet')
      const url = new URL(t.url ?? '')
      url.searchParams.set('application_name', 'fleet-api-7')
      const other = await openPostgresDb(url.toString(), 1)
      try { expect(await name(other)).toBe('fleet-api-7') } finally { await other.close() }
    })

    it('runs its sessions without JIT and without parallel workers (the URL\'s options can turn them back on)', async () => {
      const settings = async (d: Db): Promise<string[]> => Object.values((await d.query<Record<string, string>>(
        'SELECT current_setting(\'jit\') AS jit, current_setting(\'max_parallel_workers_per_gather\') AS workers')).rows[0] ?? {})
      expect(await settings(db)).toEqual(['off', '0'])
      const url = new URL(t.url ?? '')
      url.searchParams.set('options', '-c max_parallel_workers_per_gather=2')
      const other = await openPostgresDb(url.toString(), 1)
      try { expect(await settings(other)).toEqual(['off', '2']) } finally { await other.close() }
    })

    it('a transaction whose backend is terminated during a statement rejects with StoreUnavailableError and commits nothing; the next statements work', async () => {
      const before = await rows()
      const failed = db.transaction(async (tx) => {
        await tx.query('INSERT INTO loss_probe VALUES (1)')
        const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0
        // The statement runs when the backend is told to end.
        const sleeping = tx.query('SELECT pg_sleep(5)')
        sleeping.catch(() => {}) // awaited below, after the termination
        await running(pid, '%pg_sleep(5)%')
        await terminate(pid)
        await sleeping
      })
      await expect(failed).rejects.toBeInstanceOf(StoreUnavailableError)
      expect(await rows()).toBe(before)
      await db.transaction(async (tx) => { await tx.query('INSERT INTO loss_probe VALUES (2)') })
      expect(await rows()).toBe(before + 1)
    })

    it('a backend terminated between two statements of a transaction (no statement running): the next statement rejects, the process stays', async () => {
      const before = await rows()
      const failed = db.transaction(async (tx) => {
        await tx.query('INSERT INTO loss_probe VALUES (3)')
        const pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0
        const sockets = tcpSockets()
        await terminate(pid)
        // pg has seen the socket close, and so emitted 'error' on the checked-out client, once the socket is gone.
        await eventually(() => tcpSockets() < sockets, { what: 'the terminated connection\'s socket to close' })
        await tx.query('INSERT INTO loss_probe VALUES (4)')
      })
      await expect(failed).rejects.toBeInstanceOf(StoreUnavailableError)
      expect(await rows()).toBe(before)
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    })

    it('idle pooled connections terminated: the pool opens new ones', async () => {
      // Several connections open at once, then back in the pool.
      await Promise.all([1, 2, 3, 4].map(async () => await db.transaction(async (tx) => await tx.query('SELECT pg_sleep(0.05)'))))
      const { killed } = await killer.terminate()
      expect(killed).toBeGreaterThanOrEqual(4)
      // The pool has seen its idle connections end and dropped them.
      await eventually(() => db.poolStats?.().total === 0, { what: 'the pool to drop its terminated connections', seen: () => JSON.stringify(db.poolStats?.()) })
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(async (i) => (await db.query<{ i: number }>('SELECT $1::int AS i', [i])).rows[0]?.i))
      expect(answers).toEqual([1, 2, 3, 4, 5, 6])
    })
  })
}

// Both stores: only a lost connection is StoreUnavailableError, which the ingest and the operations engine retry;
// an error of the statement itself would fail the same way every time.
const kinds: Array<[string, () => Promise<TestDb>]> = [['PGlite', async () => await createTestDb('pglite')]]
if (TEST_DATABASE_URL !== undefined || process.env.CI === 'true') kinds.push(['PostgreSQL', async () => await createTestDb('postgres')])

describe.each(kinds)('%s adapter: statement errors', (_name, open) => {
  let t: TestDb
  beforeAll(async () => { t = await open() })
  afterAll(async () => { await t.drop() })

  it('an error of the statement itself stays what it is (not StoreUnavailableError), with its SQLSTATE', async () => {
    const err = await t.db.query('SELEC 1').catch((e: unknown) => e)
    expect(err).not.toBeInstanceOf(StoreUnavailableError)
    expect((err as { code?: string }).code).toBe('42601')
    const inTx = await t.db.transaction(async (tx) => await tx.query('SELECT 1/0')).catch((e: unknown) => e)
    expect(inTx).not.toBeInstanceOf(StoreUnavailableError)
    expect((inTx as { code?: string }).code).toBe('22012')
    expect((await t.db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
  })
})
