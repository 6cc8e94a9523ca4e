// One device must not stall the others (docs/security.md#device-limits), with the default limits: one authenticated
// device floods QoS 0 as fast as its socket takes it (the security probe's 240,000 messages in 3 s), or sends 150
// payloads of 1 MiB, while another device publishes QoS 1 at a normal rate. The well-behaved device's PUBACK p99 stays
// under 1 s; the flooder is throttled (its budget: a 5 s burst, then 100 messages and 512 KiB a second) and, as it
// keeps at it, disconnected (MQTT 5: DISCONNECT 0x96). Every flood is bounded in count and time and stops by itself.
// Also: an MQTT 5 PUBLISH with a topic alias gets DISCONNECT 0x94 (the service allows no alias).
import mqttPacket, { type IPublishPacket, type Packet } from 'mqtt-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, eventually, messagesOf, publish, settle, type Device } from '../../helpers/devices.js'
import { connectBytes, metricValue, rawPeer, type RawPeer } from '../../helpers/raw-mqtt.js'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({ listen: true })
  // One message through first: the first test does not also time the warm-up of the sessions and the store.
  const d = await createDevice(stack)
  const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 5 })
  await publish(c, `${d.serial}/messages/json`, '{"warm": 1}')
  await endAll(c)
})
afterAll(async () => { await stack.close() })

const FLOOD_MAX_MESSAGES = 240_000
const FLOOD_MAX_MS = 3000
const BUDGET = { burst: 500, perS: 100 } // the defaults: DEVICE_RATE_MESSAGES_PER_S 100, DEVICE_RATE_BURST_S 5
const STEADY_MIN_SAMPLES = 150

/** A device logged in on a raw connection (mqtt.js cannot send fast enough to flood). */
async function rawDevice (d: Device, version: 4 | 5): Promise<RawPeer> {
  const peer = await rawPeer(stack.ports.mqtt ?? 0, version)
  peer.socket.write(connectBytes(version, { clientId: `flood-${d.serial}`, username: d.serial, password: d.mqttPassword ?? '' }))
  expect(await peer.next('connack')).toMatchObject(version === 5 ? { reasonCode: 0 } : { returnCode: 0 })
  return peer
}

/** Writes chunks until the connection closes, `max` chunks or `ms` passed; answers the chunks written. */
async function flood (peer: RawPeer, chunk: (i: number) => Buffer, max: number, ms: number): Promise<number> {
  const until = Date.now() + ms
  let i = 0
  for (; i < max && Date.now() < until && !peer.isClosed(); i++) {
    if (!peer.socket.write(chunk(i))) await Promise.race([new Promise((resolve) => peer.socket.once('drain', resolve)), peer.closed])
  }
  return i
}

/**
 * A well-behaved MQTT 5 device publishing QoS 1 every 20 ms (half its budget) while `during` runs, and until it has
 * sent STEADY_MIN_SAMPLES (so that the p99 is not the slowest of a few); answers each PUBACK's delay and reason code.
 */
async function steadyDevice (during: Promise<unknown>): Promise<Array<{ ms: number, code: number | 'closed' }>> {
  const d = await createDevice(stack)
  const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 5 })
  const out: Array<Promise<{ ms: number, code: number | 'closed' }>> = []
  let enough = (): void => {}
  const sampled = new Promise<void>((resolve) => { enough = resolve })
  const send = (): void => {
    if (out.length + 1 >= STEADY_MIN_SAMPLES) enough()
    const t0 = performance.now()
    out.push(publish(c, `${d.serial}/messages/json`, JSON.stringify({ 'machine.temperature': out.length })).then((code) => ({ ms: performance.now() - t0, code })))
  }
  send()
  const ticker = setInterval(send, 20)
  try {
    await Promise.all([during, sampled])
  } finally {
    clearInterval(ticker)
  }
  const results = await Promise.all(out)
  await endAll(c)
  return results
}

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1] ?? 0

describe('a flooding device does not stall a well-behaved one', () => {
  for (const version of [4, 5] as const) {
    it(`MQTT ${version === 4 ? '3.1.1' : '5'}: QoS 0 as fast as the socket takes it; throttled, then disconnected`, async () => {
      const rateLimited = await metricValue(stack, 'fleet_device_rate_limited_messages_total', { protocol: 'MQTT' })
      const disconnects = await metricValue(stack, 'fleet_device_rate_disconnects_total', { protocol: 'MQTT' })
      const flooder = await createDevice(stack)
      const peer = await rawDevice(flooder, version)
      // 1,000 publishes per write.
      const one = (i: number): Buffer => mqttPacket.generate({ cmd: 'publish', topic: `${flooder.serial}/messages/json`, payload: Buffer.from(`{"n": ${i}}`), qos: 0, retain: false, dup: false } as IPublishPacket, { protocolVersion: version })
      const chunk = Buffer.concat(Array.from({ length: 1000 }, (_, i) => one(i)))
      const started = Date.now()
      const flooding = flood(peer, () => chunk, FLOOD_MAX_MESSAGES / 1000, FLOOD_MAX_MS)
      const acks = await steadyDevice(Promise.all([flooding, peer.closed]))
      const seconds = (Date.now() - started) / 1000

      expect(acks.length).toBeGreaterThan(50)
      expect(acks.every((a) => a.code === 0)).toBe(true)
      expect(p99(acks.map((a) => a.ms))).toBeLessThan(1000)
      // Throttled: at most its burst and its rate for the time it was connected.
      await settle(stack)
      expect((await messagesOf(stack, flooder.uid)).length).toBeLessThanOrEqual(BUDGET.burst + BUDGET.perS * seconds)
      expect(await metricValue(stack, 'fleet_device_rate_limited_messages_total', { protocol: 'MQTT' })).toBeGreaterThanOrEqual(rateLimited + 1000)
      // ...and disconnected as it kept at it (the default: 1,000 refusals within 10 s).
      expect(peer.isClosed()).toBe(true)
      if (version === 5) expect(peer.packets.find((p) => p.cmd === 'disconnect')).toMatchObject({ reasonCode: 0x96 })
      expect(await metricValue(stack, 'fleet_device_rate_disconnects_total', { protocol: 'MQTT' })).toBe(disconnects + 1)
    })
  }

  it('MQTT 5: 150 payloads of 1 MiB at QoS 1 are refused over the byte budget (PUBACK 0x97) and the ingest buffer stays small', async () => {
    const bytesLimited = await metricValue(stack, 'fleet_device_rate_limited_bytes_total', { protocol: 'MQTT' })
    const flooder = await createDevice(stack)
    const peer = await rawDevice(flooder, 5)
    const payload = Buffer.from(JSON.stringify({ blob: 'x'.repeat(1024 * 1024 - 20) }))
    let maxBuffered = 0
    const sampler = setInterval(() => { maxBuffered = Math.max(maxBuffered, stack.ctx.services.ingest.pendingBytes()) }, 5)
    const rssBefore = process.memoryUsage().rss
    let rssMax = rssBefore
    const rss = setInterval(() => { rssMax = Math.max(rssMax, process.memoryUsage().rss) }, 50)
    const chunk = (i: number): Buffer => mqttPacket.generate({ cmd: 'publish', topic: `${flooder.serial}/messages/json`, payload, qos: 1, messageId: i + 1, retain: false, dup: false } as IPublishPacket, { protocolVersion: 5 })
    const flooding = flood(peer, chunk, 150, FLOOD_MAX_MS)
    const acks = await steadyDevice(flooding)
    const written = await flooding
    // One PUBACK for each publish, in order: 0 once stored, 0x97 (quota exceeded) over the budget.
    const pubacks = (): Array<Packet & { reasonCode?: number }> => peer.packets.filter((p) => p.cmd === 'puback')
    await eventually(async () => pubacks().length === written, 5000, 'a PUBACK for every publish').catch((err: unknown) => {
      throw new Error(`${String(err)}: ${pubacks().length} of ${written}, closed ${String(peer.isClosed())}, ${JSON.stringify(peer.packets.filter((p) => p.cmd !== 'puback'))}`)
    })
    clearInterval(sampler)
    clearInterval(rss)
    expect(p99(acks.map((a) => a.ms))).toBeLessThan(1000)
    expect(acks.every((a) => a.code === 0)).toBe(true)
    await settle(stack)
    const stored = (await messagesOf(stack, flooder.uid)).length
    // 512 KiB a second with a burst of 2.5 MiB: a handful in the few seconds of the test.
    expect(stored).toBeGreaterThanOrEqual(1)
    expect(stored).toBeLessThanOrEqual(8)
    expect(pubacks().filter((p) => (p.reasonCode ?? 0) === 0).length).toBe(stored)
    expect(pubacks().filter((p) => p.reasonCode === 0x97).length).toBe(written - stored)
    expect(written).toBeGreaterThanOrEqual(20) // as many as the socket took in 3 s: all 150 on an idle machine
    // What waited for its commit never held more than the few payloads admitted (the bound is 128 MiB).
    expect(maxBuffered).toBeLessThan(8 * 2 * 1024 * 1024)
    expect(await metricValue(stack, 'fleet_device_rate_limited_bytes_total', { protocol: 'MQTT' })).toBeGreaterThanOrEqual(bytesLimited + (written - stored) * payload.length)
    // The probe saw 0.6 → 2.5 GB; refused payloads are dropped as they are read.
    expect(rssMax - rssBefore).toBeLessThan(512 * 1024 * 1024)
    peer.socket.destroy()
  })
})

describe('MQTT 5 topic alias', () => {
  it('a PUBLISH with a topic alias gets DISCONNECT 0x94 (topic alias invalid) and stores nothing', async () => {
    const d = await createDevice(stack)
    const peer = await rawDevice(d, 5)
    peer.socket.write(mqttPacket.generate({
      cmd: 'publish', topic: `${d.serial}/messages/json`, payload: Buffer.from('{"a": 1}'), qos: 1, messageId: 1, retain: false, dup: false, properties: { topicAlias: 1 }
    } as IPublishPacket, { protocolVersion: 5 }))
    expect(await peer.next('disconnect')).toMatchObject({ reasonCode: 0x94 })
    await peer.closed
    expect(peer.packets.some((p) => p.cmd === 'puback')).toBe(false)
    await settle(stack)
    expect(await messagesOf(stack, d.uid)).toEqual([])
  })
})
