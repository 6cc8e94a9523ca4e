// What a simulated M3DA agent puts in and reads from envelope payloads (docs/protocols/m3da.md), in the terms of
// the simulator's task loop (devices/simulated-device.ts): data points become Messages, one per path and timestamp
// (`timestamp` in POSIX seconds, with the milliseconds as a fraction so that two reports in one second keep their
// order); the server's Messages become tasks (`@sys.commands.<Cmd>` the actions, ReadNode a read, any other path a
// write of settings), their ticket the task uid; an acknowledgement becomes the Response of that ticket.
import type { DataValue, JsonValue, Point, Task, WriteTask } from '../../protocols/airvantage/index.js'
import type { BysantValue, Encodable } from '../../protocols/bysant/index.js'
import type { M3daMessage, M3daResponse } from '../../protocols/m3da/index.js'
import { dataIdOfPath, dataIdsOfNode, m3daPathOf, normalise, splitLast } from '../devices/m3da-paths.js'
import { ACTIONS } from '../devices/settings.js'
import { SOFTWARE_UPDATE, type DeviceAck } from '../devices/software.js'

export type OutgoingObject = { kind: 'message', path: string, ticketId: number | null, body: Record<string, Encodable> } | M3daResponse

/** The Mihini `@sys.commands` names of the generic firmware's actions (docs/protocols/m3da.md). */
export const COMMANDS: Readonly<Record<string, string>> = {
  Reboot: ACTIONS.reboot,
  ResetToFactoryDefault: ACTIONS.reset,
  Connect: ACTIONS.connect
}
const COMMANDS_PATH = '@sys.commands'
/** Mihini's status of a failed command (docs/protocols/m3da.md: −1 for a generic failure). */
export const FAILED = -1

/** One Message per path and timestamp, in the order the points come. */
export function messagesOf (points: readonly Point[]): OutgoingObject[] {
  const byKey = new Map<string, { path: string, ts: number, body: Record<string, Encodable> }>()
  for (const p of points) {
    const { path, key } = splitLast(m3daPathOf(p.dataId))
    const k = `${p.ts} ${path}`
    let m = byKey.get(k)
    if (m === undefined) { m = { path, ts: p.ts, body: {} }; byKey.set(k, m) }
    m.body[key] = p.value
  }
  return [...byKey.values()].map((m) => ({ kind: 'message', path: m.path, ticketId: null, body: { ...m.body, timestamp: m.ts / 1000 } }))
}

/** A received value as a data value: Bysant strings arrive as bytes, large integers as bigint. */
function valueOf (v: BysantValue): DataValue | undefined {
  if (v === null || typeof v === 'boolean' || typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (Buffer.isBuffer(v)) return v.toString('utf8')
  return undefined
}

const text = (v: BysantValue): string => Buffer.isBuffer(v) ? v.toString('utf8') : String(v)

/** The task uid of a ticket; a Message without one gets a uid that no Response answers. */
const TICKET = 'm3da-ticket-'
export const ticketUid = (ticketId: number): string => TICKET + String(ticketId)
let unticketed = 0

/**
 * The server's Messages as tasks of the simulator's loop (ticket 0 or null: nothing to answer). The writes of one
 * ticket are one task, whatever the paths they are spread over: one Response answers them all.
 */
export function tasksOf (messages: readonly M3daMessage[], now: number): Task[] {
  const tasks = messages.map((m) => taskOf(m, now))
  const out: Task[] = []
  const writes = new Map<string, WriteTask>()
  for (const t of tasks) {
    if (!('write' in t)) { out.push(t); continue }
    const same = writes.get(t.uid)
    if (same === undefined) { writes.set(t.uid, t); out.push(t) } else same.write.push(...t.write)
  }
  return out
}

function taskOf (m: M3daMessage, now: number): Task {
  const uid = m.ticketId !== null && m.ticketId > 0 ? ticketUid(m.ticketId) : `m3da-unticketed-${++unticketed}`
  const path = normalise(String(m.path))
  const entries = [...m.body]
  // `@sys.commands.Reboot {…}` and `@sys.commands {Reboot: {…}}` reach the same handler (§2.7).
  let command: string | undefined
  let args: BysantValue | Map<string | number, BysantValue> = m.body
  if (path.startsWith(COMMANDS_PATH + '.')) command = path.slice(COMMANDS_PATH.length + 1).split('.')[0]
  else if (path === COMMANDS_PATH && entries[0] !== undefined) { command = String(entries[0][0]); args = entries[0][1] }
  if (command === 'ReadNode') {
    const nodes = args instanceof Map ? [...args.values()] : [args]
    return { uid, timestamp: now, read: [...new Set(nodes.flatMap((n) => dataIdsOfNode(text(n))))] }
  }
  // SoftwareUpdate keeps its arguments (url, signature): the device's software loop reads them (software.ts).
  if (command === SOFTWARE_UPDATE) return { uid, timestamp: now, command: { id: command, params: argumentsOf(args) } }
  if (command !== undefined) return { uid, timestamp: now, command: { id: COMMANDS[command] ?? command, params: {} } }
  // Any other path is a write of tree variables (§2.7): each body key under it is one setting.
  const write = entries.map(([k, v]) => ({ [dataIdOfPath(`${path}.${String(k)}`)]: valueOf(v) ?? text(v) }))
  return { uid, timestamp: now, write }
}

/** A command's map of arguments as text and numbers (strings arrive as bytes). */
function argumentsOf (args: BysantValue | Map<string | number, BysantValue>): Record<string, JsonValue> {
  if (!(args instanceof Map)) return {}
  const out: Record<string, JsonValue> = {}
  for (const [k, v] of args) out[String(k)] = valueOf(v) ?? null
  return out
}

/**
 * The Response of each acknowledged ticketed task: the ack's own status code when it has one (an update's 0 or 55x),
 * otherwise 0, or −1 with the ack's message.
 */
export function responsesOf (acks: readonly DeviceAck[]): M3daResponse[] {
  return acks.flatMap((a) => {
    const ticketId = a.uid.startsWith(TICKET) ? Number(a.uid.slice(TICKET.length)) : Number.NaN
    if (!Number.isSafeInteger(ticketId) || ticketId <= 0) return []
    return [{ kind: 'response' as const, ticketId, status: a.code ?? (a.status === 'OK' ? 0 : FAILED), data: a.status === 'OK' ? null : a.message }]
  })
}
