// The login a device operation needs follows the commIdType of the application that speaks the protocol
// (docs/api.md#applications-and-templates): a gateway with only an IMEI, under an application whose devices log in with
// their SERIAL, cannot be reached, so its task fails at once instead of waiting IN_PROGRESS until the timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniq } from '../../../helpers/factories.js'
import { count, started, waitOperation, type Json } from '../../../helpers/operations.js'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { createSystem, validImei } from '../../../helpers/systems.js'
import { actionTree, deviceTasksOf } from './reboot-fixtures.js'
import { operationRoute } from './operation-route.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack?.close() })

const retrieve = operationRoute(() => stack, 'data/retrieve')
const reboot = operationRoute(() => stack, 'reboot')
let imeis = 870_000 + Math.floor(Math.random() * 10_000) * 10

async function application (commIdType: string): Promise<string> {
  const res = await stack.call(stack.adminToken, {
    method: 'POST',
    url: '/api/v1/applications',
    payload: { name: 'Agent', revision: '1', type: uniq('app.login'), category: 'FIRMWARE', communication: [{ type: 'MQTT', commIdType }], data: [{ id: 'm', elementType: 'node', data: [{ id: 'temp', elementType: 'variable', type: 'double' }] }, ...actionTree([['reboot', 'REBOOT']])] }
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().uid
}

async function system (app: string, gateway: Json): Promise<string> {
  const s = await createSystem(stack, { name: uniq('login'), gateway, communication: { mqtt: { password: 'device-secret' } }, applications: [{ uid: app }] })
  return s.uid as string
}

describe('the login of a device operation follows commIdType', () => {
  it('SERIAL with a gateway of an IMEI only: retrieve and reboot fail the task at once, writing no device task', async () => {
    const uid = await system(await application('SERIAL'), { imei: validImei(++imeis) })
    const t = await retrieve.failsWith({ systems: { uids: [uid] }, data: ['m.temp'] }, 'operation.on.system.missing.comm.identifiers')
    expect(t.error?.message).toContain('MQTT')
    await reboot.failsWith({ systems: { uids: [uid] } }, 'operation.no.communication.id.on.system.for.protocol')
  })

  it('IMEI with a gateway of an IMEI only, and SERIAL with a serial number: the read goes to the device', async () => {
    for (const [type, gateway] of [['IMEI', { imei: validImei(++imeis) }], ['SERIAL', { serialNumber: uniq('SN').toUpperCase() }]] as const) {
      const uid = await system(await application(type), gateway)
      const op = await started(retrieve.post({ systems: { uids: [uid] }, data: ['m.temp'] }))
      await waitOperation(stack, op, (o) => count(o, 'IN_PROGRESS') === 1, 10_000, 'the task at the device')
      expect(await deviceTasksOf(stack, op)).toMatchObject([{ protocol: 'MQTT', state: 'PENDING' }])
      await retrieve.cancel(op)
    }
  })

  it('IMEI with a gateway of a serial number only: refused at once too', async () => {
    const uid = await system(await application('IMEI'), { serialNumber: uniq('SN').toUpperCase() })
    await retrieve.failsWith({ systems: { uids: [uid] }, data: ['m.temp'] }, 'operation.on.system.missing.comm.identifiers')
  })
})
