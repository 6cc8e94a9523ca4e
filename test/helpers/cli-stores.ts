// Where a CLI run (test/slow) keeps its data: a DATA_DIR with the embedded store, or a fresh PostgreSQL database
// (DATABASE_URL) when TEST_DATABASE_URL is set; and a way to look inside once no CLI process holds it.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { Db } from '../../core/ports/store.js'
import { openPgliteDb } from '../../storage/pglite-db.js'
import { openPostgresDb } from '../../storage/postgres-db.js'
import { TEST_DATABASE_URL, databaseUrl } from './env.js'

export interface Store { env: Record<string, string>, open (): Promise<Db>, drop (): Promise<void> }

export async function pgliteStore (): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-e2e-'))
  return {
    env: { DATA_DIR: dir },
    open: async () => await openPgliteDb(join(dir, 'pglite')),
    drop: async () => { await rm(dir, { recursive: true, force: true }) }
  }
}

/** An empty database (not from the migrated template: the CLI must migrate it itself). */
export async function postgresStore (): Promise<Store> {
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set')
  const base = TEST_DATABASE_URL
  const name = `fleet_e2e_${randomBytes(6).toString('hex')}`
  const admin = async (sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: base })
    await c.connect()
    try { await c.query(sql) } finally { await c.end() }
  }
  await admin(`CREATE DATABASE ${name}`)
  const dir = await mkdtemp(join(tmpdir(), 'fleet-e2e-'))
  const url = databaseUrl(base, name)
  return {
    env: { DATA_DIR: dir, DATABASE_URL: url },
    open: async () => await openPostgresDb(url, 1),
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** Runs fn on the store's database, opened only while no CLI process holds it (PGlite has one owner). */
export async function inspect<T> (store: Store, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await store.open()
  try { return await fn(db) } finally { await db.close() }
}

/**
 * The store a slow test runs the service on: PostgreSQL when TEST_DATABASE_URL is set (always in CI: the slow tier
 * runs once, on the servers; postgresStore() throws without the URL, never a silent skip), else the embedded one.
 * What differs between the stores is the store tier's (docs/decisions/0015-test-tiers.md).
 */
export function storeKinds (): Array<[string, () => Promise<Store>]> {
  return TEST_DATABASE_URL !== undefined || process.env.CI === 'true' ? [POSTGRES] : [PGLITE]
}

/**
 * Both stores, for the few slow files whose subject is the store under the service itself: the embedded store's
 * commits across a SIGKILL and the first start on a DATA_DIR, beside the same on PostgreSQL.
 */
export function bothStoreKinds (): Array<[string, () => Promise<Store>]> {
  return TEST_DATABASE_URL !== undefined || process.env.CI === 'true' ? [PGLITE, POSTGRES] : [PGLITE]
}

const PGLITE: [string, () => Promise<Store>] = ['PGlite in DATA_DIR', pgliteStore]
const POSTGRES: [string, () => Promise<Store>] = ['PostgreSQL (DATABASE_URL)', postgresStore]

/** Options every CLI run of the tests shares: loopback only, MQTT and M3DA on any free port. */
export const quiet = { HTTP_HOST: '127.0.0.1', MQTT_PORT: '0', M3DA_PORT: '0', LWM2M_PORT: '0', LWM2MS_PORT: '0' }
