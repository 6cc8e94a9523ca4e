// The repository contracts the store tier runs on each engine (test/store/repositories.test.ts). A new repository
// adds its contract file here.
import type { RepositoryContract } from './store.js'
import { systemsFindContract } from './systems-find.contract.js'
import { deviceTasksContract } from './device-tasks.contract.js'
import { telemetryContract } from './telemetry.contract.js'
import { dataQueriesContract } from './data-queries.contract.js'
import { accountsContract } from './accounts.contract.js'
import { tokensContract } from './tokens.contract.js'

export const CONTRACTS: RepositoryContract[] = [
  systemsFindContract,
  deviceTasksContract,
  telemetryContract,
  dataQueriesContract,
  accountsContract,
  tokensContract
]
