// Who may speak DDI (docs/protocols/ddi.md#authentication): the system's REST password as TargetToken, its company as
// tenant (or DEFAULT for the first company); one 401 for every wrong part; wrong tokens throttled like every device
// login; one controller never reads or answers another's action. And the cancel of an operation reaching the device.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, taskState } from '../../helpers/devices.js'
import { companyUid, createUser, uniq } from '../../helpers/factories.js'
import { controllerOf, ddi, feedback, insertInstall, linkOf, operationTask } from './ddi-fixtures.js'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({ listen: true, env: { DEVICE_LOGIN_THROTTLE_FAILURES: '5', DEVICE_LOGIN_THROTTLE_BASE_MS: '60000' } })
})
afterAll(async () => { await stack.close() })

const UNAUTHORIZED = { error: 'device.unauthorized', errorParameters: [] }

/** Another company and a token of its administrator. */
async function otherCompany (): Promise<{ companyUid: string, token: string }> {
  const name = uniq('Other Company')
  const admin = await createUser(stack, { company: name, administrator: true, rights: ['entities.systems.create', 'entities.systems.view'] })
  return { companyUid: await companyUid(stack, name), token: admin.token }
}

describe('authentication', () => {
  it('admits the company uid and DEFAULT as tenant; one 401 for a wrong tenant, controller, token or scheme', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    expect((await ddi(stack, c, 'GET')).status).toBe(200)
    expect((await ddi(stack, { ...c, tenant: 'default' }, 'GET')).status).toBe(200)
    const other = await otherCompany()
    const wrong = [
      ddi(stack, { ...c, tenant: other.companyUid }, 'GET'),
      ddi(stack, { ...c, tenant: 'nobody' }, 'GET'),
      ddi(stack, { ...c, id: 'SN-NOBODY' }, 'GET'),
      ddi(stack, { ...c, token: 'wrong' }, 'GET'),
      ddi(stack, c, 'GET', '', { authorization: `GatewayToken ${c.token}` }),
      ddi(stack, c, 'GET', '', { authorization: '' })
    ]
    for (const res of await Promise.all(wrong)) expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: UNAUTHORIZED })
  })

  it('a system of another company is refused under this tenant, and DEFAULT is not its company', async () => {
    const other = await otherCompany()
    const d = await createDevice(stack, { token: other.token })
    expect((await ddi(stack, controllerOf(stack, d, other.companyUid), 'GET')).status).toBe(200)
    expect((await ddi(stack, controllerOf(stack, d), 'GET')).status).toBe(401)
    expect((await ddi(stack, controllerOf(stack, d, 'DEFAULT'), 'GET')).status).toBe(401)
  })

  it('throttles wrong tokens: after the failures allowed even the right token waits (429 with Retry-After)', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    for (let i = 0; i < 5; i++) expect((await ddi(stack, { ...c, token: `wrong-${i}` }, 'GET')).status).toBe(401)
    const held = await ddi(stack, c, 'GET')
    expect(held.status).toBe(429)
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})

describe('one controller, its own actions', () => {
  it('another system\'s action is 404 to read, to answer and to cancel, and stays as it was', async () => {
    const owner = await createDevice(stack)
    const intruder = await createDevice(stack)
    const inst = await insertInstall(stack, owner.uid)
    const link = linkOf(await ddi(stack, controllerOf(stack, owner), 'GET'), 'deploymentBase')
    const i = controllerOf(stack, intruder)
    expect((await ddi(stack, i, 'GET')).body._links).toBeUndefined()
    expect((await ddi(stack, i, 'GET', link?.path)).status).toBe(404)
    expect((await ddi(stack, i, 'POST', `${link?.path}/feedback`, { body: feedback('closed', 'success') })).status).toBe(404)
    expect((await ddi(stack, i, 'POST', `/cancelAction/${link?.id}/feedback`, { body: feedback('closed', 'success') })).status).toBe(404)
    expect((await taskState(stack, inst.taskUid))?.state).toBe('SENT')
    expect((await operationTask(stack, inst.taskUid)).state).toBe('IN_PROGRESS')
  })
})

describe('cancel', () => {
  it('an operation cancelled after the controller took the install offers cancelAction; the confirmed cancel ends the task', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const inst = await insertInstall(stack, d.uid)
    const link = linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')
    const cancelled = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${inst.operationUid}/cancel` })
    expect(cancelled.statusCode).toBe(200)
    expect((await operationTask(stack, inst.taskUid)).state).toBe('BEING_CANCELLED')

    const poll = await ddi(stack, c, 'GET')
    const cancel = linkOf(poll, 'cancelAction')
    expect(cancel?.id).toBe(link?.id)
    expect(poll.body._links.deploymentBase).toBeUndefined()
    expect((await ddi(stack, c, 'GET', cancel?.path)).body).toEqual({ id: link?.id, cancelAction: { stopId: link?.id } })
    // A refused cancel leaves the install going on.
    expect((await ddi(stack, c, 'POST', `${cancel?.path}/feedback`, { body: feedback('rejected', 'none', ['already flashing']) })).status).toBe(200)
    expect((await taskState(stack, inst.taskUid))?.state).toBe('SENT')

    expect((await ddi(stack, c, 'POST', `${cancel?.path}/feedback`, { body: feedback('closed', 'success') })).status).toBe(200)
    expect(await taskState(stack, inst.taskUid)).toMatchObject({ state: 'CANCELLED', message: 'canceled by the device' })
    expect(await operationTask(stack, inst.taskUid)).toMatchObject({ state: 'CANCELLED', errorMessage: null })
    expect((await ddi(stack, c, 'GET')).body._links).toBeUndefined()
  })

  it('an operation cancelled before the controller polled withdraws the install: nothing is offered', async () => {
    const d = await createDevice(stack)
    const inst = await insertInstall(stack, d.uid)
    await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${inst.operationUid}/cancel` })
    expect((await ddi(stack, controllerOf(stack, d), 'GET')).body._links).toBeUndefined()
    expect((await taskState(stack, inst.taskUid))?.state).toBe('CANCELLED')
    expect((await operationTask(stack, inst.taskUid)).state).toBe('CANCELLED')
  })
})
