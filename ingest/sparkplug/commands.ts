// Device tasks → NCMD / DCMD (docs/protocols/sparkplug.md; docs/protocols/sparkplug.md), and what ends each task, since
// an edge node sends no acknowledgement:
// - reboot (a command naming a REBOOT action): NCMD `Node Control/Reboot` = true; ends OK at the node's next NBIRTH
//   or its honoured NDEATH;
// - apply settings (`write`): one NCMD (node metrics) and one DCMD per device with the metrics and their BIRTH
//   datatypes; ends at the report (NDATA, DDATA or a BIRTH) of every metric written: OK when the values reported are
//   the ones written, ERROR naming the first that is not;
// - retrieve (`read`): answered at once from the last values of the session when it has them all, otherwise a
//   rebirth is asked (NCMD `Node Control/Rebirth`) and the task ends OK once the BIRTHs brought them;
// - wake-up (CONNECT): the node is connected, OK at once; reset to factory: no Sparkplug command, ERROR at once;
// - any other command: a write of the metric it names (its `value` parameter, else true), OK once sent;
// - an application package (install, start...): Sparkplug B has no command for it, ERROR at once (the install
//   operation fails such a system's task before writing one: docs/packages.md#installs).
// A task that gets none of these ends on its operation's timeout.
import type { DataValue } from '../../core/domain/device-message.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { DataType, datatypeFor, type OutgoingMetric, type ScalarValue } from '../../protocols/sparkplug/index.js'
import { dataIdOf, metricKey, type Awaiting, type EdgeNode } from './edge-nodes.js'

export const REBIRTH = 'Node Control/Rebirth'
export const REBOOT = 'Node Control/Reboot'

/** One NCMD (device absent) or DCMD. */
export interface Command { device?: string, metrics: OutgoingMetric[] }
export interface Answer { uid: string, status: 'OK' | 'ERROR', message: string | null }

export type TaskPlan =
  | { kind: 'send', commands: Command[], awaiting?: Awaiting, answer?: Answer }
  /** A retrieve answered from the session's values: stored as a message, then acknowledged. */
  | { kind: 'values', ids: readonly string[], answer: Answer }
  | { kind: 'answer', answer: Answer }

export const controlCommand = (name: string): Command => ({ metrics: [{ name, datatype: DataType.Boolean, value: true }] })

const scalar = (v: unknown): ScalarValue => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? v : JSON.stringify(v) ?? null

/** Where a data id written goes: a metric of the node, or of a device born under it (`<device>/<metric>`). */
function target (node: EdgeNode, id: string): { device?: string, name: string } {
  if (node.metrics.has(metricKey(undefined, id))) return { name: id }
  const at = id.indexOf('/')
  if (at > 0 && node.devices.has(id.slice(0, at))) return { device: id.slice(0, at), name: id.slice(at + 1) }
  return { name: id }
}

function writes (node: EdgeNode, uid: string, settings: ReadonlyArray<Record<string, DataValue>>): TaskPlan {
  const byDevice = new Map<string | undefined, OutgoingMetric[]>()
  const pending = new Map<string, DataValue>()
  for (const setting of settings) {
    for (const [id, raw] of Object.entries(setting)) {
      const value = scalar(raw)
      const { device, name } = target(node, id)
      const datatype = node.metrics.get(metricKey(device, name))?.datatype ?? datatypeFor(value)
      byDevice.set(device, [...(byDevice.get(device) ?? []), { name, datatype, value }])
      pending.set(dataIdOf(device, name), value)
    }
  }
  if (pending.size === 0) return { kind: 'answer', answer: { uid, status: 'OK', message: null } }
  const commands = [...byDevice].map(([device, metrics]) => device === undefined ? { metrics } : { device, metrics })
  return { kind: 'send', commands, awaiting: { uid, kind: 'write', pending } }
}

/** What to do with one task for this node. */
export function planTask (node: EdgeNode, task: DeviceTask): TaskPlan {
  if ('read' in task) {
    if (task.read.every((id) => node.values.has(id))) return { kind: 'values', ids: task.read, answer: { uid: task.uid, status: 'OK', message: null } }
    return { kind: 'send', commands: [controlCommand(REBIRTH)], awaiting: { uid: task.uid, kind: 'read', ids: task.read } }
  }
  if ('write' in task) return writes(node, task.uid, task.write)
  if ('software' in task) return { kind: 'answer', answer: { uid: task.uid, status: 'ERROR', message: 'Sparkplug B has no command to install an application package' } }
  const { id, params } = task.command
  switch (node.actions?.get(id)) {
    case 'REBOOT': return { kind: 'send', commands: [controlCommand(REBOOT)], awaiting: { uid: task.uid, kind: 'reboot' } }
    case 'CONNECT': return { kind: 'answer', answer: { uid: task.uid, status: 'OK', message: null } }
    case 'RESET': return { kind: 'answer', answer: { uid: task.uid, status: 'ERROR', message: 'reset to factory has no Sparkplug B command' } }
    default: {
      const value = scalar('value' in params ? params.value : true)
      const { device, name } = target(node, id)
      const datatype = node.metrics.get(metricKey(device, name))?.datatype ?? datatypeFor(value)
      const command: Command = device === undefined ? { metrics: [{ name, datatype, value }] } : { device, metrics: [{ name, datatype, value }] }
      return { kind: 'send', commands: [command], answer: { uid: task.uid, status: 'OK', message: null } }
    }
  }
}

/** Whether a reported value is the one written (Float metrics come back rounded to 32 bits). */
export function sameValue (reported: DataValue, written: DataValue): boolean {
  if (typeof reported === 'number' && typeof written === 'number') {
    return Math.abs(reported - written) <= 1e-6 * Math.max(1, Math.abs(reported), Math.abs(written))
  }
  if (typeof written === 'number' || typeof reported === 'number') return String(reported) === String(written)
  return reported === written
}

/**
 * The tasks that the values just reported end (writes, reads); `rebooted`: an NBIRTH or an honoured NDEATH, which
 * ends the reboots. The answered tasks leave `node.awaiting`.
 */
export function settle (node: EdgeNode, reported: ReadonlyMap<string, DataValue>, rebooted: boolean): Answer[] {
  const answers: Answer[] = []
  node.awaiting = node.awaiting.filter((a) => {
    switch (a.kind) {
      case 'reboot':
        if (rebooted) answers.push({ uid: a.uid, status: 'OK', message: null })
        return !rebooted
      case 'read':
        if (!a.ids.every((id) => node.values.has(id))) return true
        answers.push({ uid: a.uid, status: 'OK', message: null })
        return false
      case 'write':
        for (const [id, written] of a.pending) {
          if (!reported.has(id)) continue
          const value = reported.get(id) ?? null
          if (!sameValue(value, written)) {
            answers.push({ uid: a.uid, status: 'ERROR', message: `${id}: the edge node reported ${JSON.stringify(value)}, not ${JSON.stringify(written)}` })
            return false
          }
          a.pending.delete(id)
        }
        if (a.pending.size > 0) return true
        answers.push({ uid: a.uid, status: 'OK', message: null })
        return false
    }
    return true
  })
  return answers
}
