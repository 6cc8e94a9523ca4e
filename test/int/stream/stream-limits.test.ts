// GET /api/v1/stream: what a client cannot do to the service. A client that does not read is closed with
// a code and a reason once STREAM_MAX_BUFFER_BYTES wait for it (never buffered without bound); bad messages of any
// kind are answered with the API's error codes and the stream, the process and its other streams go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Socket } from 'node:net'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, deviceFetch } from '../../helpers/devices.js'
import { openStream, type Json } from '../../helpers/stream.js'
import { eventually } from '../../helpers/eventually.js'

const BOUND = 256 * 1024

let stack: Stack
// The slow client is made by one device posting large messages as fast as it can: faster than a device's budget
// allows (docs/security.md#device-limits), which is not what this file is about.
const NO_DEVICE_RATE = { DEVICE_RATE_MESSAGES_PER_S: '0', DEVICE_RATE_BYTES_PER_S: '0' }
beforeAll(async () => { stack = await startStack({ listen: true, env: { STREAM_MAX_BUFFER_BYTES: String(BOUND), ...NO_DEVICE_RATE } }) }, 180_000)
afterAll(async () => { await stack.close() })

describe('a slow client', () => {
  it('is closed with 4008 and its reason once more than STREAM_MAX_BUFFER_BYTES wait; the others go on', async () => {
    const d = await createDevice(stack)
    const slow = await openStream(stack, stack.adminToken)
    const fine = await openStream(stack, stack.adminToken)
    for (const c of [slow, fine]) expect(await c.ask({ action: 'subscribe', systems: { uids: [d.uid] } })).toMatchObject({ event: 'subscribed' })
    const open = stack.ctx.services.stream.streams()
    // The slow client stops reading: the kernel's buffers fill (some MB on loopback), then the service's.
    const socket = (slow.ws as unknown as { _socket: Socket })._socket
    socket.pause()
    const big = 'x'.repeat(200_000)
    let sent = 0
    while (stack.ctx.services.stream.streams() === open) {
      if (sent > 400) throw new Error('the slow client was never closed')
      const res = await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: JSON.stringify({ blob: big, n: sent }) })
      expect(res.status).toBe(200)
      sent++
    }
    // The others still receive; the slow one gets its reason behind what was already queued for it.
    const last = sent - 1
    await fine.take((m) => m.event === 'points' && m.dataId === 'n' && m.v === last, 30_000)
    socket.resume()
    const { code, reason } = await slow.closed
    expect(code).toBe(4008)
    expect(reason).toBe(`slow client: more than ${BOUND} bytes waiting to be sent`)
    // What it received before the close is a prefix of what was committed, with nothing after the bound was passed.
    const ns = slow.received.filter((m) => m.dataId === 'n').map((m) => m.v as number)
    expect(ns).toEqual(ns.map((_, i) => i))
    expect(ns.length).toBeLessThan(sent)
    const metrics = await stack.api.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toMatch(/^fleet_stream_closed_total\{reason="slow_client"\} 1$/m)
    expect(metrics.body).toMatch(/^fleet_stream_connections 1$/m)
    await fine.close()
  }, 120_000)
})

describe('bad client messages', () => {
  it('are answered with the API\'s codes; the stream stays open and serves (fuzz)', async () => {
    const c = await openStream(stack, stack.adminToken)
    const texts = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ action: fc.constantFrom('subscribe', 'unsubscribe', 'x'), ref: fc.string({ maxLength: 8 }), systems: fc.jsonValue({ maxDepth: 3 }), operations: fc.jsonValue({ maxDepth: 2 }), subscription: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['action'] }).map((v) => JSON.stringify(v))
    )
    const samples = fc.sample(texts, { numRuns: 300, seed: 15 })
    // All at once: each is answered once; those beyond the commands a stream may have waiting are refused at once.
    for (const t of samples) c.ws.send(t)
    const answered = (): Json[] => c.received.filter((m) => m.event === 'error' || m.event === 'subscribed' || m.event === 'unsubscribed')
    await eventually(() => answered().length >= samples.length, { timeoutMs: 60_000, what: 'every message answered', seen: () => `${answered().length} of ${samples.length}` })
    const answers = answered()
    expect(answers).toHaveLength(samples.length)
    expect(answers.filter((m) => m.event === 'error' && !/^[a-z_.]+$/.test(m.error as string))).toEqual([])
    expect(answers.filter((m) => m.error === 'internal.error')).toEqual([])
    expect(answers.filter((m) => m.error === 'rate.limit.exceeded').length).toBeGreaterThan(0)
    // One by one, each with its own code.
    c.ws.send(Buffer.from([0, 1, 2, 0xff]), { binary: true })
    expect(await c.take((m) => m.event === 'error' && m.errorParameters?.[1] === 'must be a JSON text message')).toMatchObject({ error: 'request.invalid', ref: null })
    c.ws.send('{"action":"subscribe","ref":"big","systems":{"label":"' + 'a'.repeat(70_000) + '"}}')
    expect(await c.take((m) => m.ref === 'big')).toMatchObject({ event: 'error', error: 'payload.too.large' })
    expect(await c.ask({ action: 'subscribe', systems: { label: 'a\u0000b' } })).toMatchObject({ event: 'error', error: 'request.invalid' })
    expect(await c.ask({ action: 'subscribe', systems: { criteria: {} } })).toMatchObject({ event: 'subscribed' })
    await c.close()
  }, 120_000)

  it('a frame above the WebSocket limit closes that stream only (1009); the service answers', async () => {
    const c = await openStream(stack, stack.adminToken)
    c.ws.send('x'.repeat(2 * 1024 * 1024 + 1))
    expect((await c.closed).code).toBe(1009)
    expect((await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(200)
    const again = await openStream(stack, stack.adminToken)
    expect(await again.ask({ action: 'subscribe', operations: { all: true } })).toMatchObject({ event: 'subscribed' })
    await again.close()
  })
})
