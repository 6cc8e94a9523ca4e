// What the DDI module keeps (migrations/): action ids of software device tasks, the device's last feedback on each
// (removed with the task, or a week after it ended: action-prune.ts), the SHA-1 of served artifacts. Read with the
// device task and its operation task (core's tables).
import type { DeviceTask, DeviceTaskState } from '../../core/domain/device-task.js'

/** An action as the controller sees it: its device task and whether its operation is cancelling it. */
export interface DdiAction {
  id: number
  taskUid: string
  task: DeviceTask
  state: DeviceTaskState
  /** The operation task is BEING_CANCELLED: the controller is offered cancelAction instead of the deployment. */
  cancelling: boolean
}

export interface DdiFeedback { execution: string, details: string | null }

export interface DdiRepository {
  /**
   * The actions of these device tasks of the system, ids given now to those that have none, in the order of the
   * tasks' creation; a uid of another system's task names nothing.
   */
  offers (systemUid: string, taskUids: readonly string[], now: number): Promise<Array<{ id: number, taskUid: string, cancelling: boolean }>>
  /** The system's action of this id (undefined: none, or another system's). */
  action (systemUid: string, id: number): Promise<DdiAction | undefined>
  /** The device's latest feedback on its action. */
  feedback (systemUid: string, id: number, f: DdiFeedback, now: number): Promise<void>
  lastFeedback (systemUid: string, id: number): Promise<DdiFeedback | undefined>
  /**
   * Removes the actions whose device task ended (OK, ERROR, CANCELLED) before `endedBefore`; answers how many. An
   * open task's action is kept however old it is: its controller may still be installing.
   */
  pruneEnded (endedBefore: number): Promise<number>
  /** The SHA-1 of an artifact (by its SHA-256), undefined until computed once. */
  sha1 (sha256: string): Promise<string | undefined>
  putSha1 (sha256: string, sha1: string, now: number): Promise<void>
}
