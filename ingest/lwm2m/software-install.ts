// LWM2M_SW installs through Object 9, LwM2M Software Management (docs/protocols/lwm2m.md#installs): the task's
// download link written as the Package URI /9/x/3 of an empty instance the device announced (INITIAL, no package),
// else of one created for it; the instance watched until its Update State is DELIVERED; Install /9/x/4 executed; then
// INSTALLED ends the task SUCCESS and an Update Result of 50 or more FAILURE (software-steps.ts). Every step but the
// first reads the instance and goes on from what it says, as firmware-install.ts does for Object 5.
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import { create, execute, failed, read, writeResource } from './device-requests.js'
import { done, intAt, refused, WAIT, type StepContext, type StepResult } from './install-step.js'
import { emptySlot, slotsOf, softwareNext } from './software-steps.js'

const OBJECT: LwM2mPath = { objectId: 9 }

async function download (c: StepContext, instanceId: number, url: string): Promise<StepResult> {
  await c.save({ objectId: 9, instanceId, step: 'download' })
  const path = { objectId: 9, instanceId, resourceId: 3 }
  const reply = await writeResource(c.r, path, url, c.timeoutMs)
  if (reply.ok) return { kind: 'wait', watch: { objectId: 9, instanceId } }
  return 'encoding' in reply ? done(failed(reply.encoding)) : refused(reply, 'Write', path)
}

/** An Install the device did not answer is taken back: the next step executes it again. */
async function install (c: StepContext, instanceId: number): Promise<StepResult> {
  await c.save({ objectId: 9, instanceId, step: 'install' })
  const path = { objectId: 9, instanceId, resourceId: 4 }
  const reply = await execute(c.r, path, c.timeoutMs)
  if (reply.ok) return { kind: 'again', watch: { objectId: 9, instanceId } }
  if (reply.silent) await c.save({ objectId: 9, instanceId, step: 'download' })
  return refused(reply, 'Execute', path)
}

/** The first step: an empty instance the device has, else a new one (Create), takes the package. */
async function begin (c: StepContext, url: string): Promise<StepResult> {
  const listed = await read(c.r, OBJECT, c.timeoutMs)
  if (!listed.ok && listed.silent) return WAIT
  const free = listed.ok ? emptySlot(slotsOf(listed.values)) : undefined
  if (free !== undefined) return await download(c, free, url)
  const made = await create(c.r, 9, c.timeoutMs)
  return made.ok ? await download(c, made.instanceId, url) : refused(made, 'Create', OBJECT)
}

export async function softwareInstallStep (c: StepContext, url: string): Promise<StepResult> {
  const at = c.install
  if (at === undefined || (at.step !== 'download' && at.step !== 'install')) return await begin(c, url)
  const instance = { objectId: 9, instanceId: at.instanceId }
  const got = await read(c.r, instance, c.timeoutMs)
  if (!got.ok) return refused(got, 'Read', instance)
  const state = intAt(got.values, at.instanceId, 7)
  const result = intAt(got.values, at.instanceId, 9)
  if (state === undefined || result === undefined) return done(failed(`the device's /9/${at.instanceId} has no Update State (7) or no Update Result (9)`))
  const next = softwareNext(at.step, { state, result })
  switch (next.do) {
    case 'write': return await download(c, at.instanceId, url)
    case 'execute': return await install(c, at.instanceId)
    case 'wait': return { kind: 'wait', watch: instance }
    case 'end': return done(next.outcome)
  }
}
