import type { Clock, UnitOfWork } from '../ports/store.js'
import type { Logger } from '../logger.js'
import type { MetricsRegistry } from '../metrics.js'
import type { JobQueue } from '../ports/queue.js'
import type { Repositories } from '../ports/repositories.js'
import type { CallbackSender, Mailer } from '../ports/notify.js'
import type { Actor } from '../domain/actor.js'
import type { CompanyAccess } from '../services/access.js'
import type { OperationJobs } from './jobs.js'
import type { CallbackGuard } from './callback-guard.js'
import { createEngine } from './engine.js'
import { createOperationsReader } from './read.js'
import type { TaskDispatch } from '../ports/devices.js'
import { OPERATION_KINDS } from './kinds/index.js'
import type { HandlerDeps, OperationKind } from './kind.js'
import type { OperationProgress } from './progress.js'

export interface OperationsServiceDeps {
  repos: Repositories
  inTransaction: UnitOfWork
  queue: JobQueue<OperationJobs>
  clock: Clock
  log: Logger
  /** Delivers the callbacks (the engine) and checks their URLs when an operation is created. */
  callbacks: CallbackSender & CallbackGuard
  mailer: Mailer
  /** CALLBACK_RETRY_BASE_MS */
  callbackRetryBaseMs?: number
  metrics?: MetricsRegistry
  /** Delivers device tasks once written (device operations); bound late: the transports are built after the services. */
  dispatch?: TaskDispatch
  /** Told of committed changes of operations (the live stream, ./progress.ts). */
  progress?: OperationProgress | undefined
  /** What some kinds' handlers need of the service (install tasks: the download links). */
  handlerDeps?: HandlerDeps
}

/** Bulk operations: creation (validated synchronously), reading, cancelling; the engine runs them. */
export function createOperationsService (deps: OperationsServiceDeps) {
  const engine = createEngine({
    ...deps,
    handlers: Object.fromEntries(OPERATION_KINDS.map((k) => [k.type, k.bind?.(deps.handlerDeps ?? {}) ?? k.handler]))
  })
  const opDeps = { repos: deps.repos, clock: deps.clock, engine, callbacks: deps.callbacks }
  return {
    engine,
    kinds: OPERATION_KINDS,
    ...createOperationsReader(deps.repos, engine),
    /** Validates and creates an operation of this kind (its body was checked against kind.route.body). */
    create: async (kind: OperationKind, access: CompanyAccess, actor: Actor, body: unknown, systemUid?: string) =>
      await kind.create(opDeps, { access, actor }, body, systemUid)
  }
}

export type OperationsService = ReturnType<typeof createOperationsService>
