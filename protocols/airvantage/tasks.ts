// Tasks sent to devices (docs/protocols/mqtt.md, docs/devices.md): a JSON array published to
// `<id>/tasks/json` or answered by GET /device/tasks. Each task has a uid, a timestamp (ms) and one of read, write,
// command, or, for application packages (docs/packages.md#installs), swinstall, swuninstall, swstart or swstop.
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
/** Install an application package from its download link (application manager MQTT_SW). */
export interface SwInstallTask extends TaskHead { swinstall: { type: string, revision: string, url: string } }
/** Uninstall, start or stop an installed application, named by its type and revision. */
export interface SwUninstallTask extends TaskHead { swuninstall: SoftwareRef }
export interface SwStartTask extends TaskHead { swstart: SoftwareRef }
export interface SwStopTask extends TaskHead { swstop: SoftwareRef }
export interface SoftwareRef { type: string, revision: string }
export type SoftwareTask = SwInstallTask | SwUninstallTask | SwStartTask | SwStopTask
export type Task = ReadTask | WriteTask | CommandTask | SoftwareTask

/**
 * A software task as the service holds it (core/domain/software-task.ts): the action, the application and the links
 * of its binaries. The wire carries one link: an MQTT_SW model declares one binary (docs/protocols/mqtt.md#software).
 */
export interface SoftwareToEncode extends TaskHead {
  software: { action: 'install' | 'uninstall' | 'start' | 'stop', application: SoftwareRef, binaries: ReadonlyArray<{ url: string }> }
}

/**
 * What encodeTasks writes: a Task, whose command parameters may be any JSON the service was given, or a software task
 * as the service holds it.
 */
export type TaskToEncode = ReadTask | WriteTask | (TaskHead & { command: { id: string, params?: Record<string, unknown> } }) | SoftwareTask | SoftwareToEncode

/** The wire key of each software action. */
const SOFTWARE_KEYS = { install: 'swinstall', uninstall: 'swuninstall', start: 'swstart', stop: 'swstop' } as const

function encodeSoftware (head: TaskHead, { action, application, binaries }: SoftwareToEncode['software']): Record<string, unknown> {
  const ref = { type: application.type, revision: application.revision }
  return { ...head, [SOFTWARE_KEYS[action]]: action === 'install' ? { ...ref, url: binaries[0]?.url ?? '' } : ref }
}

/** A software task already in its wire form (simulator, tests), its fields in the wire's order. */
function encodeWire (head: TaskHead, t: SoftwareTask): Record<string, unknown> {
  if ('swinstall' in t) return { ...head, swinstall: { type: t.swinstall.type, revision: t.swinstall.revision, url: t.swinstall.url } }
  const [key, ref] = 'swuninstall' in t ? ['swuninstall', t.swuninstall] : 'swstart' in t ? ['swstart', t.swstart] : ['swstop', t.swstop]
  return { ...head, [key]: { type: ref.type, revision: ref.revision } }
}

/**
 * The JSON text of a task list, each task written as `{uid, timestamp, read|write|command|swinstall|...}` in that key
 * order.
 */
export function encodeTasks (tasks: readonly TaskToEncode[]): string {
  return JSON.stringify(tasks.map((t) => {
    const head = { uid: t.uid, timestamp: t.timestamp }
    if ('read' in t) return { ...head, read: t.read }
    if ('write' in t) return { ...head, write: t.write }
    if ('software' in t) return encodeSoftware(head, t.software)
    if ('command' in t) return { ...head, command: { id: t.command.id, params: t.command.params ?? {} } }
    return encodeWire(head, t)
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
  return readSoftware({ uid, timestamp }, item)
}

const isRef = (v: unknown): v is Record<string, unknown> & SoftwareRef =>
  isRecord(v) && typeof v.type === 'string' && typeof v.revision === 'string'

function readSoftware (head: TaskHead, item: Record<string, unknown>): SoftwareTask | TaskReason {
  const { swinstall, swuninstall, swstart, swstop } = item
  if (isRef(swinstall) && typeof swinstall.url === 'string') {
    return { ...head, swinstall: { type: swinstall.type, revision: swinstall.revision, url: swinstall.url } }
  }
  const ref = (r: SoftwareRef): SoftwareRef => ({ type: r.type, revision: r.revision })
  if (isRef(swuninstall)) return { ...head, swuninstall: ref(swuninstall) }
  if (isRef(swstart)) return { ...head, swstart: ref(swstart) }
  if (isRef(swstop)) return { ...head, swstop: ref(swstop) }
  return 'task.invalid.shape'
}

function isSetting (v: unknown): v is Record<string, DataValue> {
  return isRecord(v) && Object.values(v).every((x) => x === null || ['number', 'string', 'boolean'].includes(typeof x))
}
