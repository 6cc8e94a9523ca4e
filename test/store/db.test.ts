import { openPgliteDb } from '../../storage/pglite-db.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { describeDbContract } from './db.contract.js'

if (EMBEDDED_RUN) {
  describeDbContract('PGlite', async () => {
    const db = await openPgliteDb(undefined)
    return { db, drop: async () => { await db.close() } }
  })
}

// In CI the PostgreSQL run must happen: without TEST_DATABASE_URL, createTestDb('postgres') throws and the
// suite fails rather than skips (docs/testing.md: never silently fall back).
const ci = process.env.CI === 'true'
if (TEST_DATABASE_URL !== undefined || ci) {
  describeDbContract('PostgreSQL', async () => {
    const t = await createTestDb('postgres')
    // The per-file database comes migrated from the template: empty it so that migrate() starts from nothing.
    await t.db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
    return t
  })
}
// Without TEST_DATABASE_URL (and outside CI) the PostgreSQL run is not registered at all: .ci/run runs it against
// the server in its second step, where a missing server fails instead of skipping.
