import type { OperationStateEvent } from '../ports/notify.js'

/** The jobs of the operations engine and their payloads (docs/decisions/0019-operations-engine-and-device-tasks.md). */
export interface OperationJobs {
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
