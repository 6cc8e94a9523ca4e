// A device's Will (decision 0012): taken as a publish of the device when its connection ends without a DISCONNECT
// asking for none (lost, taken over; MQTT 5: DISCONNECT 0x04), stored as its message on its own messages topic; not
// published after a clean DISCONNECT. The same on MQTT 3.1.1 and 5.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { closed, connectDevice, createDevice, endAll, eventually, messagesOf, publish, settle, type Device, type MqttVersion } from '../../helpers/devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

const withWill = (d: Device): { will: { topic: string, payload: Buffer, qos: 0, retain: false } } =>
  ({ will: { topic: `${d.serial}/messages/json`, payload: Buffer.from('{"will": 1}'), qos: 0, retain: false } })

async function willDevice (version: MqttVersion, clientId?: string): Promise<{ d: Device, c: MqttClient }> {
  const d = await createDevice(stack)
  const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version, ...(clientId === undefined ? {} : { clientId }), ...withWill(d) })
  return { d, c }
}

/** Whether the Will was stored: a later connection's publish is acknowledged (stored) first, then the store is read. */
async function storedAfter (d: Device, version: MqttVersion): Promise<number> {
  const probe = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
  expect(await publish(probe, `${d.serial}/messages/json`, '{"probe": 1}')).toBe(0)
  await endAll(probe)
  await settle(stack)
  return (await messagesOf(stack, d.uid)).length - 1
}

for (const version of [4, 5] as MqttVersion[]) {
  describe(`MQTT ${version === 4 ? '3.1.1' : '5'}`, () => {
    it('a connection lost: its Will is stored as the device\'s message', async () => {
      const { d, c } = await willDevice(version)
      c.end(true) // the socket closed without DISCONNECT
      await eventually(async () => (await messagesOf(stack, d.uid)).length === 1, 10_000, 'the Will stored')
      expect((await messagesOf(stack, d.uid))[0]).toMatchObject({ protocol: 'MQTT', nbDataPoints: 1 })
    })

    it('a clean DISCONNECT: no Will', async () => {
      const { d, c } = await willDevice(version)
      await c.endAsync(false)
      expect(await closed(c)).toBe(true)
      expect(await storedAfter(d, version)).toBe(0)
    })

    it('taken over by a newer connection of the device with its client id: its Will is stored', async () => {
      const d = await createDevice(stack)
      const clientId = `will-${d.serial}`
      const first = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version, clientId, ...withWill(d) })
      const second = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version, clientId })
      expect(await closed(first)).toBe(true)
      await eventually(async () => (await messagesOf(stack, d.uid)).length === 1, 10_000, 'the Will stored')
      await endAll(first, second)
    })
  })
}

it('MQTT 5: DISCONNECT 0x04 (with Will message) publishes the Will', async () => {
  const { d, c } = await willDevice(5)
  await c.endAsync(false, { reasonCode: 0x04 })
  await eventually(async () => (await messagesOf(stack, d.uid)).length === 1, 10_000, 'the Will stored')
})
