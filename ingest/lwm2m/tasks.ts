// Device tasks over LwM2M (docs/protocols/lwm2m.md, Operations): retrieve = Read of
// each data id (`lwm2m.<o>.<i>.<r>`, or the resource a device-management id such as `_RSSI` comes from), whose values are stored like a notification before the task is answered;
// apply settings = Write (PUT) of each value in the device's write format; reboot = Execute /3/0/4, reset = Execute
// /3/0/5, wake-up = Execute /1/0/8 (Registration Update Trigger: the device sends an Update) (the application's action
// of that kind; a wake-up taken at a Register or Update is done by it), or Execute of an `lwm2m.` resource a command
// names. The device's CoAP answer ends the task (2.xx: OK,
// anything else or no answer: ERROR with the code), through ingest.acceptAcks as every protocol's acks do. Software
// tasks take several steps and end when the device's object says so (installs.ts). Tasks go to a device registered
// here and awake (queue mode: within AWAKE_MS of its last Register or Update); others wait for its next Update or
// Register.
import { coapRequest } from '../../protocols/coap/index.js'
import { dataIdToPath, encodeContent, type LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { Logger } from '../../core/logger.js'
import type { LiveRegistration } from './live.js'
import { devicePath, type Reporting } from './reporting.js'
import { pathOfDataId } from './points.js'
import { OK, ask, failed, formatOf, type Outcome, type Reply } from './device-requests.js'
import type { Installs } from './installs.js'

export interface TaskDeps {
  ingest: Pick<IngestService, 'acceptAcks'>
  reporting: Pick<Reporting, 'store'>
  installs: Pick<Installs, 'kick'>
  log: Logger
  timeoutMs: number
}

/** The path of a data id naming a resource (`lwm2m.3.0.4`), undefined for anything else. */
function resourcePath (id: string): LwM2mPath | undefined {
  const p = dataIdToPath(id)
  return p?.resourceId === undefined ? undefined : p
}

/** The resources the actions execute: Reboot, Factory Reset (Object 3), Registration Update Trigger (Object 1). */
const ACTION_RESOURCES: Readonly<Partial<Record<string, LwM2mPath>>> = {
  REBOOT: { objectId: 3, instanceId: 0, resourceId: 4 },
  RESET: { objectId: 3, instanceId: 0, resourceId: 5 },
  CONNECT: { objectId: 1, instanceId: 0, resourceId: 8 }
}

/** The resource a command executes: the action's (table above) or the `lwm2m.` id it names. */
function executed (r: LiveRegistration, id: string): LwM2mPath | undefined {
  const action = r.actions.get(id)
  return (action === undefined ? undefined : ACTION_RESOURCES[action]) ?? resourcePath(id)
}

const outcomeOf = (reply: Reply): Outcome => reply.ok ? OK : failed(reply.code)

export function createTaskDelivery ({ ingest, reporting, installs, log, timeoutMs }: TaskDeps) {
  async function read (r: LiveRegistration, ids: readonly string[]): Promise<Outcome> {
    for (const id of ids) {
      const path = pathOfDataId(id)
      if (path === undefined) return failed(`not an LwM2M data id: ${id}`)
      const reply = await ask(r, coapRequest('GET', devicePath(r, path)), timeoutMs)
      if (!reply.ok) return outcomeOf(reply)
      const stored = await reporting.store(r, path, reply.msg)
      if (stored.kind !== 'stored') return failed(stored.kind === 'refused' ? stored.reason : 'forbidden')
    }
    return OK
  }

  async function write (r: LiveRegistration, settings: ReadonlyArray<Record<string, unknown>>): Promise<Outcome> {
    const format = formatOf(r)
    for (const [id, value] of settings.flatMap((s) => Object.entries(s))) {
      const path = resourcePath(id)
      if (path === undefined) return failed(`not an LwM2M resource: ${id}`)
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return failed(`no value for ${id}`)
      const encoded = encodeContent(format, [{ path, value }])
      if (!encoded.ok) return failed(encoded.reason)
      const outcome = outcomeOf(await ask(r, coapRequest('PUT', devicePath(r, path), { payload: encoded.payload, contentFormat: format }), timeoutMs))
      if (outcome.status !== 'OK') return outcome
    }
    return OK
  }

  async function run (r: LiveRegistration, task: Exclude<DeviceTask, { software: unknown }>, atContact: boolean): Promise<Outcome> {
    if ('read' in task) return await read(r, task.read)
    if ('write' in task) return await write(r, task.write)
    // The device is communicating: what a wake-up asks is done, and triggering one more Update would only bring the
    // task back before its answer is stored.
    if (atContact && r.actions.get(task.command.id) === 'CONNECT') return OK
    const path = executed(r, task.command.id)
    if (path === undefined) return failed(`no LwM2M resource to execute for ${task.command.id}`)
    return outcomeOf(await ask(r, coapRequest('POST', devicePath(r, path)), timeoutMs))
  }

  /**
   * Runs the tasks one after another and answers each (a software task moves on by a step, and is answered when its
   * install ends); `atContact`: taken at the device's Register or Update. Never throws (a failure is logged, the task
   * stays SENT). Once the registration ended (a reboot task restarted the device), the rest stay SENT: they go again
   * at the device's next Register.
   */
  async function deliver (r: LiveRegistration, tasks: readonly DeviceTask[], { atContact }: { atContact: boolean }): Promise<void> {
    for (const task of tasks) {
      if (r.ended === true) return
      if ('software' in task) { await installs.kick(r.session.systemUid, task); continue }
      try {
        const outcome = await run(r, task, atContact)
        await ingest.acceptAcks(r.session.systemUid, 'LWM2M', [{ uid: task.uid, status: outcome.status, message: outcome.status === 'OK' ? null : outcome.message }])
      } catch (err) {
        log.warn({ err, task: task.uid }, 'LwM2M task not answered; delivered again at the device\'s next Update')
      }
    }
  }

  return { deliver }
}

export type TaskDelivery = ReturnType<typeof createTaskDelivery>
