// Runs once before each tier (vitest project) that has files to run; the slow tier's first builds dist/ unless it is
// current. With TEST_DATABASE_URL set, the server must answer (a CI run never falls back to the embedded store) and
// a migrated template database is made for the per-file databases.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { readdir, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { Redis } from 'ioredis'
import { openPgliteDb } from '../../storage/pglite-db.js'
import { openPostgresDb } from '../../storage/postgres-db.js'
import { migrate } from '../../storage/migrate.js'
import type { TestProject } from 'vitest/node'
import { buildState } from '../../bin/launch.mjs'
import { PGLITE_IMAGE, TEMPLATE_DB, TEST_DATABASE_URL, TEST_REDIS_URL, databaseUrl } from './env.js'

/**
 * Makes the template of these migrations unless it exists: built under a name of its own, then renamed, so that a
 * run never clones a template still being migrated and two runs never drop each other's.
 */
async function prepareTemplate (url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await admin.connect()
  } catch (err) {
    throw new Error(`TEST_DATABASE_URL=${url} does not answer: ${(err as Error).message}`)
  }
  try {
    const exists = async (): Promise<boolean> => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DB])).rowCount === 1
    if (await exists()) return
    const building = `${TEMPLATE_DB}_${randomBytes(4).toString('hex')}`
    await admin.query(`CREATE DATABASE ${building}`)
    try {
      const db = await openPostgresDb(databaseUrl(url, building), 1)
      try { await migrate(db) } finally { await db.close() }
      if (!(await exists())) await admin.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE_DB}`)
    } catch (err) {
      if (!(await exists())) throw err // another run renamed its template first: use that one
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)
    }
  } finally { await admin.end() }
}

// Images of other PGlite versions or migrations (another checkout, an older commit) are removed once no run has
// started from them for this long: each is about 40 MB, one more per change of the migrations.
const IMAGE_KEPT_MS = 24 * 3600_000

async function removeStaleImages (): Promise<void> {
  const dir = dirname(PGLITE_IMAGE)
  const now = Date.now()
  for (const name of await readdir(dir)) {
    if (!name.startsWith('fleet-test-image-') || name === basename(PGLITE_IMAGE)) continue
    const path = join(dir, name)
    try {
      if (now - (await stat(path)).mtimeMs > IMAGE_KEPT_MS) await unlink(path)
    } catch { /* gone meanwhile, or not ours to remove */ }
  }
}

/** Makes the migrated PGlite image unless it exists: written under a name of its own, then renamed into place. */
async function preparePgliteImage (): Promise<void> {
  await removeStaleImages()
  if (existsSync(PGLITE_IMAGE)) {
    // Started from now: not stale for the other checkouts' runs either.
    const now = new Date()
    await utimes(PGLITE_IMAGE, now, now)
    return
  }
  const db = await openPgliteDb(undefined)
  try {
    await migrate(db)
    const building = `${PGLITE_IMAGE}.${randomBytes(4).toString('hex')}`
    await writeFile(building, await db.image())
    await rename(building, PGLITE_IMAGE)
  } finally { await db.close() }
}

async function checkRedis (url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null })
  try {
    await redis.connect()
    await redis.ping()
  } catch (err) {
    throw new Error(`TEST_REDIS_URL=${url} does not answer: ${(err as Error).message}`)
  } finally { redis.disconnect() }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The slow tier runs the built service (test/helpers/child.ts): dist/ is built now unless current. Type errors do
 * not stop it (vitest runs TypeScript that does not typecheck as well; `npm run build` and CI's typecheck fail on
 * them). Two runs building at once each rename a whole build into place (scripts/build.mjs).
 */
async function ensureBuilt (): Promise<void> {
  if (buildState(ROOT).build === 'current') return
  const child = spawn(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--allow-type-errors'], { cwd: ROOT, stdio: 'inherit' })
  const [code] = await once(child, 'exit') as [number | null]
  if (code !== 0) throw new Error(`npm run build failed (exit ${code}): the slow tests run its dist/`)
}

export default async function setup (project: TestProject): Promise<void> {
  if (project.name === 'slow') await ensureBuilt()
  await preparePgliteImage()
  if (TEST_DATABASE_URL !== undefined) await prepareTemplate(TEST_DATABASE_URL)
  if (TEST_REDIS_URL !== undefined) await checkRedis(TEST_REDIS_URL)
}
