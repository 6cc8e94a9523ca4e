// Device tasks over the gateway's access path (docs/devices.md): a read reads the MSCI ids
// its data ids name and stores them as one device message, then acks; a write sets them (SNMP SET,
// Embedded_Ace_Set_Task); a command that is a REBOOT action of the system's applications writes 1 to MSCI 65001
// (docs/protocols/msci.md [S]: "reset modem"), any other command naming an MSCI id writes its first parameter (or 1)
// there. The gateway's answer ends the task: OK, or ERROR with why (an id it has not, a write it refused).
// A gateway that stops answering mid-task leaves the task SENT: it is delivered again at the next poll. MSCI installs
// no application package: the install operation fails such a system's task before writing one
// (docs/packages.md#installs), and one that reaches a gateway all the same is answered ERROR.
import type { DataPoint, DataValue } from '../../core/domain/device-message.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import type { ActionType } from '../../core/domain/application-model.js'
import { MSCI_REBOOT, entryOf, msciIdOf } from '../../protocols/msci/ids.js'
import { plainValue, valueOf } from '../../protocols/msci/values.js'
import { MsciError, type GatewayAccess, type RawValue } from './access.js'

export interface TaskAnswer { uid: string, status: 'OK' | 'ERROR', message: string | null, points?: DataPoint[] }

/** The gateway's value of one asked data id, stored under that id (and under the table's id when it differs). */
export function pointsOf (dataId: string, id: number, raw: RawValue, ts: number): DataPoint[] {
  const entry = entryOf(id)
  const value = entry === undefined ? plainValue(raw) : valueOf(entry, raw)
  if (value === undefined) return []
  const own = { dataId, ts, value }
  return entry === undefined || entry.dataId === dataId ? [own] : [own, { dataId: entry.dataId, ts, value }]
}

/** A setting's value as the gateway takes it: booleans as 1 / 0; null is refused. */
function writable (v: DataValue | undefined): RawValue | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string') return v
  return undefined
}

async function written (access: GatewayAccess, uid: string, values: Array<readonly [number, RawValue]>): Promise<TaskAnswer> {
  try {
    await access.write(values)
    return { uid, status: 'OK', message: null }
  } catch (err) {
    if (err instanceof MsciError && err.kind === 'refused') return { uid, status: 'ERROR', message: err.message }
    throw err
  }
}

/** Runs one task; answers how it ended. @throws MsciError when the gateway did not answer (the poll fails) */
export async function runTask (access: GatewayAccess, task: DeviceTask, actions: ReadonlyMap<string, ActionType>, now: () => number): Promise<TaskAnswer> {
  const { uid } = task
  if ('read' in task) {
    const ids = task.read.map((dataId) => [dataId, msciIdOf(dataId)] as const)
    const unknown = ids.filter(([, id]) => id === undefined).map(([d]) => d)
    if (unknown.length > 0) return { uid, status: 'ERROR', message: `not an MSCI id: ${unknown.join(', ')}` }
    const values = await access.read([...new Set(ids.map(([, id]) => id as number))])
    const ts = now()
    const points: DataPoint[] = []
    const missing: string[] = []
    for (const [dataId, id] of ids) {
      const raw = values.get(id as number)
      const got = raw === undefined ? [] : pointsOf(dataId, id as number, raw, ts)
      if (got.length === 0) missing.push(dataId)
      points.push(...got)
    }
    if (missing.length > 0) return { uid, status: 'ERROR', message: `no value from the gateway for: ${missing.join(', ')}`, points }
    return { uid, status: 'OK', message: null, points }
  }
  if ('write' in task) {
    const values: Array<readonly [number, RawValue]> = []
    for (const setting of task.write) {
      for (const [dataId, v] of Object.entries(setting)) {
        const id = msciIdOf(dataId)
        const value = writable(v)
        if (id === undefined) return { uid, status: 'ERROR', message: `not an MSCI id: ${dataId}` }
        if (value === undefined) return { uid, status: 'ERROR', message: `no value to write to ${dataId}` }
        values.push([id, value])
      }
    }
    return await written(access, uid, values)
  }
  if ('software' in task) return { uid, status: 'ERROR', message: 'MSCI installs no application package' }
  const { id: commandId, params } = task.command
  if (actions.get(commandId) === 'REBOOT') return await written(access, uid, [[MSCI_REBOOT, 1]])
  const id = msciIdOf(commandId)
  if (id === undefined) return { uid, status: 'ERROR', message: `command ${commandId} has no MSCI id` }
  const first = writable(Object.values(params ?? {})[0] as DataValue | undefined)
  return await written(access, uid, [[id, first ?? 1]])
}
