import type { OperationStateEvent } from '../notify.js'

/** The jobs of the operations engine and their payloads (shared/style.md §2.7). */
export interface OperationJobs {
  /** Starts the operation when its schedule and dependsOn allow. */
  'operation.start': { operationUid: string }
  /** Runs the next chunk of the operation's pending tasks, then queues itself again while some remain. */
  'operation.run': { operationUid: string }
  /** One delivery attempt of a state-change callback. */
  'operation.callback': { operationUid: string, url: string, event: OperationStateEvent, attempt: number }
  /** The "operation finished" e-mail. */
  'operation.notify': { operationUid: string }
}
