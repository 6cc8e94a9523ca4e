import type { Clock, UnitOfWork } from '../../ports.js'
import type { Logger } from '../../logger.js'
import type { MetricsRegistry } from '../../metrics.js'
import type { JobQueue } from '../../queue.js'
import type { Repositories } from '../../repositories.js'
import type { CallbackSender, Mailer } from '../../notify.js'
import type { Actor } from '../../domain/actor.js'
import type { CompanyAccess } from '../access.js'
import type { OperationJobs } from '../../operations/jobs.js'
import type { CallbackGuard } from '../../operations/callback-guard.js'
import { createEngine } from '../../operations/engine.js'
import { createOperationsReader } from './read.js'
import { labelHandler, labelOperation, type LabelBody } from './label.js'
import { deleteHandler, deleteOperation, type DeleteBody } from './delete.js'
import { exportHandler, exportOperation, type ExportBody } from './export.js'
import { transferHandler, transferOperation, type TransferBody } from './transfer.js'
import { swapSimHandler, swapSimOperation, type SwapSimBody } from './swap-sim.js'

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
}

/** Bulk operations: creation (validated synchronously), reading, cancelling; the engine runs them. */
export function createOperationsService (deps: OperationsServiceDeps) {
  const engine = createEngine({
    ...deps,
    handlers: {
      SYSTEM_LABEL: labelHandler,
      SYSTEM_DELETE: deleteHandler,
      SYSTEM_EXPORT_DATA_HISTORY: exportHandler,
      SYSTEM_TRANSFER: transferHandler,
      SYSTEM_SWAP_SIM: swapSimHandler
    }
  })
  const opDeps = { repos: deps.repos, clock: deps.clock, engine, callbacks: deps.callbacks }
  const caller = (access: CompanyAccess, actor: Actor): { access: CompanyAccess, actor: Actor } => ({ access, actor })
  return {
    engine,
    ...createOperationsReader(deps.repos, engine),
    label: async (access: CompanyAccess, actor: Actor, body: LabelBody) => await labelOperation(opDeps, caller(access, actor), body),
    remove: async (access: CompanyAccess, actor: Actor, body: DeleteBody) => await deleteOperation(opDeps, caller(access, actor), body),
    transfer: async (access: CompanyAccess, actor: Actor, body: TransferBody) => await transferOperation(opDeps, caller(access, actor), body),
    swapSim: async (access: CompanyAccess, actor: Actor, body: SwapSimBody) => await swapSimOperation(opDeps, caller(access, actor), body),
    exportHistory: async (access: CompanyAccess, actor: Actor, systemUid: string, body: ExportBody) =>
      await exportOperation(opDeps, caller(access, actor), systemUid, body)
  }
}

export type OperationsService = ReturnType<typeof createOperationsService>
