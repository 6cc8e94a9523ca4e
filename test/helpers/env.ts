import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
// The servers the server-backed suites use, when set (see .ci/run). Tests read the environment only here.
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL === '' ? undefined : process.env.TEST_DATABASE_URL
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL === '' ? undefined : process.env.TEST_REDIS_URL
/**
 * The embedded run (no TEST_DATABASE_URL). A suite that runs on both stores registers its embedded variant only here:
 * the servers run of .ci/run follows this one and would repeat it (as storeKinds() in cli-stores.ts does for the CLI).
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

function migrationsHash (): string {
  const dir = fileURLToPath(new URL('../../storage/migrations/', import.meta.url))
  const h = createHash('sha256')
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.sql')).sort()) h.update(f).update(readFileSync(join(dir, f)))
  return h.digest('hex').slice(0, 12)
}

/** The URL of another database on the same server. */
export function databaseUrl (base: string, name: string): string {
  const u = new URL(base)
  u.pathname = '/' + name
  return u.toString()
}
