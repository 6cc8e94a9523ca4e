// Tasks sent to devices (docs/protocols/mqtt.md, docs/devices.md): a JSON array published to
// `<id>/tasks/json` or answered by GET /device/tasks. Each task has a uid, a timestamp (ms) and one of read, write
// or command. ("swinstall" exists in one Sierra sample only and is not produced.)
import type { DataValue, Refusal } from './types.js'
import { isRecord, parseJson, type TextReason } from './text.js'

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

interface TaskHead { uid: string, timestamp: number }
/** Ask the device to send the current values of these data ids. */
export interface ReadTask extends TaskHead { read: string[] }
/** Settings to write, one `{id: value}` object per setting. */
export interface WriteTask extends TaskHead { write: Array<Record<string, DataValue>> }
/** A command such as `<asset>.<commandName>` with its named parameters. */
export interface CommandTask extends TaskHead { command: { id: string, params?: Record<string, JsonValue> } }
export type Task = ReadTask | WriteTask | CommandTask

/** What encodeTasks writes: a Task, whose command parameters may be any JSON the service was given. */
export type TaskToEncode = ReadTask | WriteTask | (TaskHead & { command: { id: string, params?: Record<string, unknown> } })

/** The JSON text of a task list, each task written as `{uid, timestamp, read|write|command}` in that key order. */
export function encodeTasks (tasks: readonly TaskToEncode[]): string {
  return JSON.stringify(tasks.map((t) => {
    const head = { uid: t.uid, timestamp: t.timestamp }
    if ('read' in t) return { ...head, read: t.read }
    if ('write' in t) return { ...head, write: t.write }
    return { ...head, command: { id: t.command.id, params: t.command.params ?? {} } }
  }))
}

export type TaskReason = TextReason | 'task.invalid.shape' | 'task.invalid.uid' | 'task.invalid.timestamp'
export type DecodedTasks = { ok: true, tasks: Task[] } | Refusal<TaskReason>

/** Decodes a task list as a device receives it (simulator, tests). Never throws. */
export function decodeTasks (input: Buffer | Uint8Array | string): DecodedTasks {
  const parsed = parseJson(input)
  if (!parsed.ok) return parsed
  if (!Array.isArray(parsed.json)) return { ok: false, reason: 'task.invalid.shape' }
  const tasks: Task[] = []
  for (const item of parsed.json) {
    const task = readTask(item)
    if (typeof task === 'string') return { ok: false, reason: task }
    tasks.push(task)
  }
  return { ok: true, tasks }
}

function readTask (item: unknown): Task | TaskReason {
  if (!isRecord(item)) return 'task.invalid.shape'
  const { uid, timestamp, read, write, command } = item
  if (typeof uid !== 'string' || uid === '') return 'task.invalid.uid'
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) return 'task.invalid.timestamp'
  if (Array.isArray(read) && read.every((id) => typeof id === 'string')) return { uid, timestamp, read }
  if (Array.isArray(write) && write.every(isSetting)) return { uid, timestamp, write }
  if (isRecord(command) && typeof command.id === 'string' && (command.params === undefined || isRecord(command.params))) {
    return { uid, timestamp, command: { id: command.id, params: (command.params ?? {}) as Record<string, JsonValue> } }
  }
  return 'task.invalid.shape'
}

function isSetting (v: unknown): v is Record<string, DataValue> {
  return isRecord(v) && Object.values(v).every((x) => x === null || ['number', 'string', 'boolean'].includes(typeof x))
}
