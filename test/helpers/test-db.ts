import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { Db } from '../../core/ports/store.js'
import { openPostgresDb } from '../../storage/postgres-db.js'
import { TEMPLATE_DB, TEST_DATABASE_URL, databaseUrl } from './env.js'
import { takePglite } from './pglite-pool.js'

export interface TestDb { db: Db, url: string | undefined, drop (): Promise<void> }

/**
 * A fresh, migrated store for one test file: an in-memory PGlite started from the migrated image of the global setup
 * (or one of this process emptied since: test/helpers/pglite-pool.ts), or with TEST_DATABASE_URL a database cloned
 * from the migrated template (docs/testing.md, isolation).
 */
export async function createTestDb (kind: 'pglite' | 'postgres' | 'default' = 'default'): Promise<TestDb> {
  const usePg = kind === 'postgres' || (kind === 'default' && TEST_DATABASE_URL !== undefined)
  if (!usePg) {
    const db = await takePglite()
    return { db, url: undefined, async drop () { await db.release() } }
  }
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set')
  const name = `fleet_t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  try { await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`) } finally { await admin.end() }
  const url = databaseUrl(TEST_DATABASE_URL, name)
  const db = await openPostgresDb(url)
  return {
    db,
    url,
    async drop () {
      await db.close()
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await c.connect()
      try { await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) } finally { await c.end() }
    }
  }
}
