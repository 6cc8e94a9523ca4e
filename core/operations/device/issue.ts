// Writes the device task that carries out an operation task (docs/devices.md: one device task per
// operation task, its uid the operation task's so that a device can ignore a duplicate). The task leaves for the
// device once the chunk is committed (TaskOutcome.deliver, core/operations/engine.ts).
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { DeviceTaskBody } from '../../domain/device-task.js'
import type { TaskContext, TaskOutcome } from '../handler.js'

export interface IssueOptions {
  /** Ask the device to connect when it is not connected (requestConnection, wake-up). */
  requestConnection: boolean
  /** A device task after the first for the same operation task (e.g. the reboot after settings): its own uid. */
  uid?: string
  params?: Record<string, unknown>
}

export async function issueDeviceTask (ctx: Pick<TaskContext, 'tx' | 'op' | 'task' | 'now'>, protocol: DeviceProtocol, body: DeviceTaskBody, opts: IssueOptions): Promise<TaskOutcome> {
  const { tx, op, task, now } = ctx
  const uid = opts.uid ?? task.uid
  await tx.deviceTasks.insert([{
    uid,
    systemUid: task.systemUid,
    operationUid: op.uid,
    operationTaskUid: task.uid,
    protocol,
    task: { uid, timestamp: now, ...body },
    createdAt: now
  }])
  return {
    state: 'IN_PROGRESS',
    params: { ...task.params, ...opts.params, protocol, deviceTask: uid },
    deliver: { systemUid: task.systemUid, protocol, requestConnection: opts.requestConnection }
  }
}
