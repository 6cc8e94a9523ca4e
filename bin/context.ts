// The composition root (shared/style.md §2.4): the only place that wires storage/ to core/.
import { pino } from 'pino'
import type { Config } from '../core/config.js'
import type { AppContext } from '../core/context.js'
import type { Logger } from '../core/logger.js'
import type { Clock, Db, RateCounter, UnitOfWork } from '../core/ports.js'
import { createServices } from '../core/services/index.js'
import { bootstrap, type BootstrapResult } from '../core/services/bootstrap.service.js'
import { openDb } from '../storage/db.js'
import { migrate } from '../storage/migrate.js'
import { createRepositories } from '../storage/repositories/index.js'
import { createMemoryCounter } from '../storage/rate/memory-counter.js'
import { createRedisCounter } from '../storage/rate/redis-counter.js'
import { openQueue } from '../storage/queue/open-queue.js'
import { createHttpCallbackSender } from '../storage/notify/http-callback.js'
import { openMailer } from '../storage/notify/open-mailer.js'
import type { JobQueue } from '../core/queue.js'
import type { CallbackSender, Mailer } from '../core/notify.js'
import type { OperationJobs } from '../core/operations/jobs.js'

export interface Infrastructure {
  db: Db
  rateCounter: RateCounter
  clock: Clock
  queue: JobQueue<OperationJobs>
  callbacks: CallbackSender
  mailer: Mailer
}

// One try of a callback: name resolution, connection and the answer's headers (conventions.md §Callbacks).
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

export function createLogger (config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({ level: config.LOG_LEVEL })
}

/** Opens the store (and Redis when configured) and applies the migrations. */
export async function openInfra (config: Readonly<Config>, log: Logger = createLogger({ LOG_LEVEL: 'warn' })): Promise<Infrastructure> {
  const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR })
  try {
    await migrate(db)
    const rateCounter = config.REDIS_URL === undefined ? createMemoryCounter() : await createRedisCounter(config.REDIS_URL)
    return { db, rateCounter, clock: systemClock, ...await openOperationParts(config, db, log) }
  } catch (err) {
    await db.close()
    throw err
  }
}

export function createContext (config: Readonly<Config>, log: Logger, infra: Infrastructure): AppContext {
  const repos = createRepositories(infra.db)
  const inTransaction: UnitOfWork = async (fn) => await infra.db.transaction(async (tx) => await fn(createRepositories(tx)))
  const services = createServices({ config, repos, inTransaction, clock: infra.clock, log, queue: infra.queue, callbacks: infra.callbacks, mailer: infra.mailer })
  return {
    config,
    log,
    services,
    rateCounter: infra.rateCounter,
    async close () {
      // Workers first (they finish their running jobs), then what they used.
      await infra.queue.close()
      await infra.mailer.close()
      await infra.rateCounter.close()
      await infra.db.close()
    }
  }
}

/** Creates the first company, administrator and API client when the store is empty. */
export async function bootstrapStore (ctx: AppContext, db: Db): Promise<BootstrapResult> {
  return await bootstrap({
    config: ctx.config,
    seed: ctx.services.seed,
    isEmpty: async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]?.n === 0
  })
}
