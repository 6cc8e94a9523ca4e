// Device operations over LwM2M (docs/protocols/lwm2m.md#device-tasks): reboot = Execute /3/0/4, reset = Execute
// /3/0/5, retrieve = Read (its values stored), apply settings = Write; the device's CoAP answer ends the task. In queue
// mode the tasks wait for the device's next Update.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode } from '../../../protocols/coap/index.js'
import { GENERIC_SETTINGS, genericDataTree } from '../../../core/domain/generic-applications.js'
import type { Stack } from '../../helpers/stack.js'
import { startStack } from '../../helpers/stack.js'
import { eventually, pointsOf } from '../../helpers/devices.js'
import { count, started, waitFinished, type Json } from '../../helpers/operations.js'
import { AWAKE_MS } from '../../../ingest/lwm2m/live.js'
import { udpDevice, type TestDevice } from './lwm2m-device.js'
import { lwm2mApplication, lwm2mSystem } from './lwm2m-fixtures.js'

// The service's clock, moved forward to put a queue-mode device to sleep (CoAP and DTLS keep real time).
let offset = 0
let stack: Stack
let app: string
beforeAll(async () => {
  stack = await startStack({ listen: true, clock: { now: () => Date.now() + offset } })
  app = await lwm2mApplication(stack, { security: 'none' }, [
    ...genericDataTree(),
    { id: 'lwm2m', label: 'LwM2M', elementType: 'node', data: [{ id: '1', label: 'Server', elementType: 'node', data: [{ id: '0', label: '0', elementType: 'node', data: [{ id: '1', label: 'Lifetime', elementType: 'setting', type: 'int' }] }] }] }
  ])
}, 120_000)
afterAll(async () => { await stack?.close() })

const operation = async (kind: string, body: Json): Promise<string> =>
  await started(stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/systems/${kind}`, payload: body }))

async function registered (binding = 'U'): Promise<{ uid: string, d: TestDevice }> {
  const s = await lwm2mSystem(stack, { applications: [app] })
  const d = await udpDevice(stack.ports.lwm2m ?? 0)
  onTestFinished(async () => { await d.close() })
  expect((await d.register([`ep=${s.serial}`, `b=${binding}`, 'lwm2m=1.1'])).code).toBe(CoapCode.Created)
  await d.requested('/1/0') // observed (the application's tree names /1/0 alone): the device is served
  return { uid: s.uid, d }
}

describe('device operations over LwM2M', () => {
  it('a reboot is Execute /3/0/4; the device\'s 2.04 ends it SUCCESS', async () => {
    const { uid, d } = await registered()
    const op = await operation('reboot', { systems: { uids: [uid] } })
    await d.requested('/3/0/4', CoapCode.POST)
    expect(count(await waitFinished(stack, op, 20_000), 'SUCCESS')).toBe(1)
  })

  it('a reset is Execute /3/0/5', async () => {
    const { uid, d } = await registered()
    const op = await operation('reset', { systems: { uids: [uid] } })
    await d.requested('/3/0/5', CoapCode.POST)
    expect(count(await waitFinished(stack, op, 20_000), 'SUCCESS')).toBe(1)
  })

  it('a retrieve Reads each id (_RSSI from /4/0/2) and stores what it read', async () => {
    const { uid, d } = await registered()
    ;(d.objects[4] as Record<number, Record<number, unknown>>)[0] = { 2: -88 }
    const op = await operation('data/retrieve', { systems: { uids: [uid] }, data: ['_RSSI'] })
    await d.requested('/4/0/2', CoapCode.GET)
    expect(count(await waitFinished(stack, op, 20_000), 'SUCCESS')).toBe(1)
    expect((await pointsOf(stack, uid)).filter((p) => p.dataId === '_RSSI').map((p) => p.num)).toContain(-88)
  })

  it('apply settings Writes lwm2m.1.0.1 (the lifetime) as TLV; a setting with no LwM2M resource fails the task', async () => {
    const { uid, d } = await registered()
    const op = await operation('settings', { systems: { uids: [uid] }, settings: [{ key: 'lwm2m.1.0.1', value: 600 }], reboot: false })
    await d.requested('/1/0/1', CoapCode.PUT)
    expect(count(await waitFinished(stack, op, 20_000), 'SUCCESS')).toBe(1)
    expect(d.requests.find((r) => r.path === '/1/0/1')?.payload).toEqual(Buffer.from([0xc2, 0x01, 0x02, 0x58]))
    const bad = await operation('settings', { systems: { uids: [uid] }, settings: [{ key: GENERIC_SETTINGS.apn, value: 'iot' }], reboot: false })
    expect(count(await waitFinished(stack, bad, 20_000), 'FAILURE')).toBe(1)
  })

  it('queue mode: a task for a device asleep waits for its next Update', async () => {
    const { uid, d } = await registered('UQ')
    offset += AWAKE_MS + 1000
    onTestFinished(() => { offset = 0 })
    const op = await operation('reboot', { systems: { uids: [uid] } })
    await eventually(async () => (await stack.db.query<{ state: string }>('SELECT state FROM device_tasks WHERE system_uid = $1', [uid])).rows[0]?.state === 'PENDING', 10_000, 'the device task written, pending')
    expect(d.requests.some((r) => r.path === '/3/0/4')).toBe(false)
    expect((await d.update()).code).toBe(CoapCode.Changed)
    await d.requested('/3/0/4', CoapCode.POST)
    expect(count(await waitFinished(stack, op, 20_000), 'SUCCESS')).toBe(1)
  })
})
