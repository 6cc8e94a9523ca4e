// The store of the operations engine (docs/operations.md#bulk-operations): operations, their tasks and produced files.
import type { AbortedBy, Counters, DependsOn, NewTask, Operation, OperationState, Task, TaskState } from '../domain/operation.js'
import type { Found, Page } from '../paging.js'
import type { CallbackAttempt } from '../operations/callback-guard.js'

export interface OperationFilter {
  uid?: string[] | undefined
  states?: string[] | undefined
  operationTypes?: string[] | undefined
  target?: string | undefined
  user?: string | undefined
  createdAfter?: number | undefined
  createdBefore?: number | undefined
}

export interface TaskResult {
  uid: string
  /** CANCELLED: only as its device answered (docs/protocols/ddi.md): the engine's own cancel is cancelTasks. */
  state: 'SUCCESS' | 'FAILURE' | 'IN_PROGRESS' | 'CANCELLED'
  errorCode?: string | null
  errorMessage?: string | null
  params?: Record<string, unknown> | null
  /** The system the task made or found (a CSV row's task); absent: unchanged. */
  systemUid?: string
  systemName?: string | null
}

export interface OperationsRepository {
  insert (op: Operation): Promise<void>
  /** Appends tasks (seq continues) and raises total. */
  insertTasks (operationUid: string, tasks: NewTask[], now: number): Promise<number>
  find (uid: string): Promise<Operation | undefined>
  findInCompany (companyUid: string, uid: string): Promise<Operation | undefined>
  list (companyUid: string, f: OperationFilter, page: Page): Promise<Found<Operation>>
  counts (operationUids: string[]): Promise<Map<string, Partial<Record<TaskState, number>>>>
  tasks (operationUid: string, states: string[] | undefined, page: Page): Promise<Found<Task>>
  /** Locks up to `limit` PENDING tasks of the operation in seq order, skipping those another worker holds. */
  claimPending (operationUid: string, limit: number): Promise<Task[]>
  /** The task, locked until the transaction ends (a device's answer and a cancel do not cross). */
  lockTask (taskUid: string): Promise<Task | undefined>
  /** These tasks by uid, locked until the transaction ends (in uid order: two batches never wait on each other). */
  lockTasks (taskUids: readonly string[]): Promise<Map<string, Task>>
  setTaskResults (results: TaskResult[], now: number): Promise<void>
  /** Whether a task is still open (not final): the first one found answers, however many there are. */
  hasOpenTasks (operationUid: string): Promise<boolean>
  /** Changes the state when it is `from` (or any of `from`); answers whether it changed. */
  transition (uid: string, from: OperationState[], to: OperationState, patch: Partial<Pick<Operation, 'startDate' | 'endDate' | 'cancelDate'>> & { followupsPending?: boolean }): Promise<boolean>
  /** FINISHED operations whose follow-ups (callback, mail, dependent operations) may not all be queued yet. */
  pendingFollowups (): Promise<Operation[]>
  /** Marks the follow-ups of the operation queued. */
  clearFollowups (uid: string): Promise<void>
  setResolved (uid: string): Promise<void>
  /** Parent tasks' systems, for a dependsOn selection. */
  parentSystems (dependsOn: DependsOn): Promise<Array<{ systemUid: string, systemName: string | null }>>
  children (operationUid: string): Promise<string[]>
  /**
   * Cancels what has not finished: PENDING → CANCELLED, IN_PROGRESS → BEING_CANCELLED, except a task whose device
   * task was not delivered yet: withdrawn, CANCELLED at once (docs/operations.md#bulk-operations). `reason`: the
   * error the tasks CANCELLED here carry (a rollout's abort, operation.aborted.threshold); none by default.
   */
  cancelTasks (operationUid: string, now: number, reason?: { code: string, message: string }): Promise<void>
  /**
   * Tasks still open past their operation's timeoutDate → FAILURE operation.timeout, their device tasks withdrawn
   * (never delivered, or delivered again, after); answers the operations touched.
   */
  timeOut (now: number): Promise<string[]>
  /** The operation, its row locked until the transaction ends (one rollout budget, one abort, across processes). */
  lock (uid: string): Promise<Operation | undefined>
  /** The operation's tasks started after `since`, and the oldest start among them (a rollout's release budget). */
  startedSince (operationUid: string, since: number): Promise<{ count: number, oldest: number | null }>
  /**
   * Records why a rollout stopped (its cancelDate too, when it has none) unless it is FINISHED or stopped already;
   * answers whether it did. The caller cancels the remaining tasks in the same transaction.
   */
  setAborted (uid: string, abortedBy: AbortedBy, now: number): Promise<boolean>
  /** Pauses (pausedAt) or resumes (null) an operation not FINISHED; answers whether that changed anything. */
  setPaused (uid: string, pausedAt: number | null): Promise<boolean>
  /** When its rollout lets the next task leave (the operation JSON's rollout.nextAt); null while nothing waits. */
  setRolloutNextAt (uid: string, at: number | null): Promise<void>
  /** Per operation, its tasks that have left PENDING to run (a start date): the rollout's `sent`. */
  started (operationUids: string[]): Promise<Map<string, number>>
  /** The open (IN_PROGRESS, BEING_CANCELLED) tasks on these systems of operations of these types. */
  openTasksOf (systemUids: readonly string[], types: readonly string[]): Promise<Array<{ uid: string, operationUid: string }>>
  /** Operations not FINISHED: for recovery after a restart. */
  unfinished (): Promise<Operation[]>
  /** Counts one callback try and keeps its outcome when it is the latest (operation JSON `callbackDelivery`). */
  recordCallback (operationUid: string, attempt: CallbackAttempt): Promise<void>
  putFile (operationUid: string, file: { name: string, contentType: string, data: Buffer }): Promise<void>
  file (operationUid: string): Promise<{ name: string, contentType: string, data: Buffer } | undefined>
  /** Operations with a dependsOn on this company's operation, and the like: by uid in a company. */
  dataset (companyUid: string, uid: string): Promise<{ uid: string, name: string, data: string[] } | undefined>
  putDataset (d: { uid: string, companyUid: string, name: string, data: string[] }): Promise<void>
  datasetByName (companyUid: string, name: string): Promise<{ uid: string, name: string, data: string[] } | undefined>
}

export type { Counters }
