// LWM2M_FW installs through Object 5, Firmware Update, pull (docs/protocols/lwm2m.md#installs): the task's download
// link written as the Package URI /5/0/1, the State /5/0/3 watched until Downloaded, Update /5/0/2 executed, and the
// Update Result /5/0/5 read once the device has one (after the restart an update usually brings: at its next
// Register). Every step but the first reads /5/0 and goes on from what it says (firmware-steps.ts): a step taken again
// (a notification, an Update, another process) never repeats what the device already did.
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import { execute, failed, read, writeResource } from './device-requests.js'
import { firmwareNext } from './firmware-steps.js'
import { announces, done, intAt, refused, type StepContext, type StepResult } from './install-step.js'

const INSTANCE: LwM2mPath = { objectId: 5, instanceId: 0 }
const PACKAGE_URI: LwM2mPath = { ...INSTANCE, resourceId: 1 }
const UPDATE: LwM2mPath = { ...INSTANCE, resourceId: 2 }
const STATE: LwM2mPath = { ...INSTANCE, resourceId: 3 }

/** The Package URI written: the device downloads (its State watched from now on). */
async function download (c: StepContext, url: string): Promise<StepResult> {
  await c.save({ objectId: 5, instanceId: 0, step: 'download' })
  const reply = await writeResource(c.r, PACKAGE_URI, url, c.timeoutMs)
  if (reply.ok) return { kind: 'wait', watch: STATE }
  return 'encoding' in reply ? done(failed(reply.encoding)) : refused(reply, 'Write', PACKAGE_URI)
}

async function update (c: StepContext): Promise<StepResult> {
  await c.save({ objectId: 5, instanceId: 0, step: 'update' })
  const reply = await execute(c.r, UPDATE, c.timeoutMs)
  return reply.ok ? { kind: 'wait', watch: STATE } : refused(reply, 'Execute', UPDATE)
}

export async function firmwareStep (c: StepContext): Promise<StepResult> {
  const url = c.task.software.binaries[0]?.url
  if (c.task.software.action !== 'install' || url === undefined) return done(failed('Object 5 installs a firmware and does nothing else'))
  if (!announces(c.r, 5, 0)) return done(failed('the device announced no /5/0 (Object 5, Firmware Update) when it registered'))
  const step = c.install?.step
  if (step !== 'download' && step !== 'update') return await download(c, url)
  const got = await read(c.r, INSTANCE, c.timeoutMs)
  if (!got.ok) return refused(got, 'Read', INSTANCE)
  const state = intAt(got.values, 0, 3)
  const result = intAt(got.values, 0, 5)
  if (state === undefined || result === undefined) return done(failed('the device\'s /5/0 has no State (5/0/3) or no Update Result (5/0/5)'))
  const next = firmwareNext(step, { state, result })
  switch (next.do) {
    case 'write': return await download(c, url)
    case 'execute': return await update(c)
    case 'wait': return { kind: 'wait', watch: STATE }
    case 'end': return done(next.outcome)
  }
}
