// Device tasks over LwM2M (docs/protocols/lwm2m.md, Operations): retrieve = Read of
// each data id (`lwm2m.<o>.<i>.<r>`, or the resource a device-management id such as `_RSSI` comes from), whose values are stored like a notification before the task is answered;
// apply settings = Write (PUT) of each value in the device's write format; reboot = Execute /3/0/4, reset = Execute
// /3/0/5 (the application's action of that kind), or Execute of an `lwm2m.` resource a command names. The device's
// CoAP answer ends the task (2.xx: OK, anything else or no answer: ERROR with the code), through ingest.acceptAcks as
// every protocol's acks do. Tasks go to a device registered here and awake (queue mode: within AWAKE_MS of its last
// Register or Update); others wait for its next Update or Register.
import { CoapError, coapRequest, formatCode, isSuccessCode, type CoapMessage } from '../../protocols/coap/index.js'
import { dataIdToPath, encodeContent, pickWriteFormat, type LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { Logger } from '../../core/logger.js'
import type { LiveRegistration } from './live.js'
import { devicePath, type Reporting } from './reporting.js'
import { pathOfDataId } from './points.js'

export interface TaskDeps {
  ingest: Pick<IngestService, 'acceptAcks'>
  reporting: Pick<Reporting, 'store'>
  log: Logger
  timeoutMs: number
}

type Outcome = { status: 'OK' } | { status: 'ERROR', message: string }
const failed = (message: string): Outcome => ({ status: 'ERROR', message })

/** The path of a data id naming a resource (`lwm2m.3.0.4`), undefined for anything else. */
function resourcePath (id: string): LwM2mPath | undefined {
  const p = dataIdToPath(id)
  return p?.resourceId === undefined ? undefined : p
}

/** The resource a command executes: the action's (REBOOT /3/0/4, RESET /3/0/5) or the `lwm2m.` id it names. */
function executed (r: LiveRegistration, id: string): LwM2mPath | undefined {
  const action = r.actions.get(id)
  if (action === 'REBOOT') return { objectId: 3, instanceId: 0, resourceId: 4 }
  if (action === 'RESET') return { objectId: 3, instanceId: 0, resourceId: 5 }
  return resourcePath(id)
}

export function createTaskDelivery ({ ingest, reporting, log, timeoutMs }: TaskDeps) {
  async function ask (r: LiveRegistration, req: Parameters<LiveRegistration['link']['endpoint']['request']>[1]): Promise<CoapMessage | string> {
    try {
      return await r.link.endpoint.request(r.link.peer, req, { timeoutMs })
    } catch (err) {
      if (err instanceof CoapError) return err.code
      throw err
    }
  }

  const outcomeOf = (answer: CoapMessage | string): Outcome =>
    typeof answer === 'string' ? failed(answer) : isSuccessCode(answer.code) ? { status: 'OK' } : failed(formatCode(answer.code))

  async function read (r: LiveRegistration, ids: readonly string[]): Promise<Outcome> {
    for (const id of ids) {
      const path = pathOfDataId(id)
      if (path === undefined) return failed(`not an LwM2M data id: ${id}`)
      const answer = await ask(r, coapRequest('GET', devicePath(r, path)))
      if (typeof answer === 'string' || !isSuccessCode(answer.code)) return outcomeOf(answer)
      const stored = await reporting.store(r, path, answer)
      if (stored.kind !== 'stored') return failed(stored.kind === 'refused' ? stored.reason : 'forbidden')
    }
    return { status: 'OK' }
  }

  async function write (r: LiveRegistration, settings: ReadonlyArray<Record<string, unknown>>): Promise<Outcome> {
    const format = pickWriteFormat({ version: r.version, contentFormats: r.links.contentFormats })
    for (const [id, value] of settings.flatMap((s) => Object.entries(s))) {
      const path = resourcePath(id)
      if (path === undefined) return failed(`not an LwM2M resource: ${id}`)
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return failed(`no value for ${id}`)
      const encoded = encodeContent(format, [{ path, value }])
      if (!encoded.ok) return failed(encoded.reason)
      const outcome = outcomeOf(await ask(r, coapRequest('PUT', devicePath(r, path), { payload: encoded.payload, contentFormat: format })))
      if (outcome.status !== 'OK') return outcome
    }
    return { status: 'OK' }
  }

  async function run (r: LiveRegistration, task: DeviceTask): Promise<Outcome> {
    if ('read' in task) return await read(r, task.read)
    if ('write' in task) return await write(r, task.write)
    if ('command' in task) {
      const path = executed(r, task.command.id)
      if (path === undefined) return failed(`no LwM2M resource to execute for ${task.command.id}`)
      return outcomeOf(await ask(r, coapRequest('POST', devicePath(r, path))))
    }
    return failed('software tasks are not carried over LwM2M yet')
  }

  /** Runs the tasks one after another and answers each; never throws (a failure is logged, the task stays SENT). */
  async function deliver (r: LiveRegistration, tasks: readonly DeviceTask[]): Promise<void> {
    for (const task of tasks) {
      try {
        const outcome = await run(r, task)
        await ingest.acceptAcks(r.session.systemUid, 'LWM2M', [{ uid: task.uid, status: outcome.status, message: outcome.status === 'OK' ? null : outcome.message }])
      } catch (err) {
        log.warn({ err, task: task.uid }, 'LwM2M task not answered; delivered again at the device\'s next Update')
      }
    }
  }

  return { deliver }
}

export type TaskDelivery = ReturnType<typeof createTaskDelivery>
