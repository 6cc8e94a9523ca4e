import type { Config } from '../config.js'
import type { Clock, RateCounter, UnitOfWork } from '../ports/store.js'
import type { Repositories } from '../ports/repositories.js'
import { createAuthService } from './auth.service.js'
import { createAccessEpoch } from './access-epoch.js'
import { createLoginThrottle } from './login-throttle.js'
import { createUsersService } from './users.service.js'
import { createCompaniesService } from './companies.service.js'
import { createCompanyPictureService } from './company-picture.service.js'
import { createSeedService } from './seed.service.js'
import { createSystemsService } from './systems/systems.service.js'
import { createApplicationsService } from './applications.service.js'
import { createApplicationPackagesService } from './applications-packages.service.js'
import { unreferencedDropper, type PackageOpener } from './applications-release.js'
import { createTemplatesService } from './templates.service.js'
import { createPartsService } from './parts.service.js'
import { createDevicesService } from './ingest/devices.service.js'
import { deviceLoginThrottle } from './ingest/device-login-throttle.js'
import { createIngestService } from './ingest/ingest.service.js'
import type { Logger } from '../logger.js'
import type { MetricsRegistry } from '../metrics.js'
import type { JobQueue } from '../ports/queue.js'
import type { CallbackSender, Mailer } from '../ports/notify.js'
import type { OperationJobs } from '../operations/jobs.js'
import type { CallbackGuard } from '../operations/callback-guard.js'
import type { TaskDispatch } from '../ports/devices.js'
import { createOperationsService } from '../operations/service.js'
import { createDataServices } from './data/index.js'
import { createUsageService } from './usage/usage.service.js'
import { createPointPartitionsService } from './data/point-partitions.service.js'
import type { EventBus } from '../ports/events.js'
import { createOperationProgress } from '../operations/progress.js'
import { createStreamService } from './stream/stream.service.js'
import { createDownloadLinks, downloadListener } from './packages/download-links.js'
import type { ArtifactStore } from '../ports/artifacts.js'
import type { DownloadLinkInput } from '../ports/package-downloads.js'
import type { CertificateEvent } from '../ports/certificates.js'
import { createCertificatesService } from './certificates/certificates.service.js'
import { createCertificateLogin } from './certificates/certificate-login.js'
import { createAlertServices } from './alerts/index.js'
import { createAlertChecks } from './alerts/alert-checks.service.js'
import { createAlertNotify } from './alerts/alert-notify.js'

export interface ServicesDeps {
  config: Readonly<Config>
  repos: Repositories
  inTransaction: UnitOfWork
  clock: Clock
  log: Logger
  queue: JobQueue<OperationJobs>
  callbacks: CallbackSender & CallbackGuard
  mailer: Mailer
  /** Where sign-in failures are counted (login-throttle.ts): the rate-limit counters. */
  rateCounter: RateCounter
  /** Where ingest and the operations engine report (absent: nowhere). */
  metrics?: MetricsRegistry
  /** Delivers committed device tasks (core/services/ingest/task-dispatch.ts, wired in bin/context.ts); absent: they wait for a poll. */
  dispatch?: TaskDispatch
  /** Committed changes for the live stream (core/ports/events.ts); absent: no stream hears anything. */
  events?: EventBus
  /** The bytes of released binaries (core/ports/artifacts.ts; storage/artifacts/ by ARTIFACT_STORE). */
  artifacts: ArtifactStore
  /** Reads a released package (protocols/app-package/: core reads no ZIP itself). */
  openPackage: PackageOpener
  /** Certificate revocations and new CAs, to every process (decision 0030: a channel of their own). */
  certificateEvents: EventBus<CertificateEvent>
  /** Fingerprints of the TLS_CLIENT_CA_FILE CAs, trusted for every company (absent: none). */
  operatorCAs?: () => ReadonlySet<string>
}

/** Every use case of the service, wired on one set of repositories. */
export function createServices ({ config, repos, inTransaction, clock, log, queue, callbacks, mailer, metrics, rateCounter, dispatch, events, artifacts, openPackage, certificateEvents, operatorCAs }: ServicesDeps) {
  const epoch = createAccessEpoch()
  const throttle = createLoginThrottle(rateCounter, clock, {
    accountAddressFailures: config.LOGIN_THROTTLE_FAILURES,
    accountFailures: config.LOGIN_THROTTLE_ACCOUNT_FAILURES,
    addressFailures: config.LOGIN_THROTTLE_ADDRESS_FAILURES,
    baseMs: config.LOGIN_THROTTLE_BASE_MS
  }, repos.signInUnlocks)
  // Two batches at once help a PostgreSQL pool; PGlite has one connection (bench/ingest.ts measures both).
  const ingestOptions = { parallel: config.DATABASE_URL === undefined ? 1 : 2, maxPendingBytes: config.INGEST_BUFFER_BYTES }
  const progress = events === undefined ? undefined : createOperationProgress({ operations: repos.operations, events, log })
  const downloads = createDownloadLinks({ downloads: repos.packageDownloads, publicUrl: config.PUBLIC_URL, httpHost: config.HTTP_HOST, ...downloadListener(config), now: clock.now, log, metrics })
  // An install task's links are written in its chunk's transaction: they go if the task is rolled back.
  const handlerDeps = {
    software: { link: async (tx: Repositories, req: DownloadLinkInput) => await downloads.link(req, tx.packageDownloads) },
    dropUnreferenced: unreferencedDropper({ applications: repos.applications, artifacts }, log)
  }
  const operations = createOperationsService({ repos, inTransaction, queue, clock, log, callbacks, mailer, metrics, callbackRetryBaseMs: config.CALLBACK_RETRY_BASE_MS, dispatch, progress, handlerDeps })
  // What a raised alert does once committed: its hooks, e-mails, stream event and actions (the alert.* jobs).
  const alertNotify = createAlertNotify({ repos, inTransaction, queue, callbacks, mailer, operations, clock, log, events, metrics, callbackRetryBaseMs: config.CALLBACK_RETRY_BASE_MS })
  return {
    auth: createAuthService({ repos, clock, tokenTtlS: config.TOKEN_TTL_S, refreshTtlS: config.REFRESH_TOKEN_TTL_S, epoch, throttle, hashCost: config.PASSWORD_HASH_COST }),
    users: createUsersService({ repos, epoch }),
    companies: createCompaniesService({ repos, inTransaction, epoch }),
    companyPicture: createCompanyPictureService({ companies: repos.companies }),
    seed: createSeedService({ inTransaction, clock, epoch, hashCost: config.PASSWORD_HASH_COST }),
    systems: createSystemsService({ repos, inTransaction, clock }),
    applications: createApplicationsService({ repos, clock }),
    /** Release from a package, delete with the bytes no other application uses (docs/packages.md#release-and-publish). */
    applicationPackages: createApplicationPackagesService({ applications: repos.applications, inTransaction, artifacts, openPackage, operations, dataDir: config.DATA_DIR, maxReleaseBytes: config.APPLICATION_RELEASE_MAX_BYTES }),
    templates: createTemplatesService({ repos }),
    parts: createPartsService({ repos }),
    devices: createDevicesService({
      repos,
      clock,
      throttle: deviceLoginThrottle(config, rateCounter, clock, metrics),
      certificates: createCertificateLogin({ repos, inTransaction, clock, operatorCAs: operatorCAs ?? (() => new Set()), log, metrics })
    }),
    /** Device certificates and company CAs (docs/security.md#device-certificates). */
    certificates: createCertificatesService({ repos, clock, changes: certificateEvents }),
    /** Alert rules and their hooks (docs/alerts.md). */
    alerts: createAlertServices({ rules: repos.alertRules, alerts: repos.alerts, clock, guard: callbacks, perCompany: config.ALERT_RULES_PER_COMPANY }),
    // Once committed: device answers and messages to the operations engine (a retrieve waits for its values), raised alerts to their notification.
    ingest: createIngestService({
      inTransaction,
      clock,
      log,
      metrics,
      options: ingestOptions,
      onAnswers: async (answers) => { await operations.engine.deviceAnswered(answers) },
      onStored: async (systemUids) => { await operations.engine.valuesStored(systemUids) },
      events,
      telemetry: repos.telemetry,
      onAlerts: alertNotify.onAlerts
    }),
    operations,
    /** The alert.notify and alert.hook jobs (their handlers go to the workers: bin/serve.ts), and onAlerts after a commit. */
    alertNotify,
    alertChecks: createAlertChecks({ repos, inTransaction, clock, log, onAlerts: alertNotify.onAlerts }),
    /** commStatus WARNING / ERROR for systems that missed their period (docs/devices.md). */
    sweepCommStatus: async (): Promise<number> => {
      const changes = await repos.telemetry.sweepCommStatus(clock.now(), config.COMM_PERIOD_S * 1000)
      if (events?.listening() === true) events.publish(changes.map((c) => ({ kind: 'commStatus', company: c.companyUid, system: c.uid, status: c.status, lastCommDate: c.lastCommDate })))
      return changes.length
    },
    /** The live stream's subscriptions (GET /api/v1/stream). */
    stream: createStreamService({ repos, events, clock, metrics }),
    data: createDataServices({ repos, clock }),
    /** The monthly points partitions and DATA_RETENTION_DAYS (the points.partitions job). */
    pointPartitions: createPointPartitionsService({ repos, inTransaction, clock, log, retentionDays: config.DATA_RETENTION_DAYS }),
    usage: createUsageService({ repos, clock }),
    /** Install tasks' download links and what they served (GET /device/packages/<token>: docs/packages.md#downloads). */
    downloads,
    artifacts,
    /** Outgoing device tasks: what the operations engine asks once its device tasks are committed. */
    dispatch: dispatch ?? { dispatch: async () => {} },
    /** Read by the company-context check of every API call. */
    companiesRepo: repos.companies
  }
}

export type Services = ReturnType<typeof createServices>
