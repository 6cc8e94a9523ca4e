// The configured store, apart from bin/context.ts so that `fleet migrate` and the admin commands load only storage.
import type { Config } from '../core/config.js'
import type { Db } from '../core/ports/store.js'
import { openDb } from '../storage/db.js'
import { storeFailure } from './start-failure.js'

/** Opens the configured store; a failure a user can fix comes out as one line naming the variable (bin/start-failure.ts). */
export async function openStore (config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): Promise<Db> {
  const where = { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR }
  try { return await openDb(where) } catch (err) { throw storeFailure(err, where) }
}
