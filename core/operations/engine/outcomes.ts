// What a task's run or its device's answer makes of the task: the TaskResult the engine writes.
import { FleetError, type ErrorCode } from '../../errors.js'
import type { Task } from '../../domain/operation.js'
import type { DeviceAnswer } from '../../domain/device-task.js'
import type { TaskResult } from '../../ports/operations.js'
import type { DispatchRequest } from '../../ports/devices.js'
import type { TaskOutcome } from '../handler.js'

/** The code of a task its device answered ERROR (the device's message is the error message). */
export const DEVICE_ERROR: ErrorCode = 'operation.device.error'

/** docs/devices.md: the device's OK ends the task SUCCESS, its ERROR ends it FAILURE with its message. */
export function defaultAnswer (answer: DeviceAnswer): TaskOutcome {
  if (answer.status === 'OK') return { state: 'SUCCESS' }
  throw new FleetError(DEVICE_ERROR, answer.message === null ? [] : [answer.message])
}

/**
 * A device that answers it cancelled the task (docs/protocols/ddi.md#feedback-and-task-states): CANCELLED, whether the
 * operation was cancelling it or the device gave it up itself. No handler decides it: nothing was carried out.
 */
export function cancelledByDevice (task: Task): TaskResult {
  return { uid: task.uid, state: 'CANCELLED' }
}

/** The task's new state, and the delivery its device tasks wait for. */
export function succeeded (task: Task, o: TaskOutcome, deliveries: DispatchRequest[]): TaskResult {
  if (o.state === 'IN_PROGRESS' && o.deliver !== undefined) deliveries.push(o.deliver)
  const system = o.state === 'SUCCESS' && o.system !== undefined ? { systemUid: o.system.uid, systemName: o.system.name } : {}
  return { uid: task.uid, state: o.state, params: o.params ?? null, ...system }
}

export function failure (task: Task, err: FleetError): TaskResult {
  // A device's own words are the message of its ERROR (docs/devices.md).
  const message = err.code === DEVICE_ERROR ? err.params[0] ?? 'ERROR' : [err.code, ...err.params].join(' ')
  return { uid: task.uid, state: 'FAILURE', errorCode: err.code, errorMessage: message }
}
