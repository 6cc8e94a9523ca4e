// The Repositories aggregate: every repository of one store (or one transaction), as storage/repositories builds it.
// Each aggregate's port is in its own file next to this one; the re-exports keep older importers compiling.
import type { CompaniesRepository } from './companies.js'
import type { ProfilesRepository } from './profiles.js'
import type { UsersRepository } from './users.js'
import type { MembershipsRepository } from './memberships.js'
import type { ApiClientsRepository } from './api-clients.js'
import type { TokensRepository } from './tokens.js'
import type { SystemsRepository } from './systems.js'
import type { GatewaysRepository } from './gateways.js'
import type { SubscriptionsRepository } from './subscriptions.js'
import type { ApplicationsRepository } from './applications.js'
import type { CatalogueRepository } from './catalogue.js'
import type { SignInUnlocksRepository } from './sign-in-unlocks.js'
import type { Savepoints } from './savepoints.js'
import type { TelemetryRepository } from './telemetry.js'
import type { OperationsRepository } from './operations.js'
import type { DataQueriesRepository } from './data-queries.js'
import type { DeviceTasksRepository } from './devices.js'
import type { UsageRepository } from './usage.js'
import type { PointPartitionsRepository } from './point-partitions.js'
import type { PackageDownloadsRepository } from './package-downloads.js'
import type { CertificatesRepository } from './certificates.js'
import type { AlertRulesRepository } from './alert-rules.js'
import type { AlertsRepository } from './alerts.js'
import type { AlertNotifyRepository } from './alert-notify.js'
import type { AlertEvaluationRepository } from './alert-evaluation.js'

export type { Found, Page, Sort } from '../paging.js'
export type { CompaniesRepository } from './companies.js'
export type { ProfilesRepository } from './profiles.js'
export type { UsersRepository } from './users.js'
export type { MembershipsRepository } from './memberships.js'
export type { ApiClientRecord, ApiClientsRepository } from './api-clients.js'
export type { AuthorizationCode, TokenRecord, TokensRepository } from './tokens.js'
export type { DeviceLogin, SystemRow, SystemsRepository } from './systems.js'
export type { GatewaysRepository } from './gateways.js'
export type { SubscriptionsRepository } from './subscriptions.js'
export type { ApplicationFilter, ApplicationsRepository } from './applications.js'
export type { CatalogueRepository, InventoryGateway, OperatorAccount, OptionRecord, SettingTemplate } from './catalogue.js'
export type { SignInUnlocksRepository } from './sign-in-unlocks.js'
export type { Savepoints } from './savepoints.js'

export interface Repositories {
  companies: CompaniesRepository
  profiles: ProfilesRepository
  users: UsersRepository
  memberships: MembershipsRepository
  clients: ApiClientsRepository
  tokens: TokensRepository
  systems: SystemsRepository
  gateways: GatewaysRepository
  subscriptions: SubscriptionsRepository
  applications: ApplicationsRepository
  catalogue: CatalogueRepository
  telemetry: TelemetryRepository
  deviceTasks: DeviceTasksRepository
  operations: OperationsRepository
  savepoint: Savepoints
  dataQueries: DataQueriesRepository
  usage: UsageRepository
  pointPartitions: PointPartitionsRepository
  signInUnlocks: SignInUnlocksRepository
  packageDownloads: PackageDownloadsRepository
  certificates: CertificatesRepository
  alertRules: AlertRulesRepository
  alerts: AlertsRepository
  alertNotify: AlertNotifyRepository
  alertEvaluation: AlertEvaluationRepository
}
