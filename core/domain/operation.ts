// Bulk operations (docs/operations.md#bulk-operations; docs/operations.md#bulk-operations: the resource docs/api.md
// does not show).
import type { CallbackDelivery } from '../operations/callback-guard.js'

export const OPERATION_TYPES = ['SYSTEM_LABEL', 'SYSTEM_TRANSFER', 'SYSTEM_SWAP_SIM', 'SYSTEM_REGISTER', 'SYSTEM_IMPORT',
  'SYSTEM_EDIT', 'SYSTEM_DELETE', 'SYSTEM_RETRIEVE_DATA', 'SYSTEM_APPLY_SETTINGS', 'SYSTEM_REBOOT', 'SYSTEM_RESET',
  'SYSTEM_WAKEUP', 'SYSTEM_EXPORT_DATA_HISTORY', 'SYSTEM_IMPORT_USAGES', 'APPLICATION_RELEASE', 'APPLICATION_PUBLISH',
  'SYSTEM_INSTALL_APPLICATION', 'SYSTEM_UNINSTALL_APPLICATION', 'SYSTEM_START_APPLICATION', 'SYSTEM_STOP_APPLICATION'] as const
export type OperationType = typeof OPERATION_TYPES[number]

/**
 * What an operation acts on: systems, or the application catalogue (release and publish: docs/packages.md), whose
 * one task names no system.
 */
export type OperationEntity = 'SYSTEM' | 'APPLICATION'
export const operationEntity = (type: OperationType): OperationEntity => type.startsWith('APPLICATION_') ? 'APPLICATION' : 'SYSTEM'

export const OPERATION_STATES = ['SCHEDULED', 'IN_PROGRESS', 'FINISHED'] as const
export type OperationState = typeof OPERATION_STATES[number]

export const TASK_STATES = ['PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'BEING_CANCELLED', 'CANCELLED'] as const
export type TaskState = typeof TASK_STATES[number]
/** Task states that end a task (docs/api.md#systems: dependsOn.states). */
export const FINAL_TASK_STATES = ['SUCCESS', 'FAILURE', 'CANCELLED'] as const
export type FinalTaskState = typeof FINAL_TASK_STATES[number]

export interface DependsOn { operation: string, states: FinalTaskState[] }

/**
 * Why a rollout stopped (docs/operations.md#safe-rollouts; not in AirVantage), its PENDING tasks cancelled:
 * `failure.threshold`, at least `minTasks` tasks had ended and the share of FAILURE among them (`failed` of `ended`)
 * reached `failurePercent`; `wave.failed`, so many tasks of the waves up to `wave` failed that `needed` successes
 * among their `size` tasks (waveSuccessPercent) could no longer be reached, so no later wave could ever start.
 */
export type AbortedBy =
  | { reason: 'failure.threshold', failurePercent: number, minTasks: number, ended: number, failed: number }
  | { reason: 'wave.failed', wave: number, waveSuccessPercent: number, size: number, needed: number, succeeded: number, failed: number }

export interface Operation {
  uid: string
  companyUid: string
  type: OperationType
  state: OperationState
  createdAt: number
  startDate: number | null
  scheduledTime: number | null
  timeoutDate: number
  endDate: number | null
  cancelDate: number | null
  total: number
  target: string | null
  userUid: string | null
  userEmail: string | null
  notify: boolean
  callback: string | null
  parameters: Record<string, unknown>
  dependsOn: DependsOn | null
  /** False while a dependsOn operation waits for its parent to finish to know its systems. */
  resolved: boolean
  /** How its callbacks went, as stored (absent on an operation being built). */
  callbackDelivery?: CallbackDelivery
  /** Set when its failure threshold stopped it (core/operations/rollout.ts); absent or null otherwise. */
  abortedBy?: AbortedBy | null
  /** When a user paused it (POST .../pause): no task leaves until it is resumed; absent or null otherwise. */
  pausedAt?: number | null
  /** When its rollout lets the next task leave (a spent maxPerMinute, a closed window); absent or null otherwise. */
  rolloutNextAt?: number | null
}

export interface Task {
  uid: string
  operationUid: string
  seq: number
  systemUid: string
  systemName: string | null
  state: TaskState
  createdAt: number
  startDate: number | null
  endDate: number | null
  errorCode: string | null
  errorMessage: string | null
  line: number | null
  params: Record<string, unknown> | null
}

/** A task to create: the system, and what this system's task needs beyond the operation's parameters. */
export interface NewTask { systemUid: string, systemName: string | null, params?: Record<string, unknown>, line?: number }

export type Counters = Array<{ state: TaskState, count: number }>

/** All six task states, always (docs/operations.md#bulk-operations). */
export function counters (counts: Partial<Record<TaskState, number>>): Counters {
  return TASK_STATES.map((state) => ({ state, count: counts[state] ?? 0 }))
}

/**
 * docs/operations.md#bulk-operations: the operation JSON. `rollout`: its safe rollout and progress
 * (core/operations/rollout-view.ts), null when it has none.
 */
export function operationView (op: Operation, counts: Partial<Record<TaskState, number>>, rollout: Record<string, unknown> | null = null): Record<string, unknown> {
  return {
    uid: op.uid,
    entity: operationEntity(op.type),
    operationType: op.type,
    state: op.state,
    createdAt: op.createdAt,
    startDate: op.startDate,
    scheduledTime: op.scheduledTime,
    timeoutDate: op.timeoutDate,
    endDate: op.endDate,
    cancelDate: op.cancelDate,
    total: op.total,
    target: op.target,
    counters: counters(counts),
    user: op.userUid === null ? null : { uid: op.userUid, email: op.userEmail },
    notify: op.notify,
    callback: op.callback === null ? null : redactUrl(op.callback),
    // null without a callback; otherwise the tries so far (core/operations/callback-guard.ts).
    callbackDelivery: op.callback === null ? null : op.callbackDelivery ?? { attempts: 0, lastStatus: null, lastError: null, lastAttemptAt: null, delivered: false },
    parameters: op.parameters,
    dependsOn: op.dependsOn,
    // Not in AirVantage (safe rollouts): why the remaining tasks were cancelled, null when they were not.
    abortedBy: op.abortedBy ?? null,
    abortReason: op.abortedBy?.reason ?? null,
    rollout
  }
}

/** docs/operations.md#bulk-operations: the task JSON. */
export function taskView (t: Task): Record<string, unknown> {
  return {
    uid: t.uid,
    operation: t.operationUid,
    // A CSV row's task names its system once its row made one (core/operations/csv/): null before, or when it failed.
    system: t.systemUid === '' ? null : { uid: t.systemUid, name: t.systemName },
    state: t.state,
    createdAt: t.createdAt,
    startDate: t.startDate,
    endDate: t.endDate,
    error: t.errorCode === null ? null : { code: t.errorCode, message: t.errorMessage ?? t.errorCode },
    ...(t.line === null ? {} : { line: t.line })
  }
}

/** The password of a callback URL is never shown back. */
export function redactUrl (url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch { return url }
}
