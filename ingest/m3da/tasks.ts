// Device tasks → the Messages of a reply envelope (docs/protocols/m3da.md): every task is sent
// with a ticket (the device answers it with a Response, which ends the task). Reboot, reset and wake-up run the
// agent's `@sys.commands.<Cmd>`; a retrieve is ReadNode of the variables' tree paths (the agent sends the values back
// as Messages under `@sys.<path>`); settings are writes under each setting's path; an install is the agent's
// SoftwareUpdate command with the package's link and MD5 (docs/protocols/m3da.md#software-updates). Pure.
import type { Encodable } from '../../protocols/bysant/index.js'
import type { DataValue } from '../../core/domain/device-message.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import type { SoftwareBody } from '../../core/domain/software-task.js'
import { pathOf, splitPath } from './sys-paths.js'

/** The kind of action a command task runs (the actionType of the application element,
 * docs/api.md#applications-and-templates). */
export type ActionKind = 'REBOOT' | 'RESET' | 'CONNECT'

/** A Message to encode (protocols/m3da encodePayload): body values are primitives, or maps (SoftwareUpdate). */
export interface OutgoingMessage { kind: 'message', path: string, ticketId: number, body: Record<string, Encodable> }

// The agent rejects a Message with an empty body (docs/protocols/m3da.md), so each command has a default body: Reboot
// takes any body (the agent ignores it), ResetToFactoryDefault reads `restart`, Connect a `latency` in seconds.
const COMMANDS: Record<ActionKind, { path: string, body: Record<string, DataValue> }> = {
  REBOOT: { path: '@sys.commands.Reboot', body: { delay: 0 } },
  RESET: { path: '@sys.commands.ResetToFactoryDefault', body: { restart: true } },
  CONNECT: { path: '@sys.commands.Connect', body: { latency: 0 } }
}

const SYS_PREFIX = '@sys.'

/** Command parameters as Bysant primitives: anything else travels as its JSON text. */
function primitives (params: Record<string, unknown>): Record<string, DataValue> {
  const out: Record<string, DataValue> = {}
  for (const [k, v] of Object.entries(params)) {
    out[k] = v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? v : JSON.stringify(v) ?? null
  }
  return out
}

/** Settings grouped by Message path (one Message per path, every one with the task's ticket). */
function writes (settings: ReadonlyArray<Record<string, DataValue>>, ticketId: number): OutgoingMessage[] {
  const byPath = new Map<string, Record<string, DataValue>>()
  for (const setting of settings) {
    for (const [id, value] of Object.entries(setting)) {
      const { path, key } = splitPath(pathOf(id))
      const body = byPath.get(path) ?? {}
      body[key] = value
      byPath.set(path, body)
    }
  }
  return [...byPath].map(([path, body]) => ({ kind: 'message', path, ticketId, body }))
}

/**
 * The agent's SoftwareUpdate: `@sys.commands {SoftwareUpdate = {url, signature}}`, the signature the package's MD5 in
 * lower-case hex. The agent takes software only as an update package (its Manifest says what to install or remove),
 * so the install operation sends nothing else over M3DA (core/operations/device/software-targets.ts refuses the rest
 * before a task is written): any other action has no Message.
 */
function softwareMessages ({ software }: SoftwareBody, ticketId: number): OutgoingMessage[] {
  const binary = software.binaries[0]
  if (software.action !== 'install' || binary === undefined) return []
  return [{ kind: 'message', path: '@sys.commands', ticketId, body: { SoftwareUpdate: { url: binary.url, signature: binary.md5 } } }]
}

/** The agent's update error codes (its Response status) and what they mean, for the task's error message. */
const UPDATE_ERRORS: Readonly<Record<number, string>> = {
  552: 'download retries exhausted',
  553: 'MD5 mismatch',
  555: 'no space left',
  556: 'invalid update package'
}

/**
 * The message of a Response that is not a success: the agent's data, as for every task (docs/protocols/m3da.md), or
 * its status when it sent none; one of the agent's update error codes is named with its meaning first, since a
 * SoftwareUpdate's data alone rarely says what failed (`status 553 (MD5 mismatch): bad signature`).
 */
export function responseMessage (status: number, data: string | null): string {
  const meaning = UPDATE_ERRORS[status]
  const given = data !== null && data !== ''
  if (meaning === undefined) return given ? data : `status ${status}`
  const head = `status ${status} (${meaning})`
  return given ? `${head}: ${data}` : head
}

/**
 * The Messages of one task. `actionOf` names the kind of a command id (the system's application model); a command
 * that is no action is a write to its own path with its parameters as the body.
 */
export function taskMessages (task: DeviceTask, ticketId: number, actionOf: (commandId: string) => ActionKind | undefined): OutgoingMessage[] {
  if ('read' in task) {
    // ReadNode takes tree paths under @sys (any keys, §2.7); an application's variable is asked by its own path.
    const body: Record<string, DataValue> = {}
    task.read.forEach((id, i) => {
      const path = pathOf(id)
      body[String(i + 1)] = path.startsWith(SYS_PREFIX) ? path.slice(SYS_PREFIX.length) : path
    })
    return [{ kind: 'message', path: '@sys.commands.ReadNode', ticketId, body }]
  }
  if ('write' in task) return writes(task.write, ticketId)
  if ('software' in task) return softwareMessages(task, ticketId)
  const { id, params } = task.command
  const kind = actionOf(id)
  if (kind === undefined) return [{ kind: 'message', path: pathOf(id), ticketId, body: primitives(params) }]
  const command = COMMANDS[kind]
  const own = primitives(params)
  return [{ kind: 'message', path: command.path, ticketId, body: Object.keys(own).length > 0 ? own : { ...command.body } }]
}
