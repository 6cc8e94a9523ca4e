// Device limits (docs/security.md#device-limits) with small figures, on each transport: a budget of 4 messages (a burst
// of 4 s at 1 a second), a device closed after 5 refusals, a connection not read past 4 messages waiting for their
// commit, and an ingest buffer of 64 KiB. Over the budget: REST 429 with Retry-After, MQTT 3.1.1 QoS 1 not
// acknowledged and closed, M3DA status 503 then the connection closed; a full buffer: REST 503, MQTT 5 DISCONNECT
// 0x89 (server busy). A refused message is not stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { closed, connectDevice, createDevice, deviceFetch, endAll, eventually, messagesOf, packetsOf, publish, settle } from '../../helpers/devices.js'
import { holdStore } from '../../helpers/hold-store.js'
import { metricValue } from '../../helpers/raw-mqtt.js'
import { httpLink, sendUnsecured, tcpLink } from '../m3da/m3da-device.js'
import { m3daApplication, m3daSystem } from '../m3da/m3da-fixtures.js'

const BURST = 4

let stack: Stack
beforeAll(async () => {
  stack = await startStack({
    listen: true,
    env: {
      DEVICE_RATE_MESSAGES_PER_S: '1',
      DEVICE_RATE_BURST_S: String(BURST),
      DEVICE_RATE_DISCONNECT_AFTER: '5',
      DEVICE_PENDING_MESSAGES: '4',
      INGEST_BUFFER_BYTES: '65536'
    }
  })
})
afterAll(async () => { await stack.close() })

describe('over the device budget', () => {
  it('REST: 429 rate.limit.exceeded with Retry-After, and nothing stored', async () => {
    const d = await createDevice(stack)
    const post = async (i: number): Promise<Awaited<ReturnType<typeof deviceFetch>> & { retryAfter: string | null }> => {
      const res = await fetch(`${stack.httpUrl}/device/messages`, {
        method: 'POST',
        headers: { authorization: 'Basic ' + Buffer.from(`${d.serial}:${d.restPassword ?? ''}`).toString('base64'), 'content-type': 'application/json' },
        body: JSON.stringify({ n: i })
      })
      const text = await res.text()
      return { status: res.status, text, body: text === '' ? undefined : JSON.parse(text), retryAfter: res.headers.get('retry-after') }
    }
    const answers = await Promise.all(Array.from({ length: 8 }, async (_, i) => await post(i)))
    const ok = answers.filter((a) => a.status === 200)
    const limited = answers.filter((a) => a.status === 429)
    expect(ok.length + limited.length).toBe(8)
    expect(limited.length).toBeGreaterThanOrEqual(3)
    for (const a of limited) {
      expect(a.body).toEqual({ error: 'rate.limit.exceeded', errorParameters: [] })
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    await settle(stack)
    expect((await messagesOf(stack, d.uid)).length).toBe(ok.length)
    expect(await metricValue(stack, 'fleet_device_rate_limited_messages_total', { protocol: 'REST' })).toBeGreaterThanOrEqual(limited.length)
  })

  it('MQTT 3.1.1: QoS 0 beyond the budget is dropped with the connection kept; QoS 1 is not acknowledged and the connection closes', async () => {
    const d = await createDevice(stack)
    const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4 })
    const topic = `${d.serial}/messages/json`
    for (let i = 0; i < BURST + 2; i++) await publish(c, topic, JSON.stringify({ n: i }), { qos: 0 })
    expect(await publish(c, topic, '{"n": "last"}', { qos: 1 })).toBe('closed')
    expect(packetsOf(c).some((p) => p.cmd === 'puback')).toBe(false)
    await settle(stack)
    const stored = (await messagesOf(stack, d.uid)).length
    expect(stored).toBeGreaterThanOrEqual(BURST)
    expect(stored).toBeLessThanOrEqual(BURST + 1) // a token back if a second passed meanwhile
    await endAll(c)
  })

  it('MQTT 3.1.1 with a Will: the same, QoS 0 dropped, then QoS 1 closed without PUBACK', async () => {
    const d = await createDevice(stack)
    const topic = `${d.serial}/messages/json`
    const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4, will: { topic, payload: Buffer.from('{"gone": 1}'), qos: 0, retain: false } })
    for (let i = 0; i < BURST + 2; i++) await publish(c, topic, JSON.stringify({ n: i }), { qos: 0 })
    expect(await publish(c, topic, '{"n": "last"}', { qos: 1 })).toBe('closed')
    await settle(stack)
    // The budget's messages, and the Will published for the lost connection (over the budget too: dropped).
    const stored = (await messagesOf(stack, d.uid)).length
    expect(stored).toBeGreaterThanOrEqual(BURST)
    expect(stored).toBeLessThanOrEqual(BURST + 1)
    await endAll(c)
  })

  it('M3DA over TCP: status 503 and nothing stored; after 5 refusals the connection is closed', async () => {
    const app = await m3daApplication(stack, { authentication: 'none' })
    const s = await m3daSystem(stack, { applications: [app] })
    const link = await tcpLink(stack)
    const statuses: Array<number | null> = []
    for (let i = 0; i < 20 && !link.closed(); i++) {
      statuses.push((await sendUnsecured(link, s.serial, [{ kind: 'message', path: 'a', ticketId: null, body: { n: i } }])).status)
    }
    expect(statuses.slice(0, BURST)).toEqual(Array(BURST).fill(200))
    expect(statuses.filter((x) => x === 503).length).toBeGreaterThanOrEqual(5)
    await eventually(async () => link.closed(), 5000, 'the connection closed')
    await settle(stack)
    expect((await messagesOf(stack, s.uid)).length).toBe(statuses.filter((x) => x === 200).length)
    expect(await metricValue(stack, 'fleet_device_rate_disconnects_total', { protocol: 'M3DA' })).toBeGreaterThanOrEqual(1)
    await link.close()
  })
})

describe('M3DA over HTTP', () => {
  it('POST /device/com: the budget is the device\'s across requests; the reply envelope carries status 503', async () => {
    const app = await m3daApplication(stack, { authentication: 'none' })
    const s = await m3daSystem(stack, { applications: [app] })
    const link = httpLink(stack)
    const statuses: Array<number | null> = []
    for (let i = 0; i < BURST + 2; i++) statuses.push((await sendUnsecured(link, s.serial, [{ kind: 'message', path: 'a', ticketId: null, body: { n: i } }])).status)
    expect(statuses.slice(0, BURST)).toEqual(Array(BURST).fill(200))
    expect(statuses.filter((x) => x === 503).length).toBeGreaterThanOrEqual(1)
    await settle(stack)
    expect((await messagesOf(stack, s.uid)).length).toBe(statuses.filter((x) => x === 200).length)
  })
})

describe('messages waiting for their commit', () => {
  it('MQTT 5: the socket is no longer read past DEVICE_PENDING_MESSAGES; every message is acknowledged once the store takes them', async () => {
    const d = await createDevice(stack)
    const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 5 })
    const paused = await metricValue(stack, 'fleet_device_sockets_paused_total', { protocol: 'MQTT' })
    const hold = await holdStore(stack)
    let acks: Array<Promise<number | 'closed'>> = []
    try {
      acks = Array.from({ length: BURST }, async (_, i) => await publish(c, `${d.serial}/messages/json`, JSON.stringify({ n: i })))
      await eventually(async () => stack.ctx.services.ingest.pending() >= BURST, 5000, 'the messages waiting')
    } finally {
      await hold.release() // before any scrape: /metrics reads the store too
    }
    expect(await metricValue(stack, 'fleet_device_sockets_paused_total', { protocol: 'MQTT' })).toBe(paused + 1)
    expect(await Promise.all(acks)).toEqual(Array(BURST).fill(0))
    expect((await messagesOf(stack, d.uid)).length).toBe(BURST)
    await endAll(c)
  })

  it('a full ingest buffer refuses at once: REST 503 with Retry-After, MQTT 5 DISCONNECT 0x89; nothing of them stored', async () => {
    const [big, rest, mqtt5] = [await createDevice(stack), await createDevice(stack), await createDevice(stack)]
    const c = await connectDevice(stack.mqttUrl, mqtt5.serial, mqtt5.mqttPassword ?? '', { version: 5 })
    // A first request each, so that the logins are cached and the held store only stops the writes.
    await deviceFetch(stack, 'GET', '/device/tasks', { user: rest.serial, password: rest.restPassword ?? '' })
    await deviceFetch(stack, 'GET', '/device/tasks', { user: big.serial, password: big.restPassword ?? '' })
    const hold = await holdStore(stack)
    let first: Promise<{ status: number }> | undefined
    try {
      // About 80 KB in memory (two bytes a character), more than the 64 KiB bound: taken, as the buffer was empty.
      first = deviceFetch(stack, 'POST', '/device/messages', { user: big.serial, password: big.restPassword ?? '', body: JSON.stringify({ blob: 'x'.repeat(40_000) }) })
      await eventually(async () => stack.ctx.services.ingest.pendingBytes() > 65_536, 5000, 'the buffer full')
      const res = await fetch(`${stack.httpUrl}/device/messages`, {
        method: 'POST',
        headers: { authorization: 'Basic ' + Buffer.from(`${rest.serial}:${rest.restPassword ?? ''}`).toString('base64'), 'content-type': 'application/json' },
        body: '{"a": 1}'
      })
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('1')
      expect(await res.json()).toEqual({ error: 'service.unavailable', errorParameters: [] })
      expect(await publish(c, `${mqtt5.serial}/messages/json`, '{"a": 1}')).toBe('closed')
      expect(packetsOf(c).find((p) => p.cmd === 'disconnect')).toMatchObject({ reasonCode: 0x89 })
      expect(await closed(c)).toBe(true)
    } finally {
      await hold.release()
    }
    expect((await first).status).toBe(200)
    await settle(stack)
    expect((await messagesOf(stack, big.uid)).length).toBe(1)
    expect(await messagesOf(stack, rest.uid)).toEqual([])
    expect(await messagesOf(stack, mqtt5.uid)).toEqual([])
    expect(stack.ctx.services.ingest.pendingBytes()).toBe(0)
    expect(await metricValue(stack, 'fleet_ingest_buffer_bytes')).toBe(0)
    expect(await metricValue(stack, 'fleet_ingest_messages_refused_total', { protocol: 'REST', reason: 'ingest.buffer.full' })).toBe(1)
    await endAll(c)
  })
})
