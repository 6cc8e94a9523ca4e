import type { Queryable } from '../../core/ports/store.js'
import type { Repositories } from '../../core/ports/repositories.js'
import { createCompaniesRepository } from './companies.repository.js'
import { createProfilesRepository } from './profiles.repository.js'
import { createUsersRepository } from './users.repository.js'
import { createMembershipsRepository } from './memberships.repository.js'
import { createApiClientsRepository } from './clients.repository.js'
import { createTokensRepository } from './tokens.repository.js'
import { createSystemsRepository } from './systems.repository.js'
import { createGatewaysRepository } from './gateways.repository.js'
import { createSubscriptionsRepository } from './subscriptions.repository.js'
import { createApplicationsRepository } from './applications.repository.js'
import { createCatalogueRepository } from './catalogue.repository.js'
import { createTelemetryRepository } from './telemetry.repository.js'
import { createOperationsRepository } from './operations.repository.js'
import { createDataQueriesRepository, type DataQueriesOptions } from './data-queries.repository.js'
import { createDeviceTasksRepository } from './device-tasks.repository.js'
import { createUsageRepository } from './usage.repository.js'
import { createPointPartitionsRepository } from './point-partitions.repository.js'
import { createSignInUnlocksRepository } from './sign-in-unlocks.repository.js'
import { createPackageDownloadsRepository } from './package-downloads.repository.js'
import { createCertificatesRepository } from './certificates.repository.js'
import { createAlertRulesRepository } from './alert-rules.repository.js'
import { createAlertsRepository } from './alerts.repository.js'
import { createAlertNotifyRepository } from './alert-notify.repository.js'
import { createAlertEvaluationRepository } from './alert-evaluation.repository.js'
import type { AlertRulesIndex } from './alert-rules-index.js'

export interface RepositoryOptions extends DataQueriesOptions {
  /** The process's index of alert rules (./alert-rules-index.ts), shared by the repositories of its transactions. */
  alertRules?: AlertRulesIndex
}

/** Every repository, bound to one Queryable: the pool, or one transaction; `rollups`: see DataQueriesOptions. */
export function createRepositories (q: Queryable, opts: RepositoryOptions = {}): Repositories {
  return {
    companies: createCompaniesRepository(q),
    profiles: createProfilesRepository(q),
    users: createUsersRepository(q),
    memberships: createMembershipsRepository(q),
    clients: createApiClientsRepository(q),
    tokens: createTokensRepository(q),
    systems: createSystemsRepository(q),
    gateways: createGatewaysRepository(q),
    subscriptions: createSubscriptionsRepository(q),
    applications: createApplicationsRepository(q),
    catalogue: createCatalogueRepository(q),
    telemetry: createTelemetryRepository(q),
    deviceTasks: createDeviceTasksRepository(q),
    operations: createOperationsRepository(q),
    savepoint: {
      async run (fn) {
        await q.query('SAVEPOINT task')
        try {
          const out = await fn()
          await q.query('RELEASE SAVEPOINT task')
          return out
        } catch (err) {
          await q.query('ROLLBACK TO SAVEPOINT task')
          throw err
        }
      }
    },
    dataQueries: createDataQueriesRepository(q, opts),
    usage: createUsageRepository(q),
    pointPartitions: createPointPartitionsRepository(q),
    signInUnlocks: createSignInUnlocksRepository(q),
    packageDownloads: createPackageDownloadsRepository(q),
    certificates: createCertificatesRepository(q),
    alertRules: createAlertRulesRepository(q),
    alerts: createAlertsRepository(q),
    alertNotify: createAlertNotifyRepository(q),
    alertEvaluation: createAlertEvaluationRepository(q, opts.alertRules)
  }
}
