// Cancels over hawkBit DDI (docs/protocols/ddi.md#feedback-and-task-states) with a real install operation: cancelled
// after the controller took the install, the controller confirms and the task is CANCELLED; a controller that gives up
// the deployment itself (a canceled feedback) ends it CANCELLED too; either way the application is not the system's.
// A confirmation committed while the engine was not told is taken at its recovery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRepositories } from '../../../storage/repositories/index.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, eventually, taskState, type Device } from '../../helpers/devices.js'
import { allTasks, getOperation, started, waitFinished } from '../../helpers/operations.js'
import { applicationsOf, postSoftware } from '../packages/install-fixtures.js'
import { controllerOf, ddi, feedback, linkOf, releasedFirmware, type Controller } from './ddi-fixtures.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

interface Taken { d: Device, c: Controller, operation: string, taskUid: string, firmware: string, link: { id: string, path: string } }

/** An install operation of a HAWKBIT application for a new system, its deployment taken by the system's controller. */
async function installTaken (): Promise<Taken> {
  const d = await createDevice(stack)
  const c = controllerOf(stack, d)
  const firmware = await releasedFirmware(stack, Buffer.from('swu bytes\n'.repeat(100)))
  const operation = await started(postSoftware(stack, 'install', { application: firmware.uid, systems: { uids: [d.uid] } }))
  const link = await eventually(async () => linkOf(await ddi(stack, c, 'GET'), 'deploymentBase'), { timeoutMs: 15_000, what: 'the deployment offered' })
  const [task] = await allTasks(stack, operation)
  if (task === undefined) throw new Error('no task')
  expect(task.state).toBe('IN_PROGRESS')
  return { d, c, operation, taskUid: task.uid, firmware: firmware.uid, link }
}

/** The operation FINISHED with its one task CANCELLED, no error, and the application not installed. */
async function endsCancelled (t: Taken): Promise<void> {
  const op = await waitFinished(stack, t.operation, 15_000)
  expect(op.counters.filter((c) => c.count > 0)).toEqual([{ state: 'CANCELLED', count: 1 }])
  const [task] = await allTasks(stack, t.operation)
  expect(task).toMatchObject({ state: 'CANCELLED', error: null })
  expect(task?.endDate).toBeGreaterThan(0)
  expect(await applicationsOf(stack, t.d.uid)).not.toContain(t.firmware)
  expect((await ddi(stack, t.c, 'GET')).body._links).toBeUndefined()
}

describe('cancel of an install operation', { timeout: 60_000 }, () => {
  it('cancelled after the controller took it: cancelAction, a refusal leaves it going, the confirmation ends the task CANCELLED', async () => {
    const t = await installTaken()
    const cancel = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${t.operation}/cancel` })
    expect(cancel.statusCode, cancel.body).toBe(200)
    expect((await allTasks(stack, t.operation)).map((x) => x.state)).toEqual(['BEING_CANCELLED'])
    const offered = linkOf(await ddi(stack, t.c, 'GET'), 'cancelAction')
    expect(offered?.id).toBe(t.link.id)

    expect((await ddi(stack, t.c, 'POST', `${offered?.path}/feedback`, { body: feedback('rejected', 'none', ['already flashing']) })).status).toBe(200)
    expect((await taskState(stack, t.taskUid))?.state).toBe('SENT')
    expect((await getOperation(stack, t.operation)).state).toBe('IN_PROGRESS')

    expect((await ddi(stack, t.c, 'POST', `${offered?.path}/feedback`, { body: feedback('closed', 'success', ['stopped']) })).status).toBe(200)
    expect(await taskState(stack, t.taskUid)).toMatchObject({ state: 'CANCELLED', message: 'canceled by the device: stopped' })
    await endsCancelled(t)
  })

  it('a canceled execution on the cancel confirms it as well', async () => {
    const t = await installTaken()
    await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${t.operation}/cancel` })
    expect((await ddi(stack, t.c, 'POST', `/cancelAction/${t.link.id}/feedback`, { body: feedback('canceled') })).status).toBe(200)
    expect((await taskState(stack, t.taskUid))?.state).toBe('CANCELLED')
    await endsCancelled(t)
  })

  it('a controller that cancels the deployment itself ends the task CANCELLED, the operation not cancelled', async () => {
    const t = await installTaken()
    expect((await ddi(stack, t.c, 'POST', `${t.link.path}/feedback`, { body: feedback('canceled', 'none', ['user said no']) })).status).toBe(200)
    expect(await taskState(stack, t.taskUid)).toMatchObject({ state: 'CANCELLED', message: 'canceled by the device: user said no' })
    await endsCancelled(t)
    expect((await getOperation(stack, t.operation)).cancelDate).toBeNull()
    // A late feedback on the ended action changes nothing.
    expect((await ddi(stack, t.c, 'POST', `${t.link.path}/feedback`, { body: feedback('closed', 'success') })).status).toBe(200)
    expect((await allTasks(stack, t.operation)).map((x) => x.state)).toEqual(['CANCELLED'])
  })

  it('a confirmation committed while the engine was not told is taken at recovery', async () => {
    const t = await installTaken()
    await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${t.operation}/cancel` })
    // The device's answer is committed; the process "stops" before telling the engine.
    const answered = await createRepositories(stack.db).deviceTasks.answer(t.d.uid, [{ taskUid: t.taskUid, status: 'CANCELLED', message: 'canceled by the device' }], Date.now())
    expect(answered.map((a) => a.status)).toEqual(['CANCELLED'])
    expect((await allTasks(stack, t.operation)).map((x) => x.state)).toEqual(['BEING_CANCELLED'])
    await stack.ctx.services.operations.engine.recover()
    await endsCancelled(t)
  })
})
