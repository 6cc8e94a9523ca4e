// A task for a device (docs/devices.md): one per operation task of a device operation, carried by the
// system's protocol and ended by the device's acknowledgement. The body is protocol-neutral: it has the shape of the
// AirVantage JSON task (docs/protocols/mqtt.md) and each transport encodes it for its wire (JSON for MQTT and REST,
// Bysant for M3DA...).
import type { DataValue, DeviceProtocol } from './device-message.js'
import type { SoftwareBody } from './software-task.js'

/** Read these data ids and send their current values. */
export interface ReadBody { read: string[] }
/** Write these settings, one `{id: value}` object per setting. */
export interface WriteBody { write: Array<Record<string, DataValue>> }
/** Run a command or an action (reboot, reset, connect: the action's id) with named parameters. */
export interface CommandBody { command: { id: string, params: Record<string, unknown> } }
/** Install, uninstall, start or stop an application package (core/domain/software-task.ts). */
export type DeviceTaskBody = ReadBody | WriteBody | CommandBody | SoftwareBody

/** The task as a device receives it: its uid (the operation task's uid: a device ignores one it already ran). */
export type DeviceTask = { uid: string, timestamp: number } & DeviceTaskBody

/**
 * PENDING: not delivered yet; SENT: delivered, no answer yet (delivered again at the device's next connection or
 * poll); OK / ERROR: the device answered; CANCELLED: withdrawn before delivery (cancel, timeout), or the device
 * answered that it cancelled it (a hawkBit controller's canceled feedback: docs/protocols/ddi.md#feedback-and-task-states).
 */
export const DEVICE_TASK_STATES = ['PENDING', 'SENT', 'OK', 'ERROR', 'CANCELLED'] as const
export type DeviceTaskState = typeof DEVICE_TASK_STATES[number]

export interface DeviceTaskRecord {
  uid: string
  systemUid: string
  /** The operation whose task this is; null for a task written outside the operations engine. */
  operationUid: string | null
  /** The operation task it carries out (several device tasks may carry out one in turn: settings, then reboot). */
  operationTaskUid: string | null
  /** The transport that carries it (docs/devices.md). */
  protocol: DeviceProtocol
  task: DeviceTask
  state: DeviceTaskState
  createdAt: number
  sentAt: number | null
}

/**
 * What a device answers of a task: done (OK), failed (ERROR, its message why), or not carried out because it was
 * cancelled (CANCELLED: only transports whose devices can say so give it, hawkBit DDI today).
 */
export type AnswerStatus = 'OK' | 'ERROR' | 'CANCELLED'

/** A device's acknowledgement of one of its tasks that was still open. */
export interface DeviceAnswer {
  taskUid: string
  systemUid: string
  operationUid: string | null
  operationTaskUid: string | null
  status: AnswerStatus
  message: string | null
  at: number
}
