// Telemetry end to end (docs/testing.md, the e2e pattern): simulated devices register through the API,
// publish over MQTT 3.1.1, MQTT 5 and REST on real sockets, and what they sent is read back through the API.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Point } from '../../protocols/airvantage/index.js'
import { createDeviceModel } from '../../simulator/devices/device-model.js'
import { deviceIdentity, newRunTag } from '../../simulator/devices/identity.js'
import { createSimulatedDevice, type SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { addDevice, openTransport, type LinkOptions } from '../../simulator/fleet.js'
import { connectApi, registerDevice, type ApiClient } from '../../simulator/provision.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { eventually } from '../helpers/eventually.js'

type Json = Record<string, any>

let stack: Stack
let api: ApiClient
const run = newRunTag()
let n = 0
const nextIdentity = (): ReturnType<typeof deviceIdentity> => deviceIdentity(run, ++n)
const devices: SimulatedDevice[] = []

beforeAll(async () => {
  stack = await startStack({ listen: true })
  api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
})
afterAll(async () => {
  for (const d of devices) await d.close()
  await stack?.close()
})

const get = async (url: string): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Polls fn until it stops throwing, or fails with its last error at the deadline (no fixed sleeps). */
async function settled<T> (fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const { v } = await eventually(async () => ({ v: await fn() }), { timeoutMs, intervalMs: 50, retryErrors: true })
  return v
}

// docs/devices.md: rssi dBm >= -65 EXCELLENT, >= -75 VERY_GOOD, >= -85 GOOD, >= -95 LOW, >= -105 VERY_LOW.
function expectedRssiLevel (dBm: number): string {
  const bounds: Array<[number, string]> = [[-65, 'EXCELLENT'], [-75, 'VERY_GOOD'], [-85, 'GOOD'], [-95, 'LOW'], [-105, 'VERY_LOW']]
  return bounds.find(([b]) => dBm >= b)?.[1] ?? 'NO_SIGNAL'
}
// docs/devices.md: signalStrength follows signalBars.
const BARS = ['NO_SIGNAL', 'VERY_LOW', 'LOW', 'GOOD', 'VERY_GOOD', 'EXCELLENT']

const value = (points: readonly Point[], id: string): unknown => points.find((p) => p.dataId === id)?.value

const links: Array<[string, LinkOptions & { protocolName: string }]> = [
  ['MQTT 3.1.1', { protocol: 'mqtt', mqttVersion: 4, protocolName: 'MQTT' }],
  ['MQTT 5', { protocol: 'mqtt', mqttVersion: 5, protocolName: 'MQTT' }],
  ['REST', { protocol: 'rest', protocolName: 'REST' }]
]
const link = (l: LinkOptions): LinkOptions => ({ ...l, mqttUrl: stack.mqttUrl })

describe.each(links)('a device on %s', { timeout: 60_000 }, (_name, l) => {
  it('its publishes become System data, last data points and one message each (duplicates counted)', async () => {
    const device = await addDevice(api, nextIdentity(), link(l), { labels: [`sim-${run}`] })
    devices.push(device)
    const before = Date.now()
    // An older message with a repeated point: nbDataPoints counts what was received (docs/devices.md).
    const t0 = before - 60_000
    await device.transport.sendData([
      { dataId: 'machine.temperature', ts: t0, value: 21.5 },
      { dataId: 'machine.temperature', ts: t0, value: 21.5 },
      { dataId: '_RSSI', ts: t0, value: -99 }
    ])
    const sent: Array<readonly Point[]> = []
    for (let i = 0; i < 3; i++) sent.push(await device.publish(before + i))
    const last = sent[2] ?? []

    // Messages and points are committed before the acknowledgement; System data, lastCommDate and the last
    // values follow in coalesced batches (docs/architecture.md#how-data-flows), so they are polled for.
    const rssi = value(last, '_RSSI') as number
    const bars = value(last, '_SIGNAL_BARS') as number
    const system = await settled(async () => {
      const s = await get(`/api/v1/systems/${device.systemUid}`)
      expect(s.data.rssi).toBe(rssi)
      return s
    })
    expect(system.data).toMatchObject({
      rssi,
      rssiLevel: expectedRssiLevel(rssi),
      signalBars: bars,
      signalStrength: BARS[bars],
      latitude: value(last, '_LATITUDE'),
      longitude: value(last, '_LONGITUDE'),
      bytesSent: value(last, '_BYTES_SENT'),
      bytesReceived: value(last, '_BYTES_RECEIVED')
    })
    expect(rssi).toBeGreaterThan(-113)
    expect(value(last, '_BYTES_SENT')).toBeGreaterThan(value(sent[0] ?? [], '_BYTES_SENT') as number) // counters grow
    expect(system.lastCommDate).toBeGreaterThanOrEqual(before)
    expect(system.commStatus).toBe('OK')

    await settled(async () => {
      expect(await get(`/api/v1/systems/${device.systemUid}/data?ids=machine.temperature,machine.humidity,sim.seq`)).toEqual({
        'machine.temperature': [{ value: value(last, 'machine.temperature'), timestamp: before + 2 }],
        'machine.humidity': [{ value: value(last, 'machine.humidity'), timestamp: before + 2 }],
        'sim.seq': [{ value: 3, timestamp: before + 2 }]
      })
    })

    const { messages } = await get(`/api/v1/systems/${device.systemUid}/messages`)
    expect(messages).toHaveLength(4)
    expect(messages.map((m: Json) => [m.timestamp, m.protocol, m.nbDataPoints])).toEqual([
      [before + 2, l.protocolName, last.length],
      [before + 1, l.protocolName, sent[1]?.length],
      [before, l.protocolName, sent[0]?.length],
      [t0, l.protocolName, 3]
    ])
    expect(last.length).toBeGreaterThanOrEqual(9)

    const raw = await get(`/api/v1/systems/data/raw?targetIds=${device.systemUid}&dataIds=machine.temperature&from=${t0}`)
    expect(raw[device.systemUid]['machine.temperature']).toHaveLength(5) // 3 samples + the repeated point, kept twice
  })
})

describe('find systems by data', () => {
  it('data=rssiLevel:<level> finds exactly the devices at that level', async () => {
    expect(devices).toHaveLength(3)
    const levels = new Map<string, string>()
    for (const d of devices) levels.set(d.systemUid, (await get(`/api/v1/systems/${d.systemUid}`)).data.rssiLevel)
    for (const level of ['EXCELLENT', 'VERY_GOOD', 'GOOD', 'LOW', 'VERY_LOW', 'NO_SIGNAL']) {
      const found = await get(`/api/v1/systems?labels=sim-${run}&data=rssiLevel:${level}&fields=uid`)
      const expected = [...levels].filter(([, lv]) => lv === level).map(([uid]) => uid).sort()
      expect(found.items.map((s: Json) => s.uid).sort(), level).toEqual(expected)
    }
  })
})

describe.each(links)('tasks to a device on %s', { timeout: 60_000 }, (_name, l) => {
  it('a pending write then read task reaches the device, which keeps the setting, reports it and acks OK', async () => {
    const id = nextIdentity()
    const systemUid = await registerDevice(api, id)
    const now = Date.now()
    const task = async (body: Json, at: number): Promise<string> => {
      const uid = randomBytes(16).toString('hex')
      // The task travels over the device's own transport (device_tasks.protocol).
      await stack.db.query('INSERT INTO device_tasks (uid, system_uid, protocol, body, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)',
        [uid, systemUid, l.protocolName, JSON.stringify({ uid, timestamp: at, ...body }), at])
      return uid
    }
    const write = await task({ write: [{ 'machine.threshold': 85 }] }, now)
    const read = await task({ read: ['machine.temperature', 'machine.threshold'] }, now + 1)

    // MQTT: delivered when the device subscribes to <id>/tasks/json; REST: answered by GET /device/tasks.
    const transport = await openTransport(id, link(l), stack.httpUrl)
    const device = createSimulatedDevice({ identity: id, systemUid, transport, model: createDeviceModel() })
    devices.push(device)
    await transport.checkTasks()

    const states = async (): Promise<Record<string, string>> => Object.fromEntries((await stack.db.query<{ uid: string, state: string }>(
      'SELECT uid, state FROM device_tasks WHERE system_uid = $1', [systemUid])).rows.map((r) => [r.uid, r.state]))
    await settled(async () => { expect(await states()).toEqual({ [write]: 'OK', [read]: 'OK' }) })
    await device.idle()

    await settled(async () => {
      const reported = await get(`/api/v1/systems/${systemUid}/data?ids=machine.threshold,machine.temperature`)
      expect(reported['machine.threshold']).toEqual([{ value: 85, timestamp: expect.any(Number) }])
      expect(typeof reported['machine.temperature']?.[0]?.value).toBe('number')
    })
    const { messages } = await get(`/api/v1/systems/${systemUid}/messages`)
    expect(messages.map((m: Json) => [m.protocol, m.nbDataPoints])).toEqual([[l.protocolName, 2]])
    const acks = await stack.db.query<{ task_uid: string, status: string, protocol: string }>(
      'SELECT task_uid, status, protocol FROM device_acks WHERE system_uid = $1 ORDER BY id', [systemUid])
    expect(acks.rows).toEqual([
      { task_uid: write, status: 'OK', protocol: l.protocolName },
      { task_uid: read, status: 'OK', protocol: l.protocolName }
    ])

    // A later sample carries the written setting too.
    const next = await device.publish()
    expect(value(next, 'machine.threshold')).toBe(85)
  })
})
