// Device tasks → the Messages of a reply envelope (docs/protocols/m3da.md): every task is sent
// with a ticket (the device answers it with a Response, which ends the task). Reboot, reset and wake-up run the
// agent's `@sys.commands.<Cmd>`; a retrieve is ReadNode of the variables' tree paths (the agent sends the values back
// as Messages under `@sys.<path>`); settings are writes under each setting's path. Pure.
import type { DataValue } from '../../core/domain/device-message.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { pathOf, splitPath } from './sys-paths.js'

/** The kind of action a command task runs (the actionType of the application element,
 * docs/api.md#applications-and-templates). */
export type ActionKind = 'REBOOT' | 'RESET' | 'CONNECT'

/** A Message to encode (protocols/m3da encodePayload): body values are primitives. */
export interface OutgoingMessage { kind: 'message', path: string, ticketId: number, body: Record<string, DataValue> }

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
  const { id, params } = task.command
  const kind = actionOf(id)
  if (kind === undefined) return [{ kind: 'message', path: pathOf(id), ticketId, body: primitives(params) }]
  const command = COMMANDS[kind]
  const own = primitives(params)
  return [{ kind: 'message', path: command.path, ticketId, body: Object.keys(own).length > 0 ? own : { ...command.body } }]
}
