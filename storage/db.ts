import { join } from 'node:path'
import type { Db } from '../core/ports/store.js'
import { openPgliteDb } from './pglite-db.js'
import { openPostgresDb } from './postgres-db.js'

/** PostgreSQL when databaseUrl is set, otherwise PGlite in dataDir/pglite (docs/architecture.md: embedded default). */
export async function openDb (opts: { databaseUrl?: string | undefined, dataDir?: string | undefined }): Promise<Db> {
  if (opts.databaseUrl !== undefined) return await openPostgresDb(opts.databaseUrl)
  return await openPgliteDb(opts.dataDir === undefined ? undefined : join(opts.dataDir, 'pglite'))
}
