// The rows of operations and operation_tasks, and the Operation and Task they make.
import type { AbortedBy, Operation, Task, TaskState } from '../../../core/domain/operation.js'

export interface OperationRow {
  uid: string
  company_uid: string
  type: Operation['type']
  state: Operation['state']
  created_at: number
  start_date: number | null
  scheduled_time: number | null
  timeout_date: number
  end_date: number | null
  cancel_date: number | null
  total: number
  target: string | null
  user_uid: string | null
  user_email: string | null
  notify: boolean
  callback: string | null
  parameters: Record<string, unknown>
  depends_on: Operation['dependsOn']
  resolved: boolean
  callback_attempts: number
  callback_last_status: number | null
  callback_last_error: string | null
  callback_last_attempt_at: number | null
  callback_delivered: boolean
  aborted_by: AbortedBy | null
  paused_at: number | null
  rollout_next_at: number | null
}

export const toOperation = (r: OperationRow): Operation => ({
  uid: r.uid,
  companyUid: r.company_uid,
  type: r.type,
  state: r.state,
  createdAt: r.created_at,
  startDate: r.start_date,
  scheduledTime: r.scheduled_time,
  timeoutDate: r.timeout_date,
  endDate: r.end_date,
  cancelDate: r.cancel_date,
  total: r.total,
  target: r.target,
  userUid: r.user_uid,
  userEmail: r.user_email,
  notify: r.notify,
  callback: r.callback,
  parameters: r.parameters,
  dependsOn: r.depends_on,
  resolved: r.resolved,
  callbackDelivery: {
    attempts: r.callback_attempts,
    lastStatus: r.callback_last_status,
    lastError: r.callback_last_error,
    lastAttemptAt: r.callback_last_attempt_at === null ? null : Number(r.callback_last_attempt_at),
    delivered: r.callback_delivered
  },
  abortedBy: r.aborted_by,
  pausedAt: r.paused_at,
  rolloutNextAt: r.rollout_next_at
})

export interface TaskRow {
  uid: string
  operation_uid: string
  seq: number
  system_uid: string
  system_name: string | null
  state: TaskState
  created_at: number
  start_date: number | null
  end_date: number | null
  error_code: string | null
  error_message: string | null
  line: number | null
  params: Record<string, unknown> | null
}

export const toTask = (r: TaskRow): Task => ({
  uid: r.uid,
  operationUid: r.operation_uid,
  seq: r.seq,
  systemUid: r.system_uid,
  systemName: r.system_name,
  state: r.state,
  createdAt: r.created_at,
  startDate: r.start_date,
  endDate: r.end_date,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  line: r.line,
  params: r.params
})
