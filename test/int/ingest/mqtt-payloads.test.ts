// Payloads on `<username>/messages/json` and `<username>/acks/json` (docs/protocols/README.md.md §3.1):
// the three data forms, QoS 0 and 1, acks finishing tasks, and malformed payloads dropped and counted with the
// connection kept. Every accepted payload is exactly one device message (docs/devices.md).
import type { MqttClient } from 'mqtt'
import mqttPacket from 'mqtt-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import {
  closed, connectDevice, createDevice, endAll, eventually, insertTask, messagesOf, packetsOf, pointsOf, publish, refusedCount,
  settle, taskState, telemetryCounts, wsUrl, type Device, type MqttVersion
} from '../../helpers/devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

const EMPTY = { messages: 0, points: 0, last: 0, acks: 0 }

async function device (version: MqttVersion, ws = false): Promise<{ d: Device, c: MqttClient, topic: string }> {
  const d = await createDevice(stack)
  const c = await connectDevice(ws ? wsUrl(stack) : stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
  return { d, c, topic: `${d.serial}/messages/json` }
}

for (const version of [4, 5] as MqttVersion[]) {
  describe(`MQTT ${version === 4 ? '3.1.1' : '5'}: data forms`, () => {
    it('list form: every point with its timestamp (null → reception), duplicates counted in nbDataPoints', async () => {
      const { d, c, topic } = await device(version)
      const before = Date.now()
      const payload = [
        { 'machine.temperature': [{ timestamp: 1_416_324_560_869, value: 42.2 }, { timestamp: 1_416_324_560_869, value: 42.2 }, { timestamp: 1_416_324_570_000, value: 43 }] },
        { 'machine.name': [{ timestamp: 1_416_324_560_000, value: 'pump' }], 'machine.on': [{ timestamp: null, value: true }] },
        { 'machine.nothing': [{ timestamp: 1_416_324_560_000, value: null }] }
      ]
      expect(await publish(c, topic, JSON.stringify(payload))).toBe(0)
      const after = Date.now()
      const [m, ...more] = await messagesOf(stack, d.uid)
      expect(more).toEqual([])
      expect(m).toMatchObject({ protocol: 'MQTT', nbDataPoints: 6 })
      const pts = await pointsOf(stack, d.uid)
      expect(pts.every((p) => p.messageUid === m?.uid)).toBe(true)
      const on = pts.find((p) => p.dataId === 'machine.on')
      expect(on?.ts).toBeGreaterThanOrEqual(before)
      expect(on?.ts).toBeLessThanOrEqual(after)
      expect(on).toMatchObject({ num: 1, str: 'true' })
      expect(m?.ts).toBe(on?.ts) // the message timestamp is its latest point
      expect(pts.filter((p) => p.dataId !== 'machine.on').map((p) => [p.dataId, p.ts, p.num, p.str])).toEqual([
        ['machine.name', 1_416_324_560_000, null, 'pump'],
        ['machine.nothing', 1_416_324_560_000, null, null],
        ['machine.temperature', 1_416_324_560_869, 42.2, null],
        ['machine.temperature', 1_416_324_560_869, 42.2, null],
        ['machine.temperature', 1_416_324_570_000, 43, null]
      ])
      await endAll(c)
    })

    it('list form with an empty, null or missing timestamp (the HL-series sample): stored at the reception time', async () => {
      const { d, c, topic } = await device(version)
      const before = Date.now()
      expect(await publish(c, topic, '[{"MilliSec":[{"timestamp":"","value":"123456"}]}]')).toBe(0)
      expect(await publish(c, topic, '[{"MilliSec":[{"timestamp":null,"value":"2"},{"value":"3"}]}]')).toBe(0)
      const after = Date.now()
      expect((await messagesOf(stack, d.uid)).length).toBe(2)
      const pts = await pointsOf(stack, d.uid)
      expect(pts.map((p) => [p.dataId, p.str]).sort()).toEqual([['MilliSec', '123456'], ['MilliSec', '2'], ['MilliSec', '3']])
      for (const p of pts) {
        expect(p.ts).toBeGreaterThanOrEqual(before)
        expect(p.ts).toBeLessThanOrEqual(after)
      }
      await endAll(c)
    })

    it('timestamp-keyed form: the key is the timestamp', async () => {
      const { d, c, topic } = await device(version, true)
      const payload = { 1_349_907_137_000: { 'machine.temperature': 23.2, 'machine.humidity': 70 }, 1_349_908_137_000: { 'machine.temperature': 24.5 } }
      expect(await publish(c, topic, JSON.stringify(payload))).toBe(0)
      const [m, ...more] = await messagesOf(stack, d.uid)
      expect(more).toEqual([])
      expect(m).toMatchObject({ nbDataPoints: 3, ts: 1_349_908_137_000 })
      expect((await pointsOf(stack, d.uid)).map((p) => [p.dataId, p.ts, p.num])).toEqual([
        ['machine.humidity', 1_349_907_137_000, 70],
        ['machine.temperature', 1_349_907_137_000, 23.2],
        ['machine.temperature', 1_349_908_137_000, 24.5]
      ])
      await endAll(c)
    })

    it('flat form: stamped on receipt', async () => {
      const { d, c, topic } = await device(version)
      const before = Date.now()
      expect(await publish(c, topic, JSON.stringify({ 'machine.temperature': 23.2, 'machine.label': 'x' }))).toBe(0)
      const after = Date.now()
      const [m] = await messagesOf(stack, d.uid)
      expect(m?.nbDataPoints).toBe(2)
      const pts = await pointsOf(stack, d.uid)
      expect(pts.map((p) => [p.dataId, p.num, p.str])).toEqual([['machine.label', null, 'x'], ['machine.temperature', 23.2, null]])
      for (const p of pts) {
        expect(p.ts).toBe(m?.receivedAt)
        expect(p.ts).toBeGreaterThanOrEqual(before)
        expect(p.ts).toBeLessThanOrEqual(after)
      }
      await endAll(c)
    })

    it('QoS 0 is stored too; each payload is one device message', async () => {
      const { d, c, topic } = await device(version)
      for (let i = 0; i < 5; i++) c.publish(topic, JSON.stringify({ 'machine.counter': i }), { qos: 0 })
      await eventually(async () => (await messagesOf(stack, d.uid)).length === 5, 5000, 'five messages')
      expect((await pointsOf(stack, d.uid)).map((p) => p.num).sort()).toEqual([0, 1, 2, 3, 4])
      expect((await messagesOf(stack, d.uid)).map((m) => m.nbDataPoints)).toEqual([1, 1, 1, 1, 1])
      await endAll(c)
    })

    it('acks on <u>/acks/json are recorded in device_acks and finish their tasks (OK, ERROR, KO)', async () => {
      const { d, c } = await device(version)
      const t1 = await insertTask(stack, d.uid, { timestamp: 1, command: { id: 'machine.reboot', params: {} } })
      const t2 = await insertTask(stack, d.uid, { timestamp: 1, read: ['x'] })
      const t3 = await insertTask(stack, d.uid, { timestamp: 1, write: [{ x: 1 }] })
      const acks = [{ uid: t1, status: 'OK' }, { uid: t2, status: 'ERROR', message: 'no such id' }, { uid: t3, status: 'KO' }, { uid: 'unknown-task', status: 'OK' }]
      // Not its login's topic (it logged in with the serial): dropped, acknowledged on 3.1.1, 0x87 on MQTT 5.
      expect(await publish(c, `${d.imei}/acks/json`, JSON.stringify(acks))).toBe(version === 5 ? 0x87 : 0)
      expect((await taskState(stack, t1))?.state).toBe('PENDING')
      await endAll(c)
      const c2 = await connectDevice(stack.mqttUrl, d.imei, d.mqttPassword ?? '', { version })
      expect(await publish(c2, `${d.imei}/acks/json`, JSON.stringify(acks))).toBe(0)
      const { rows } = await stack.db.query<{ task_uid: string, status: string, message: string | null, protocol: string }>(
        'SELECT task_uid, status, message, protocol FROM device_acks WHERE system_uid = $1 ORDER BY id', [d.uid])
      expect(rows).toEqual([
        { task_uid: t1, status: 'OK', message: null, protocol: 'MQTT' },
        { task_uid: t2, status: 'ERROR', message: 'no such id', protocol: 'MQTT' },
        { task_uid: t3, status: 'ERROR', message: null, protocol: 'MQTT' },
        { task_uid: 'unknown-task', status: 'OK', message: null, protocol: 'MQTT' }
      ])
      expect(await taskState(stack, t1)).toMatchObject({ state: 'OK', message: null })
      expect(await taskState(stack, t2)).toMatchObject({ state: 'ERROR', message: 'no such id' })
      expect((await taskState(stack, t3))?.state).toBe('ERROR')
      expect((await taskState(stack, t1))?.ackedAt).toBeGreaterThan(0)
      expect((await messagesOf(stack, d.uid)).length).toBe(0) // acks are not data messages
      await endAll(c2)
    })
  })
}

describe('QoS 2', () => {
  it('MQTT 3.1.1: stored (protocols.md §3.1 names QoS 0 and 1; a QoS 2 device is served at least once)', async () => {
    const { d, c, topic } = await device(4)
    expect(await publish(c, topic, '{"a": 1}', { qos: 2 })).toBe(0)
    expect((await messagesOf(stack, d.uid)).length).toBe(1)
    await endAll(c)
  })

  it('MQTT 5: the CONNACK announced maximum QoS 1, so a QoS 2 PUBLISH is a protocol error: DISCONNECT 0x9B, nothing stored', async () => {
    const { d, c, topic } = await device(5)
    const connack = packetsOf(c).find((p) => p.cmd === 'connack') as { properties?: { maximumQoS?: number } } | undefined
    expect(connack?.properties?.maximumQoS).toBe(1)
    // mqtt.js keeps to the announced maximum itself; write the packet raw to see the server's answer.
    c.stream.write(mqttPacket.generate({ cmd: 'publish', topic, payload: Buffer.from('{"a": 1}'), qos: 2, messageId: 9, retain: false, dup: false }, { protocolVersion: 5 }))
    expect(await closed(c)).toBe(true)
    expect(packetsOf(c).find((p) => p.cmd === 'disconnect')).toMatchObject({ reasonCode: 0x9b })
    expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
    await endAll(c)
  })
})

describe('malformed payloads: dropped and counted, the connection stays, nothing stored', () => {
  const MANY = JSON.stringify([{ id: Array.from({ length: 10_001 }, (_, i) => ({ timestamp: 1_600_000_000_000 + i, value: i })) }])
  const HUGE = JSON.stringify({ big: 'x'.repeat(1024 * 1024) })
  const CASES: Array<[string, string, string]> = [
    ['bad JSON', '{"machine.temperature": ', 'payload.invalid.json'],
    ['not UTF-8', '', 'payload.invalid.utf8'],
    ['wrong shape (number)', '42', 'payload.invalid.shape'],
    ['wrong shape (series not an array)', '[{"id": 3}]', 'payload.invalid.shape'],
    ['object value', '{"machine.temperature": {"v": 1}}', 'payload.invalid.value'],
    ['array value', '{"1349907137000": {"a": [1]}}', 'payload.invalid.value'],
    ['empty payload', '', 'payload.empty'],
    ['no point', '[]', 'payload.empty'],
    ['bad timestamp', '[{"a": [{"timestamp": -5, "value": 1}]}]', 'payload.invalid.timestamp'],
    ['too many points', MANY, 'payload.too.many.points'],
    ['larger than 1 MiB', HUGE, 'payload.too.large']
  ]
  for (const version of [4, 5] as MqttVersion[]) {
    it(`MQTT ${version === 4 ? '3.1.1' : '5'}: ${CASES.length} malformed payloads, then a valid one on the same connection`, async () => {
      const { d, c, topic } = await device(version)
      const expectedAck = version === 5 ? 0x99 : 0 // MQTT 5.0 §3.4.2.1 payload format invalid; 3.1.1 has no negative PUBACK
      const refusedBefore = refusedCount(stack, 'MQTT:')
      for (const [name, payload, reason] of CASES) {
        const before = refusedCount(stack, `MQTT:${reason}`)
        const buf = name === 'not UTF-8' ? Buffer.from([0xff, 0xfe, 0x7b]) : payload
        expect({ name, ack: await publish(c, topic, buf) }).toEqual({ name, ack: expectedAck })
        expect({ name, refused: refusedCount(stack, `MQTT:${reason}`) - before }).toEqual({ name, refused: 1 })
      }
      const badAcks = ['[]', '[{"uid": "t"}]', '{"status": "OK"}', 'nope']
      for (const p of badAcks) expect(await publish(c, `${d.serial}/acks/json`, p)).toBe(expectedAck)
      expect(refusedCount(stack, 'MQTT:') - refusedBefore).toBe(CASES.length + badAcks.length)
      expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
      expect(c.connected).toBe(true)
      expect(await publish(c, topic, '{"machine.temperature": 1}')).toBe(0)
      await settle(stack)
      expect(await telemetryCounts(stack, d.uid)).toEqual({ messages: 1, points: 1, last: 1, acks: 0 })
      await endAll(c)
    }, 60_000)
  }
})
