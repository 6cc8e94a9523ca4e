import type { FleetError } from '../errors.js'
import type { Repositories } from '../ports/repositories.js'
import type { Operation, Task } from '../domain/operation.js'
import type { DeviceAnswer } from '../domain/device-task.js'
import type { DispatchRequest } from '../ports/devices.js'

export interface TaskContext {
  /** Repositories bound to the chunk's transaction; the task runs inside its own savepoint. */
  tx: Repositories
  op: Operation
  task: Task
  now: number
}

/** The system a task made or found while running (a CSV row's task has none before: core/operations/csv/). */
export interface TaskSystem { uid: string, name: string | null }

/**
 * What running a task did: done (SUCCESS), or started on a device and waiting for its acknowledgement. A task that
 * wrote device tasks (tx.deviceTasks) names in `deliver` where they go: the engine hands it to the task dispatch once
 * the chunk is committed (core/ports/devices.ts), so that no device ever gets a task whose transaction rolled back.
 */
export type TaskOutcome =
  | { state: 'SUCCESS', params?: Record<string, unknown>, system?: TaskSystem }
  | { state: 'IN_PROGRESS', params?: Record<string, unknown>, deliver?: DispatchRequest }

/** A device answered one of the device tasks this operation task wrote (docs/devices.md). */
export interface AnswerContext extends TaskContext { answer: DeviceAnswer }

export interface ChunkContext {
  /** Repositories bound to the chunk's transaction; the whole chunk runs inside one savepoint. */
  tx: Repositories
  op: Operation
  tasks: Task[]
  now: number
}

/**
 * How one operation type applies to one system. A FleetError thrown by run() fails the task with its code and
 * undoes the task's changes; any other error undoes the whole chunk, which is run again
 * (docs/decisions/0019-operations-engine-and-device-tasks.md).
 */
export interface OperationHandler {
  /**
   * Optional: what one task costs against the engine's chunk size (default 1): a chunk takes chunkSize / taskWeight
   * tasks, so that a chunk of heavy tasks holds the store (and, on PGlite, the API) no longer than a light one.
   */
  taskWeight?: number
  run (ctx: TaskContext): Promise<TaskOutcome>
  /**
   * Optional: the same as run() for every task of a chunk at once, in a few statements (a statement costs about
   * half a millisecond of CPU on PGlite: labelling 10,000 systems one UPDATE each took ~10 times longer). Answers
   * one outcome per task, in order; a FleetError fails that task, which must then have changed nothing. Throwing
   * undoes the whole chunk: a FleetError makes the engine run the chunk again task by task with run(), any other
   * error is handled as in run().
   */
  runChunk? (ctx: ChunkContext): Promise<Array<TaskOutcome | FleetError>>
  /** After run() or answered() failed with a FleetError and its changes were undone, in the same transaction: what
   *  must outlast the failure (for instance releasing what the task reserved, or a system's syncStatus ERROR). */
  failed? (ctx: TaskContext): Promise<void>
  /**
   * Optional: what a device's answer means for the task (default: OK → SUCCESS, ERROR → FAILURE with the device's
   * message). May write the next device task and stay IN_PROGRESS (apply settings, then reboot). A FleetError fails
   * the task with its code. Runs in the transaction that records the task's new state.
   */
  answered? (ctx: AnswerContext): Promise<TaskOutcome>
  /**
   * Optional: device messages of the task's system were stored while the task was open (retrieve data waits for the
   * values read: docs/devices.md). Answers how the task ends, or undefined to keep waiting. Runs with
   * the task locked, in the transaction that records its new state.
   */
  reported? (ctx: TaskContext): Promise<TaskOutcome | undefined>
  /** Once, when the operation finishes (for instance to release what the operation reserved). */
  finished? (tx: Repositories, op: Operation, now: number): Promise<void>
}
