// Topic rules (docs/devices.md): a device publishes and subscribes only under its own `<username>/`.
// MQTT 3.1.1 has no negative PUBACK, so a forbidden publish is acknowledged, dropped and counted, as Mosquitto does
// (closing the connection made the device send it again forever); MQTT 5 answers PUBACK 0x87 (not authorized,
// MQTT 5.0 §3.4.2.1). The connection stays on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import {
  connectDevice, createDevice, endAll, eventually, insertTask, messagesOf, publish, refusedCount, subscribe,
  taskState, telemetryCounts, transportOf, wsUrl, type Device, type MqttVersion
} from '../../helpers/devices.js'

let stack: Stack
let a: Device
let b: Device
beforeAll(async () => {
  stack = await startStack({ listen: true })
  a = await createDevice(stack)
  b = await createDevice(stack)
})
afterAll(async () => { await stack.close() })

const EMPTY = { messages: 0, points: 0, last: 0, acks: 0 }
const data = JSON.stringify({ 'machine.temperature': 20 })

describe('publish outside the own topics', () => {
  for (const version of [3, 4] as MqttVersion[]) {
    it(`MQTT ${version === 3 ? '3.1' : '3.1.1'}: to another device's topic is acknowledged and dropped (counted), the connection stays, nothing stored for either`, async () => {
      const d = await createDevice(stack)
      const refused = refusedCount(stack, 'MQTT:topic.forbidden')
      const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
      for (const topic of [`${b.serial}/messages/json`, `${b.imei}/acks/json`, `${d.serial}x/messages/json`, 'messages/json']) {
        expect({ topic, puback: await publish(c, topic, data) }).toEqual({ topic, puback: 0 })
      }
      // QoS 0 as well: dropped and counted.
      expect(await publish(c, `${b.serial}/messages/json`, data, { qos: 0 })).toBe(0)
      await eventually(async () => refusedCount(stack, 'MQTT:topic.forbidden') === refused + 5, 3000, 'the QoS 0 refusal')
      expect(c.connected).toBe(true)
      expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
      expect(await telemetryCounts(stack, b.uid)).toEqual(EMPTY)
      // The same connection still stores its own publishes; the other device got nothing.
      expect(await publish(c, `${d.serial}/messages/json`, data)).toBe(0)
      expect((await messagesOf(stack, d.uid)).length).toBe(1)
      expect(await telemetryCounts(stack, b.uid)).toEqual(EMPTY)
      await endAll(c)
    })
  }

  it('MQTT 5: PUBACK 0x87 and the connection stays (a later own publish is stored), nothing stored for the other', async () => {
    const d = await createDevice(stack)
    const other = await createDevice(stack)
    const refused = refusedCount(stack, 'MQTT:topic.forbidden')
    const c = await connectDevice(wsUrl(stack), d.serial, d.mqttPassword ?? '', { version: 5 })
    for (const topic of [`${other.serial}/messages/json`, `${other.imei}/messages/json`, `${d.imei}/messages/json`]) {
      expect(await publish(c, topic, data)).toBe(0x87)
    }
    expect(refusedCount(stack, 'MQTT:topic.forbidden')).toBe(refused + 3)
    expect(c.connected).toBe(true)
    expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
    expect(await telemetryCounts(stack, other.uid)).toEqual(EMPTY)
    expect(await publish(c, `${d.serial}/messages/json`, data)).toBe(0)
    expect((await messagesOf(stack, d.uid)).length).toBe(1)
    await endAll(c)
    expect(await telemetryCounts(stack, other.uid)).toEqual(EMPTY)
  })

  it('the IMEI login owns `<imei>/` only, not `<serial>/` of the same system', async () => {
    const d = await createDevice(stack)
    const c = await connectDevice(stack.mqttUrl, d.imei, d.mqttPassword ?? '', { version: 4 })
    expect(await publish(c, `${d.serial}/messages/json`, data)).toBe(0)
    expect(c.connected).toBe(true)
    await endAll(c)
    expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
  })

  it('an own topic that is not a device topic stores nothing and the connection stays (3.1.1)', async () => {
    const d = await createDevice(stack)
    const refused = refusedCount(stack, 'MQTT:topic.unsupported')
    const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4 })
    expect(await publish(c, `${d.serial}/messages/xml`, data)).toBe(0)
    expect(await publish(c, `${d.serial}/tasks/json`, '[]')).toBe(0)
    expect(refusedCount(stack, 'MQTT:topic.unsupported')).toBe(refused + 2)
    expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
    expect(await publish(c, `${d.serial}/messages/json`, data)).toBe(0)
    expect((await messagesOf(stack, d.uid)).length).toBe(1)
    await endAll(c)
  })
})

describe('device publishes are consumed, never routed', () => {
  for (const version of [4, 5] as MqttVersion[]) {
    it(`MQTT ${version === 4 ? '3.1.1' : '5'}: a publish on the own tasks topic (live or retained) never reaches a subscriber as a task`, async () => {
      const d = await createDevice(stack)
      const publisher = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
      // Retained first (MQTT 3.1.1; our MQTT 5 CONNACK says retain is not available): it would be kept in the broker
      // and replayed on every later subscribe.
      if (version === 4) expect(await publish(publisher, `${d.serial}/tasks/json`, '[{"uid": "fake-retained", "timestamp": 1, "read": ["x"]}]', { qos: 1, retain: true })).toBe(0)
      // A listener of the same device subscribed to all its topics: a broker routing publishes would hand it these.
      const listener = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4 })
      const got: string[] = []
      listener.on('message', (_topic, payload) => { got.push(payload.toString()) })
      expect(await subscribe(listener, `${d.serial}/#`)).toEqual([1])
      expect(await publish(publisher, `${d.serial}/tasks/json`, '[{"uid": "fake-live", "timestamp": 1, "read": ["x"]}]')).toBe(version === 5 ? 0x99 : 0)
      expect(await publish(publisher, `${d.serial}/messages/json`, '{"a": 1}', { qos: 1, retain: version === 4 })).toBe(0)
      // A real task still arrives: the listener is subscribed and delivery works.
      const uid = await insertTask(stack, d.uid, { timestamp: 2, read: ['y'] })
      expect(await transportOf(stack, 'mqtt').push?.(d.uid, [{ uid, timestamp: 2, read: ['y'] }])).toBe(true)
      await eventually(async () => got.length > 0, 3000, 'the real task')
      // Anything routed from the publisher would have come first: it was acknowledged before the task was written.
      expect(got).toEqual([JSON.stringify([{ uid, timestamp: 2, read: ['y'] }])])
      await endAll(publisher, listener)
    })
  }
})

describe('subscribe', () => {
  // MQTT 3.1.1 §3.9.3: 0x80 failure; MQTT 5.0 §3.9.3: 0x87 not authorized.
  const REFUSED: Record<MqttVersion, number> = { 3: 0x80, 4: 0x80, 5: 0x87 }
  for (const version of [3, 4, 5] as MqttVersion[]) {
    it(`MQTT ${version}: elsewhere refused (SUBACK ${REFUSED[version]}), own tasks topic granted, connection stays`, async () => {
      const c = await connectDevice(stack.mqttUrl, a.serial, a.mqttPassword ?? '', { version })
      for (const topic of [`${b.serial}/tasks/json`, '#', '+/tasks/json', `${b.imei}/#`, `${a.serial}x/tasks/json`]) {
        expect({ topic, granted: await subscribe(c, topic) }).toEqual({ topic, granted: [REFUSED[version]] })
      }
      expect(await subscribe(c, `${a.serial}/tasks/json`, 1)).toEqual([1])
      expect(await subscribe(c, `${a.serial}/tasks/json`, 0)).toEqual([0])
      expect(c.connected).toBe(true)
      await endAll(c)
    })
  }

  for (const version of [4, 5] as MqttVersion[]) {
    it(`MQTT ${version}: pending tasks are published on subscribe to the own tasks topic and marked SENT`, async () => {
      const d = await createDevice(stack)
      const uid = await insertTask(stack, d.uid, { timestamp: 1_700_000_000_000, read: ['machine.temperature'] })
      const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
      const got = new Promise<{ topic: string, payload: unknown }>((resolve) => {
        c.once('message', (topic, payload) => { resolve({ topic, payload: JSON.parse(payload.toString()) }) })
      })
      expect(await subscribe(c, `${d.serial}/tasks/json`)).toEqual([1])
      expect(await got).toEqual({ topic: `${d.serial}/tasks/json`, payload: [{ uid, timestamp: 1_700_000_000_000, read: ['machine.temperature'] }] })
      expect((await taskState(stack, uid))?.state).toBe('SENT')
      // The ack finishes the task.
      expect(await publish(c, `${d.serial}/acks/json`, JSON.stringify([{ uid, status: 'OK' }]))).toBe(0)
      await eventually(async () => (await taskState(stack, uid))?.state === 'OK', 2000, 'task OK')
      await endAll(c)
    })
  }

  for (const version of [4, 5] as MqttVersion[]) {
    it(`MQTT ${version}: tasks go to the connections of the system that subscribed to them (a wildcard under its own topics counts)`, async () => {
      const d = await createDevice(stack)
      const mqtt = transportOf(stack, 'mqtt')
      const idle = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
      await eventually(async () => mqtt.connected(d.uid), 3000, 'the connection to be registered')
      expect(await mqtt.push?.(d.uid, [])).toBe(false) // connected, not subscribed
      const listener = await connectDevice(wsUrl(stack), d.imei, d.mqttPassword ?? '', { version })
      const got = new Promise<{ topic: string, payload: string }>((resolve) => {
        listener.once('message', (topic, payload) => { resolve({ topic, payload: payload.toString() }) })
      })
      const idleGot: string[] = []
      idle.on('message', (topic) => { idleGot.push(topic) })
      expect(await subscribe(listener, `${d.imei}/+/json`)).toEqual([1])
      const tasks = [{ uid: 'live-task', timestamp: 5, command: { id: 'machine.reboot', params: {} } }]
      expect(await mqtt.push?.(d.uid, tasks)).toBe(true)
      expect(await got).toEqual({ topic: `${d.imei}/tasks/json`, payload: JSON.stringify(tasks) })
      expect(idleGot).toEqual([])
      await endAll(idle, listener)
      // Nobody connected once the server has seen the connections close.
      await eventually(async () => !(await mqtt.push?.(d.uid, tasks)) && !mqtt.connected(d.uid), 3000, 'the connections to be gone')
    })
  }
})

describe('one registry of connections across MQTT 3.1.1 and 5', () => {
  it('a push goes to the latest connection that subscribed, whichever its version; connected and counted on both', async () => {
    const d = await createDevice(stack)
    const mqtt = transportOf(stack, 'mqtt')
    const count = (kind: string): number => mqtt.connections().find((c) => c.kind === kind)?.count ?? 0
    const [v3, v5] = [count('3.1.1'), count('5')]
    const older = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4 })
    expect(await subscribe(older, `${d.serial}/tasks/json`)).toEqual([1])
    const newer = await connectDevice(wsUrl(stack), d.imei, d.mqttPassword ?? '', { version: 5 })
    expect(await subscribe(newer, `${d.imei}/#`)).toEqual([1])
    await eventually(async () => count('3.1.1') === v3 + 1 && count('5') === v5 + 1, 3000, 'both connections counted')
    const got: Record<string, string[]> = { older: [], newer: [] }
    older.on('message', (topic) => { got.older?.push(topic) })
    newer.on('message', (topic) => { got.newer?.push(topic) })

    expect(await mqtt.push?.(d.uid, [{ uid: 'to-newer', timestamp: 1, read: ['a'] }])).toBe(true)
    await eventually(async () => got.newer?.length === 1, 3000, 'the task on the MQTT 5 connection')
    await endAll(newer)
    await eventually(async () => count('5') === v5, 3000, 'the MQTT 5 connection gone')
    expect(mqtt.connected(d.uid)).toBe(true)
    expect(await mqtt.push?.(d.uid, [{ uid: 'to-older', timestamp: 2, read: ['b'] }])).toBe(true)
    await eventually(async () => got.older?.length === 1, 3000, 'the task on the 3.1.1 connection')
    expect(got).toEqual({ older: [`${d.serial}/tasks/json`], newer: [`${d.imei}/tasks/json`] })
    await endAll(older)
    await eventually(async () => !mqtt.connected(d.uid) && count('3.1.1') === v3, 3000, 'the system gone')
  })
})
