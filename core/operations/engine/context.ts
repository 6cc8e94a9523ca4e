// What every part of the operations engine shares: its dependencies, the task metrics and the hand-off of device
// tasks to the transports. createEngineContext builds it once per engine (core/operations/engine.ts).
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Logger } from '../../logger.js'
import type { MetricsRegistry } from '../../metrics.js'
import type { JobQueue } from '../../ports/queue.js'
import type { Repositories } from '../../ports/repositories.js'
import type { CallbackSender, Mailer } from '../../ports/notify.js'
import type { OperationType } from '../../domain/operation.js'
import type { TaskResult } from '../../ports/operations.js'
import type { DispatchRequest, TaskDispatch } from '../../ports/devices.js'
import type { OperationJobs } from '../jobs.js'
import type { OperationHandler } from '../handler.js'
import type { OperationProgress } from '../progress.js'
import { taskMetrics } from './metrics.js'

export interface EngineDeps {
  repos: Repositories
  inTransaction: UnitOfWork
  queue: JobQueue<OperationJobs>
  clock: Clock
  log: Logger
  callbacks: CallbackSender
  mailer: Mailer
  handlers: Partial<Record<OperationType, OperationHandler>>
  /** Tasks per chunk transaction (on PGlite the API waits for the running chunk: keep it small). */
  chunkSize?: number
  /** How long one run job goes on taking chunks before it queues the next run (queue hops cost ~1/3 of the time). */
  sliceMs?: number
  /** First delay between callback tries (CALLBACK_RETRY_BASE_MS; default 30 s), doubled at each try. */
  callbackRetryBaseMs?: number
  metrics?: MetricsRegistry
  /** Delivers the device tasks a chunk wrote, once it is committed (device operations; core/ports/devices.ts). */
  dispatch?: TaskDispatch
  /** Told of every committed change of an operation's state or tasks (the live stream, ../progress.ts). */
  progress?: OperationProgress
}

export interface EngineContext {
  deps: EngineDeps
  repos: Repositories
  inTransaction: UnitOfWork
  queue: JobQueue<OperationJobs>
  clock: Clock
  log: Logger
  /** Tells the live stream that the operation's committed state or tasks changed. */
  changed: (operationUid: string) => void
  /** Counts tasks that reached a state (the fleet_operation_tasks_total metric). */
  countTasks: (type: OperationType, results: readonly TaskResult[]) => void
  /** Hands committed device tasks to the transports; a failure leaves them waiting for the device (logged). */
  deliver: (requests: DispatchRequest[]) => Promise<void>
}

/**
 * A chunk whose store connection was lost committed nothing (or, its COMMIT answer lost, everything: its tasks are
 * then no longer PENDING), so it is run again at once rather than failing the job, whose attempts a flapping
 * connection would soon spend (a lost connection during a bulk operation).
 */
export const STORE_RETRY = { maxMs: 30_000 }

export function createEngineContext (deps: EngineDeps): EngineContext {
  const { repos, log } = deps
  const { countTasks } = taskMetrics(deps)
  async function deliver (requests: DispatchRequest[]): Promise<void> {
    if (requests.length === 0 || deps.dispatch === undefined) return
    try {
      await deps.dispatch.dispatch(requests)
    } catch (err) {
      log.warn({ err }, 'device tasks not dispatched; they wait for the devices\' next connection')
    }
  }
  return {
    deps,
    repos,
    inTransaction: deps.inTransaction,
    queue: deps.queue,
    clock: deps.clock,
    log,
    changed: (uid) => { deps.progress?.changed(uid) },
    countTasks,
    deliver
  }
}
