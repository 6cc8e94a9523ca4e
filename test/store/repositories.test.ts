// Every repository contract (test/store/repositories/*.contract.ts) against every engine: the embedded run on PGlite,
// the servers run (TEST_DATABASE_URL) on PostgreSQL. This tier is the one place the repositories' SQL runs on both
// (docs/decisions/0016-store-conformance.md); with CI=true a missing server fails the run instead of skipping it.
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { CONTRACTS } from './repositories/index.js'

const CI = process.env.CI === 'true'

for (const contract of CONTRACTS) {
  if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
  if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
}
