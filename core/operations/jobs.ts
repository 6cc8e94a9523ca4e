import type { OperationStateEvent } from '../ports/notify.js'
import type { JobHandlers } from '../ports/queue.js'
import type { AlertTriggeredEvent } from '../domain/alert-notice.js'

/**
 * Jobs of other modules than the engine, on the same queue and run by the same workers: their handlers are given to
 * engine.work (bin/serve.ts), so that one worker pool, one concurrency and one failure log serve every job.
 */
export interface ModuleJobs {
  /** An alert's hooks, e-mails, actions and stream event (core/services/alerts/alert-notify.ts; job id alert-notify:<uid>). */
  'alert.notify': { alertUid: string }
  /** One delivery try of an alert to one of its rule's hooks. */
  'alert.hook': { alertUid: string, hookUid: string, url: string, event: AlertTriggeredEvent, attempt: number }
}

export type ModuleJobHandlers = JobHandlers<ModuleJobs>

/** The jobs of the operations engine and their payloads (docs/decisions/0019-operations-engine-and-device-tasks.md). */
export interface OperationJobs extends ModuleJobs {
  /** Starts the operation when its schedule and dependsOn allow. */
  'operation.start': { operationUid: string }
  /** Runs the next chunk of the operation's pending tasks, then queues itself again while some remain. */
  'operation.run': { operationUid: string }
  /** One delivery attempt of a state-change callback. */
  'operation.callback': { operationUid: string, url: string, event: OperationStateEvent, attempt: number }
  /** The "operation finished" e-mail. */
  'operation.notify': { operationUid: string }
  /** Periodic: fails the tasks past their operation's timeoutDate (see PeriodicJobs). */
  'sweep.timeouts': null
  /** Periodic: moves commStatus of the systems whose expected period passed (docs/devices.md). */
  'sweep.comm-status': null
  /** Periodic: creates the monthly points partitions ahead and drops those past DATA_RETENTION_DAYS. */
  'points.partitions': null
}

/** One periodic piece of work: a repeatable job (core/ports/queue.ts repeat()), run once per period in a cluster. */
export interface PeriodicJob { everyMs: number, run: () => Promise<void> }

/** The periodic work the workers carry out, by job name (bin/serve.ts gives the periods and the work). */
export type PeriodicJobs = Record<'sweep.timeouts' | 'sweep.comm-status' | 'points.partitions', PeriodicJob>

/** Periodic work declared by others than the engine (a device transport's poller), by job name. */
export type ExtraPeriodicJobs = Readonly<Record<string, PeriodicJob>>
