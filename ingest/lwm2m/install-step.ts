// One step of an install over LwM2M (docs/protocols/lwm2m.md#installs): what a driver (Object 5 firmware, Object 9
// software) is given to move a software task on from where it stands, and what it answers: the task's end, or a wait
// for the device (a notification of the path it watches, or its next Register or Update).
import type { DeviceTask } from '../../core/domain/device-task.js'
import type { SoftwareBody } from '../../core/domain/software-task.js'
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import { failed, refusal, type Outcome } from './device-requests.js'
import type { LiveRegistration } from './live.js'
import type { Lwm2mInstall } from './lwm2m.port.js'

export type SoftwareTask = DeviceTask & SoftwareBody

export interface StepContext {
  /** The system's registration now. */
  r: LiveRegistration
  task: SoftwareTask
  /** How far the install went; undefined: not begun. */
  install: Lwm2mInstall | undefined
  /** Records how far it went, before the request that takes it there (a restart then goes on from it). */
  save: (at: Pick<Lwm2mInstall, 'objectId' | 'instanceId' | 'step'>) => Promise<void>
  timeoutMs: number
}

/**
 * `done`: the task ends with the outcome. `wait`: the device has more to do (or did not answer); `watch` is the path
 * whose notifications move the task on. `again`: the next step may be taken at once (an Execute was answered).
 */
export type StepResult =
  | { kind: 'done', outcome: Outcome }
  | { kind: 'wait', watch?: LwM2mPath }
  | { kind: 'again', watch?: LwM2mPath }

/** What the device's object says to do next: write the Package URI (again), Execute, wait, or end the task. */
export type Next = { do: 'write' | 'execute' | 'wait' } | { do: 'end', outcome: Outcome }

export const done = (outcome: Outcome): StepResult => ({ kind: 'done', outcome })
export const WAIT: StepResult = { kind: 'wait' }

/** A request the device refused ends the task (`4.05 to Execute /5/0/2`); one it did not answer waits for it. */
export function refused (reply: { code: string, silent: boolean }, verb: string, path: LwM2mPath): StepResult {
  return reply.silent ? WAIT : done(failed(refusal(reply.code, verb, path)))
}

/** Whether the device announced the object (and the instance) in its registration's links. */
export function announces (r: Pick<LiveRegistration, 'links'>, objectId: number, instanceId?: number): boolean {
  const o = r.links.objects.find((x) => x.objectId === objectId)
  return o !== undefined && (instanceId === undefined || o.instances.includes(instanceId))
}

/** An integer resource of the values read (`/5/0/3` → the State), undefined when absent or not an integer. */
export function intAt (values: ReadonlyArray<{ path: LwM2mPath, value: unknown }>, instanceId: number, resourceId: number): number | undefined {
  const v = values.find((e) => e.path.instanceId === instanceId && e.path.resourceId === resourceId && e.path.resourceInstanceId === undefined)?.value
  const n = typeof v === 'bigint' ? Number(v) : v
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined
}
