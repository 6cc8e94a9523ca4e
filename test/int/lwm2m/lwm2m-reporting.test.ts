// Reporting (docs/protocols/lwm2m.md): after a Register the service observes the object instances the application
// names (default /3/0, /4/0, /6/0, those the device announced); each answer and notification is one device message
// with protocol LWM2M, data ids lwm2m.<o>.<i>.<r>, and the System data fields of the conventions.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { CoapCode, OptionNumber } from '../../../protocols/coap/index.js'
import type { Stack } from '../../helpers/stack.js'
import { eventually, messagesOf, pointsOf, refusedCount, settle, telemetryCounts } from '../../helpers/devices.js'
import { getSystem } from '../../helpers/systems.js'
import { dtlsDevice, udpDevice, type TestDevice } from './lwm2m-device.js'
import { lwm2mApplication, lwm2mSystem, startLwm2mStack } from './lwm2m-fixtures.js'

let stack: Stack
let nosec: string
let secured: string
beforeAll(async () => { ({ stack, nosec, secured } = await startLwm2mStack()) }, 120_000)
afterAll(async () => { await stack?.close() })

async function plain (): Promise<TestDevice> {
  const d = await udpDevice(stack.ports.lwm2m ?? 0)
  onTestFinished(async () => { await d.close() })
  return d
}

const observed = (d: TestDevice): string[] => [...new Set(d.requests.filter((r) => r.observe && r.code === CoapCode.GET).map((r) => r.path))].sort()
const value = (p: { num: number | null, str: string | null }): number | string | null => p.num ?? p.str

describe('reporting', () => {
  it('observes /3/0, /4/0 and /6/0 by default: LWM2M messages, lwm2m.* data ids and the System data fields', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    expect((await d.register([`ep=${s.serial}`, 'lt=300'])).code).toBe(CoapCode.Created)
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 3, 10_000, 'three messages, one per observed instance')
    expect(observed(d)).toEqual(['/3/0', '/4/0', '/6/0'])
    expect((await messagesOf(stack, s.uid)).every((m) => m.protocol === 'LWM2M')).toBe(true)
    const points = new Map((await pointsOf(stack, s.uid)).map((p) => [p.dataId, value(p)]))
    expect(Object.fromEntries([...points].filter(([id]) => ['lwm2m.3.0.3', 'lwm2m.4.0.2', 'lwm2m.4.0.3', 'lwm2m.4.0.8', 'lwm2m.6.0.0', 'lwm2m.6.0.1', '_FIRMWARE_VERSION', '_RSSI', '_CELL_ID', '_NETWORK_OPERATOR', '_LATITUDE', '_LONGITUDE'].includes(id)))).toEqual({
      'lwm2m.3.0.3': '1.2.3',
      'lwm2m.4.0.2': -71,
      'lwm2m.4.0.3': 80,
      'lwm2m.4.0.8': 12345,
      'lwm2m.6.0.0': 45.5,
      'lwm2m.6.0.1': 4.75,
      _FIRMWARE_VERSION: '1.2.3',
      _RSSI: -71,
      _CELL_ID: '12345',
      _NETWORK_OPERATOR: '20801',
      _LATITUDE: 45.5,
      _LONGITUDE: 4.75
    })
    await settle(stack)
    expect((await getSystem(stack, s.uid)).data).toMatchObject({ firmwareVersion: '1.2.3', rssi: -71, rssiLevel: 'VERY_GOOD', cellId: '12345', networkOperator: '20801', latitude: 45.5, longitude: 4.75 })
  })

  it('a notification is one more message; its values become the last ones', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    await d.register([`ep=${s.serial}`])
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 3, 10_000, 'the first answers stored')
    ;(d.objects[4] as Record<number, Record<number, unknown>>)[0] = { 0: 6, 2: -97, 3: 20, 8: 777, 9: 15, 10: 310 }
    expect(await d.notify('/4/0')).toBe(1)
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 4, 10_000, 'the notification stored')
    await settle(stack)
    expect((await getSystem(stack, s.uid)).data).toMatchObject({ rssi: -97, rssiLevel: 'VERY_LOW', cellId: '777', networkOperator: '31015' })
  })

  it('observes what the application\'s LWM2M data tree names, among the instances the device announced', async () => {
    const app = await lwm2mApplication(stack, { security: 'none' }, [
      {
        id: 'lwm2m',
        label: 'LwM2M',
        elementType: 'node',
        data: [
          { id: '3', label: 'Device', elementType: 'node', data: [{ id: '0', label: '0', elementType: 'node', data: [{ id: '3', label: 'Firmware', elementType: 'variable', type: 'string' }] }] },
          { id: '3303', label: 'Temperature', elementType: 'node', data: [{ id: '0', label: '0', elementType: 'node', data: [{ id: '5700', label: 'Value', elementType: 'variable', type: 'double' }] }] },
          { id: '5', label: 'Firmware', elementType: 'node', data: [{ id: '0', label: '0', elementType: 'node', data: [{ id: '3', label: 'State', elementType: 'variable', type: 'int' }] }] }
        ]
      }
    ])
    const s = await lwm2mSystem(stack, { applications: [app] })
    const d = await plain()
    d.objects[3303] = { 0: { 5700: 21.5 } }
    d.formats.set(3303, 110) // SenML JSON: its values carry their type
    await d.register([`ep=${s.serial}`], '</1/0>,</3/0>,</4/0>,</3303/0>,</5>')
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 2, 10_000, 'two messages')
    expect(observed(d)).toEqual(['/3/0', '/3303/0'])
    expect((await pointsOf(stack, s.uid)).find((p) => p.dataId === 'lwm2m.3303.0.5700')?.num).toBe(21.5)
  })

  it('over DTLS as over plain CoAP', async () => {
    const s = await lwm2mSystem(stack, { applications: [secured], psk: true })
    const { device } = await dtlsDevice(stack.ports.lwm2ms ?? 0, s.serial, s.psk as Buffer)
    onTestFinished(async () => { await device.close() })
    expect((await device.register([`ep=${s.serial}`])).code).toBe(CoapCode.Created)
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 3, 10_000, 'three messages')
    await settle(stack)
    expect((await getSystem(stack, s.uid)).data).toMatchObject({ firmwareVersion: '1.2.3', rssi: -71 })
  })

  it('a notification that does not decode is refused and counted; nothing stored; the next good one is', async () => {
    const s = await lwm2mSystem(stack, { applications: [nosec] })
    const d = await plain()
    await d.register([`ep=${s.serial}`])
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 3, 10_000, 'the first answers stored')
    const before = { counts: await telemetryCounts(stack, s.uid), refused: refusedCount(stack, 'LWM2M:lwm2m.tlv') }
    const o = d.endpoint.servedObservers().find((x) => x.path === '/4/0')
    expect(o).toBeDefined()
    if (o === undefined) return
    await d.endpoint.notify(o.peer, o.token, { code: CoapCode.Content, payload: Buffer.from([0xc8, 0x02, 0x09, 0x01]), options: [{ number: OptionNumber.ContentFormat, value: Buffer.from([0x2d, 0x16]) }] }, { confirmable: true })
    await eventually(() => refusedCount(stack, 'LWM2M:lwm2m.tlv') === before.refused + 1, 5000, 'the refusal counted')
    expect(await telemetryCounts(stack, s.uid)).toEqual(before.counts)
    expect(await d.notify('/4/0')).toBe(1)
    await eventually(async () => (await messagesOf(stack, s.uid)).length === 4, 10_000, 'the good notification stored')
  })
})
