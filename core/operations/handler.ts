import type { FleetError } from '../errors.js'
import type { Repositories } from '../repositories.js'
import type { Operation, Task } from '../domain/operation.js'

export interface TaskContext {
  /** Repositories bound to the chunk's transaction; the task runs inside its own savepoint. */
  tx: Repositories
  op: Operation
  task: Task
  now: number
}

/** What running a task did: done (SUCCESS), or started on a device and waiting for its acknowledgement. */
export type TaskOutcome = { state: 'SUCCESS', params?: Record<string, unknown> } | { state: 'IN_PROGRESS', params?: Record<string, unknown> }

export interface ChunkContext {
  /** Repositories bound to the chunk's transaction; the whole chunk runs inside one savepoint. */
  tx: Repositories
  op: Operation
  tasks: Task[]
  now: number
}

/**
 * How one operation type applies to one system. A FleetError thrown by run() fails the task with its code and
 * undoes the task's changes; any other error undoes the whole chunk, which is run again (shared/style.md §2.7).
 */
export interface OperationHandler {
  run (ctx: TaskContext): Promise<TaskOutcome>
  /**
   * Optional: the same as run() for every task of a chunk at once, in a few statements (a statement costs about
   * half a millisecond of CPU on PGlite: labelling 10,000 systems one UPDATE each took ~10 times longer). Answers
   * one outcome per task, in order; a FleetError fails that task, which must then have changed nothing. Throwing
   * undoes the whole chunk: a FleetError makes the engine run the chunk again task by task with run(), any other
   * error is handled as in run().
   */
  runChunk? (ctx: ChunkContext): Promise<Array<TaskOutcome | FleetError>>
  /** After run() failed with a FleetError and its changes were undone, in the same transaction: what must outlast
   *  the failure (for instance releasing what the task reserved). */
  failed? (ctx: TaskContext): Promise<void>
  /** Once, when the operation finishes (for instance to release what the operation reserved). */
  finished? (tx: Repositories, op: Operation, now: number): Promise<void>
}
