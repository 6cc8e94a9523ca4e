import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
// The servers the server-backed suites use, when set (see .ci/run). Tests read the environment only here.
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL === '' ? undefined : process.env.TEST_DATABASE_URL
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL === '' ? undefined : process.env.TEST_REDIS_URL
/**
 * The embedded run (no TEST_DATABASE_URL). A store-tier file registers its embedded variant only here: the
 * store-servers project runs the same files with the URLs set and would repeat it (vitest.config.ts).
 */
export const EMBEDDED_RUN = TEST_DATABASE_URL === undefined
/**
 * The migrated template the per-file databases are cloned from, named by the migrations it holds: test runs of
 * checkouts with other migrations (a CI run beside a working tree) use templates of their own instead of dropping
 * each other's.
 */
export const TEMPLATE_DB = `fleet_test_template_${migrationsHash()}`

/**
 * The embedded store's counterpart of TEMPLATE_DB: the files of a migrated in-memory PGlite (a tarball made by the
 * global setup), from which each test store starts instead of running initdb and the migrations again.
 */
export const PGLITE_IMAGE = join(tmpdir(), `fleet-test-image-${pgliteVersion()}-${migrationsHash()}.tar`)

/** Another PGlite may not read an image of this one's files. */
function pgliteVersion (): string {
  const manifest = fileURLToPath(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url))
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

/** Of every migration: core's and the protocol modules' (storage/migrate.ts). */
function migrationsHash (): string {
  const ingest = fileURLToPath(new URL('../../ingest/', import.meta.url))
  const dirs = [fileURLToPath(new URL('../../storage/migrations/', import.meta.url)),
    ...readdirSync(ingest, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(ingest, d.name, 'migrations'))]
  const files = dirs.flatMap((dir) => existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.sql')).map((f) => ({ f, path: join(dir, f) })) : [])
  const h = createHash('sha256')
  for (const { f, path } of files.sort((a, b) => a.f < b.f ? -1 : 1)) h.update(f).update(readFileSync(path))
  return h.digest('hex').slice(0, 12)
}

/** The URL of another database on the same server. */
export function databaseUrl (base: string, name: string): string {
  const u = new URL(base)
  u.pathname = '/' + name
  return u.toString()
}
