// LWM2M_SW tasks over Object 9, LwM2M Software Management (docs/protocols/lwm2m.md#installs): an install goes through
// software-install.ts; uninstall, start and stop Execute Uninstall /9/x/6, Activate /9/x/10 and Deactivate /9/x/11 of
// the instance holding the application (its PkgName the application's type or name: software-steps.ts), and the
// device's answer ends the task.
import type { LwM2mPath } from '../../protocols/lwm2m/index.js'
import { OK, execute, failed, read } from './device-requests.js'
import { announces, done, refused, type StepContext, type StepResult } from './install-step.js'
import { slotOf, slotsOf } from './software-steps.js'
import { softwareInstallStep } from './software-install.js'

const OBJECT: LwM2mPath = { objectId: 9 }
const EXECUTED = { uninstall: 6, start: 10, stop: 11 } as const

async function executeOn (c: StepContext, resourceId: number): Promise<StepResult> {
  const listed = await read(c.r, OBJECT, c.timeoutMs)
  if (!listed.ok) return refused(listed, 'Read', OBJECT)
  const app = c.task.software.application
  const instanceId = slotOf(slotsOf(listed.values), app)
  if (instanceId === undefined) return done(failed(`no instance of /9 holds ${app.type} ${app.revision} (its PkgName ${app.type} or ${app.name})`))
  const path = { objectId: 9, instanceId, resourceId }
  const reply = await execute(c.r, path, c.timeoutMs)
  return reply.ok ? done(OK) : refused(reply, 'Execute', path)
}

export async function softwareStep (c: StepContext): Promise<StepResult> {
  if (!announces(c.r, 9)) return done(failed('the device announced no /9 (Object 9, LwM2M Software Management) when it registered'))
  const { action, binaries } = c.task.software
  if (action !== 'install') return await executeOn(c, EXECUTED[action])
  const url = binaries[0]?.url
  return url === undefined ? done(failed('the install names no binary')) : await softwareInstallStep(c, url)
}
