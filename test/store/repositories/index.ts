// The repository contracts the store tier runs on each engine (test/store/repositories.test.ts). A new repository
// adds its contract file here.
import type { RepositoryContract } from './store.js'
import { systemsFindContract } from './systems-find.contract.js'
import { systemsWriteContract } from './systems-write.contract.js'
import { deviceTasksContract } from './device-tasks.contract.js'
import { operationsContract } from './operations.contract.js'
import { operationsLifecycleContract } from './operations-lifecycle.contract.js'
import { telemetryContract } from './telemetry.contract.js'
import { dataQueriesContract } from './data-queries.contract.js'
import { accountsContract } from './accounts.contract.js'
import { tokensContract } from './tokens.contract.js'
import { usageContract } from './usage.contract.js'
import { applicationsContract } from './applications.contract.js'
import { applicationsReleasesContract } from './applications-releases.contract.js'
import { gatewaysContract } from './gateways.contract.js'
import { subscriptionsContract } from './subscriptions.contract.js'
import { catalogueContract } from './catalogue.contract.js'
import { pointPartitionsContract } from './point-partitions.contract.js'
import { m3daContract } from './m3da.contract.js'
import { msciPollsContract } from './msci-polls.contract.js'
import { sparkplugContract } from './sparkplug.contract.js'
import { lwm2mContract } from './lwm2m.contract.js'

export const CONTRACTS: RepositoryContract[] = [
  systemsFindContract,
  systemsWriteContract,
  deviceTasksContract,
  operationsContract,
  operationsLifecycleContract,
  telemetryContract,
  dataQueriesContract,
  accountsContract,
  tokensContract,
  usageContract,
  applicationsContract,
  applicationsReleasesContract,
  gatewaysContract,
  subscriptionsContract,
  catalogueContract,
  pointPartitionsContract,
  m3daContract,
  msciPollsContract,
  sparkplugContract,
  lwm2mContract
]
