// The composition root (docs/architecture.md#layers): the only place that wires storage/ to core/.
import type { Config } from '../core/config.js'
import type { AppContext } from '../core/context.js'
import type { Logger } from '../core/logger.js'
import type { Clock, Db, RateCounter, UnitOfWork } from '../core/ports/store.js'
import { createServices } from '../core/services/index.js'
import { bootstrap, type BootstrapResult } from '../core/services/bootstrap.service.js'
import { redisFailure } from './start-failure.js'
import { createLogger } from './logger.js'
import { openStore } from './store.js'
import { migrate } from '../storage/migrate.js'
import { createRepositories } from '../storage/repositories/index.js'
import { createAlertRulesIndex } from '../storage/repositories/alert-rules-index.js'
import { createMemoryCounter } from '../storage/rate/memory-counter.js'
import { createRedisCounter } from '../storage/rate/redis-counter.js'
import { openQueue } from '../storage/queue/open-queue.js'
import { createHttpCallbackSender } from '../storage/notify/http-callback.js'
import { openMailer } from '../storage/notify/open-mailer.js'
import type { JobQueue } from '../core/ports/queue.js'
import type { CallbackSender, Mailer } from '../core/ports/notify.js'
import type { OperationJobs } from '../core/operations/jobs.js'
import type { MetricsRegistry } from '../core/metrics.js'
import { createPromRegistry } from '../metrics/prom-registry.js'
import { registerInfraGauges } from '../metrics/infra-gauges.js'
import type { CallbackGuard } from '../core/operations/callback-guard.js'
import type { TaskPushers } from '../core/ports/devices.js'
import { createTaskDispatch } from '../core/services/ingest/task-dispatch.js'
import { createTaskPushers } from '../core/services/ingest/task-pushers.js'
import { createSmsGateway } from '../storage/notify/sms-gateway.js'
import { withLoginChanges } from '../core/services/systems/login-changes.js'
import { openBrokerSync } from './broker.js'
import type { DynsecSync } from '../ingest/broker-sync/dynsec-sync.js'
import type { EventBus } from '../core/ports/events.js'
import { createLocalEventBus } from '../storage/events/local-bus.js'
import { openEventBus } from '../storage/events/open-event-bus.js'
import type { CertificateEvent } from '../core/ports/certificates.js'
import type { ArtifactStore } from '../core/ports/artifacts.js'
import { createArtifactStore } from '../storage/artifacts/open-artifacts.js'
import { openPackage } from '../protocols/app-package/index.js'

export interface Infrastructure {
  db: Db
  rateCounter: RateCounter
  clock: Clock
  queue: JobQueue<OperationJobs>
  callbacks: CallbackSender & CallbackGuard
  mailer: Mailer
  /** Absent: a Prometheus registry of its own for this context (GET /metrics). */
  metrics?: MetricsRegistry
  /** The committed changes the live stream delivers (Redis pub/sub with REDIS_URL); absent: this process's only. */
  events?: EventBus
  /** Certificate revocations and new CAs (docs/decisions/0030), on a channel of their own; absent: this process's only. */
  certificateEvents?: EventBus<CertificateEvent>
  /** Absent: the store ARTIFACT_STORE names, on this infrastructure's database. */
  artifacts?: ArtifactStore
}

// One try of a callback: name resolution, connection and the answer's headers (docs/operations.md#bulk-operations).
const CALLBACK_TIMEOUT_MS = 10_000

/** The queue (jobs table, or BullMQ with REDIS_URL), the callback sender and the mailer of the operations engine. */
export async function openOperationParts (config: Readonly<Config>, db: Db, log: Logger, queuePrefix?: string): Promise<Pick<Infrastructure, 'queue' | 'callbacks' | 'mailer'>> {
  const queue = await openQueue<OperationJobs>({
    redisUrl: config.REDIS_URL, db, prefix: queuePrefix, onError: (err) => { log.error({ err }, 'queue error') }
  })
  const callbacks = createHttpCallbackSender({ secret: config.CALLBACK_SECRET, allowPrivate: config.CALLBACK_ALLOW_PRIVATE, timeoutMs: CALLBACK_TIMEOUT_MS })
  return { queue, callbacks, mailer: openMailer(config) }
}

export const systemClock: Clock = { now: () => Date.now() }

// Not the live stream's channel (fleet:events): every process listens here for good, and its presence there would
// make every publisher build stream events for nobody (docs/decisions/0020, 0030).
const CERTIFICATE_CHANNEL = 'fleet:certificates'

/** Opens the store (and Redis when configured) and applies the migrations. */
export async function openInfra (config: Readonly<Config>, log: Logger = createLogger({ LOG_LEVEL: 'warn' })): Promise<Infrastructure> {
  const db = await openStore(config)
  try {
    await migrate(db)
    const redisUrl = config.REDIS_URL
    const rateCounter = redisUrl === undefined ? createMemoryCounter() : await createRedisCounter(redisUrl).catch((err: unknown) => { throw redisFailure(err, redisUrl) })
    const events = await openEventBus({ redisUrl, onFailure: (err) => { log.warn({ err }, 'live stream event not delivered') } })
    const certificateEvents = await openEventBus<CertificateEvent>({ redisUrl, channel: CERTIFICATE_CHANNEL, onFailure: (err) => { log.warn({ err }, 'certificate change not delivered') } })
    return { db, rateCounter, clock: systemClock, events, certificateEvents, ...await openOperationParts(config, db, log) }
  } catch (err) {
    await db.close()
    throw err
  }
}

/**
 * `pushers`: the registry the device transports of this process register in once built (bin/serve.ts); the task
 * dispatch (core/services/ingest/task-dispatch.ts) delivers through them. Absent: none, tasks wait for a poll.
 */
export function createContext (config: Readonly<Config>, log: Logger, infra: Infrastructure, opts: { pushers?: TaskPushers, brokerSync?: DynsecSync, operatorCAs?: () => ReadonlySet<string> } = {}): AppContext {
  // One index of alert rules for the process: every transaction's evaluation reads only the companies' versions.
  const repoOpts = { rollups: config.DATA_ROLLUPS, alertRules: createAlertRulesIndex() }
  const repos = createRepositories(infra.db, repoOpts)
  const ownTransaction: UnitOfWork = async (fn) => await infra.db.transaction(async (tx) => await fn(createRepositories(tx, repoOpts)))
  // With an external Mosquitto, device logins follow every committed change into its dynamic security.
  // `opts.brokerSync`: the process's one sync, which its periodic full sync shares (bin/serve.ts), so that the two never
  // interleave their reads and writes. The context closes it either way.
  const brokerSync = opts.brokerSync ?? openBrokerSync(config, infra.db, log)
  const inTransaction = brokerSync === undefined ? ownTransaction : withLoginChanges(ownTransaction, brokerSync)
  const metrics = infra.metrics ?? createPromRegistry({ onCollectError: (metric, err) => { log.warn({ err, metric }, 'metric not collected') } })
  registerInfraGauges(metrics, infra)
  const dispatch = createTaskDispatch({
    pushers: opts.pushers ?? createTaskPushers(),
    deviceTasks: repos.deviceTasks,
    systems: repos.telemetry,
    connectionRequester: createSmsGateway({ url: config.SMS_GATEWAY_URL, log }),
    log,
    now: infra.clock.now
  })
  const events = infra.events ?? createLocalEventBus((err) => { log.warn({ err }, 'live stream event not delivered') })
  const artifacts = infra.artifacts ?? createArtifactStore(config, infra.db)
  const certificateEvents = infra.certificateEvents ?? createLocalEventBus<CertificateEvent>((err) => { log.warn({ err }, 'certificate change not delivered') })
  const services = createServices({ metrics, config, repos, inTransaction, clock: infra.clock, log, queue: infra.queue, callbacks: infra.callbacks, mailer: infra.mailer, rateCounter: infra.rateCounter, dispatch, events, artifacts, openPackage, certificateEvents, operatorCAs: opts.operatorCAs })
  return {
    config,
    log,
    services,
    rateCounter: infra.rateCounter,
    metrics,
    artifacts,
    async close () {
      // Workers first (they finish their running jobs), then what they used.
      await infra.queue.close()
      await services.downloads.flush()
      await infra.mailer.close()
      await infra.rateCounter.close()
      await brokerSync?.close()
      await events.close()
      await certificateEvents.close()
      await infra.db.close()
    }
  }
}

/** Creates the first company, administrator and API client when the store is empty. */
export async function bootstrapStore (ctx: AppContext, db: Db): Promise<BootstrapResult> {
  return await bootstrap({
    config: ctx.config,
    seed: ctx.services.seed,
    isEmpty: async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]?.n === 0,
    hasClient: async (clientId) => (await db.query('SELECT 1 FROM api_clients WHERE client_id = $1', [clientId])).rows.length > 0
  })
}
