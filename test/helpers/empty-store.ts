// Stores for migration tests: an empty one of the kind the run uses, brought to the state before a given migration.
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import pg from 'pg'
import type { Db } from '../../core/ports/store.js'
import { openPgliteDb } from '../../storage/pglite-db.js'
import { openPostgresDb } from '../../storage/postgres-db.js'
import { migrations } from '../../storage/migrate.js'
import { TEST_DATABASE_URL, databaseUrl } from './env.js'

/** An empty store of the kind the run uses (a fresh PostgreSQL database, not the migrated template). */
export async function emptyStore (): Promise<{ db: Db, drop: () => Promise<void> }> {
  if (TEST_DATABASE_URL === undefined) {
    const d = await openPgliteDb(undefined)
    return { db: d, drop: async () => { await d.close() } }
  }
  const name = `fleet_m_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  try { await admin.query(`CREATE DATABASE ${name}`) } finally { await admin.end() }
  const d = await openPostgresDb(databaseUrl(TEST_DATABASE_URL, name))
  return {
    db: d,
    async drop () {
      await d.close()
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await c.connect()
      try { await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) } finally { await c.end() }
    }
  }
}

/** Applies and records every migration whose file name sorts before `before` ("0013"...): the store as it was then. */
export async function migrateBefore (db: Db, before: string): Promise<void> {
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at bigint NOT NULL)')
  for (const file of (await migrations()).filter((f) => f.name < before)) {
    await db.exec(await readFile(file.path, 'utf8'))
    await db.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [file.name, Date.now()])
  }
}
