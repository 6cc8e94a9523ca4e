// Reliability and fairness (RFC 7252 §4.2, §4.5, §4.7, §4.8): CON retransmission with exponential back-off (fake
// timers), give-up after MAX_RETRANSMIT, duplicate detection answering with the cached reply, NSTART queueing, and the
// per-peer limits that keep one peer from starving the others.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  CoapCode, MessageType, coapRequest, derivedTimes, DEFAULT_PARAMS, encodeMessage, type CoapMessage
} from '../../../protocols/coap/index.js'
import { pair, settle, type Pair } from './pair.js'

let p: Pair
beforeEach(() => { vi.useFakeTimers() })
afterEach(() => { p?.close(); vi.useRealTimers() })

const sentAt = (p: Pair, from: 'A' | 'B'): number[] => {
  const t0 = p.wire[0]?.at ?? 0
  return p.wire.filter((d) => d.from === from).map((d) => d.at - t0)
}

describe('retransmission (§4.2)', () => {
  it('the derived times of §4.8.2 with the default parameters', () => {
    expect(derivedTimes(DEFAULT_PARAMS)).toEqual({ maxTransmitSpanMs: 45_000, maxTransmitWaitMs: 93_000, exchangeLifetimeMs: 247_000, nonLifetimeMs: 145_000 })
  })

  it('a lost CON is sent again after ACK_TIMEOUT, then after twice as long, with the same id', async () => {
    p = pair({}, { handler: () => ({ code: CoapCode.Content }) })
    let lost = 2
    p.drop((d) => d.from === 'A' && lost-- > 0)
    const res = p.a.request('B', coapRequest('GET', '/'))
    await vi.advanceTimersByTimeAsync(6_000)
    expect((await res).code).toBe(CoapCode.Content)
    expect(sentAt(p, 'A')).toEqual([0, 2000, 6000]) // random() = 0: the first timeout is exactly ACK_TIMEOUT
    expect(new Set(p.wire.filter((d) => d.from === 'A').map((d) => d.msg?.messageId)).size).toBe(1)
    expect(p.a.counters.retransmissions).toBe(2)
  })

  it('RANDOM_FACTOR widens the first timeout up to ACK_TIMEOUT × 1.5', async () => {
    p = pair({ random: () => 1 })
    p.drop(() => true)
    p.a.request('B', coapRequest('GET', '/')).catch(() => {})
    await vi.advanceTimersByTimeAsync(10_000)
    expect(sentAt(p, 'A')).toEqual([0, 3000, 9000])
  })

  it('gives up after MAX_RETRANSMIT (4) retransmissions and the last timeout: coap.timeout at 62 s', async () => {
    p = pair()
    p.drop(() => true)
    const res = p.a.request('B', coapRequest('GET', '/'))
    const failed = res.catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(61_999)
    expect(sentAt(p, 'A')).toEqual([0, 2000, 6000, 14_000, 30_000])
    await vi.advanceTimersByTimeAsync(1)
    expect(await failed).toMatchObject({ code: 'coap.timeout' })
    expect(p.a.counters.timeouts).toBe(1)
    expect(p.a.gauges()).toMatchObject({ unacknowledged: 0, pendingRequests: 0 })
  })

  it('the parameters are configurable (tests, constrained links)', async () => {
    p = pair({ params: { ackTimeoutMs: 100, maxRetransmit: 1 } })
    p.drop(() => true)
    const failed = p.a.request('B', coapRequest('GET', '/')).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(300)
    expect(await failed).toMatchObject({ code: 'coap.timeout' })
    expect(sentAt(p, 'A')).toEqual([0, 100])
  })
})

describe('duplicates (§4.5)', () => {
  it('a lost ACK: the retransmitted CON gets the same cached ACK, the handler runs once', async () => {
    const handler = vi.fn(() => ({ code: CoapCode.Content, payload: 'once' }))
    p = pair({}, { handler })
    let lost = 1
    p.drop((d) => d.from === 'B' && lost-- > 0)
    const res = p.a.request('B', coapRequest('GET', '/'))
    await vi.advanceTimersByTimeAsync(2000)
    expect((await res).payload.toString()).toBe('once')
    expect(handler).toHaveBeenCalledTimes(1)
    expect(p.trace()).toEqual(['A CON 0.01', 'x B ACK 2.05', 'A CON 0.01', 'B ACK 2.05'])
    expect(p.wire[3]?.buf).toEqual(p.wire[1]?.buf)
    expect(p.b.counters.duplicates).toBe(1)
  })

  it('a duplicate of a request still being handled is ACKed at once; the response follows separately', async () => {
    let answer: () => void = () => {}
    p = pair({}, { handler: async () => { await new Promise<void>((resolve) => { answer = resolve }); return { code: CoapCode.Changed } }, limits: { separateAfterMs: 60_000 } })
    const res = p.a.request('B', coapRequest('POST', '/'))
    await settle()
    const first = p.wire[0] as { buf: Buffer }
    p.b.receive('A', first.buf)
    await settle()
    expect(p.trace()).toEqual(['A CON 0.02', 'B ACK 0.00'])
    answer()
    expect((await res).code).toBe(CoapCode.Changed)
  })

  it('a duplicate NON is dropped; ids are remembered per peer', async () => {
    const handler = vi.fn(() => ({ code: CoapCode.Content }))
    p = pair({}, { handler })
    const non = encodeMessage({ type: MessageType.NON, code: CoapCode.GET, messageId: 42, token: Buffer.from([1]), options: [], payload: Buffer.alloc(0) })
    p.b.receive('A', non)
    p.b.receive('A', non)
    p.b.receive('C', non)
    await settle()
    expect(handler).toHaveBeenCalledTimes(2)
    expect(p.b.counters.duplicates).toBe(1)
  })

  it('a duplicate CON notification is ACKed again without being delivered twice', async () => {
    p = pair()
    const notification: Partial<CoapMessage> = { type: MessageType.CON, code: CoapCode.Content, messageId: 9, token: Buffer.from([7]) }
    const buf = encodeMessage({ options: [], payload: Buffer.alloc(0), ...notification } as CoapMessage)
    p.a.receive('B', buf)
    p.a.receive('B', buf)
    await settle()
    expect(p.trace()).toEqual(['A RST 0.00', 'A RST 0.00']) // not ours: rejected, and the same RST again
    expect(p.a.counters.unmatched).toBe(1)
  })
})

describe('NSTART and per-peer limits (§4.7)', () => {
  it('one request at a time per peer, in order; other peers are not held up', async () => {
    const order: string[] = []
    p = pair({}, { handler: (req) => { order.push(req.payload.toString()); return { code: CoapCode.Changed } } })
    let lost = 1
    p.drop((d) => d.peer === 'C' || (d.from === 'A' && lost-- > 0))
    const all = ['1', '2', '3'].map(async (n) => await p.a.request('B', coapRequest('POST', '/', { payload: n })))
    const other = p.a.request('C', coapRequest('GET', '/'), { timeoutMs: 10 }).catch(() => 'elsewhere')
    await settle()
    expect(p.wire.map((d) => `${d.peer} ${d.msg?.payload.toString() ?? ''}`)).toEqual(['B 1', 'C ']) // 2 and 3 wait behind the lost 1
    await vi.advanceTimersByTimeAsync(2000)
    await Promise.all(all)
    expect(order).toEqual(['1', '2', '3'])
    expect(await other).toBe('elsewhere')
  })

  it('past maxPendingPerPeer a request fails at once with coap.peer.busy', async () => {
    p = pair({ limits: { maxPendingPerPeer: 2 } })
    p.drop(() => true)
    const held = [p.a.request('B', coapRequest('GET', '/')), p.a.request('B', coapRequest('GET', '/'))].map(async (r) => await r.catch(() => 'x'))
    await expect(p.a.request('B', coapRequest('GET', '/'))).rejects.toMatchObject({ code: 'coap.peer.busy' })
    p.a.close()
    expect(await Promise.all(held)).toEqual(['x', 'x'])
  })

  it('past maxIncomingPerPeer running handlers, a peer gets 5.03; another peer is still served', async () => {
    const gates: Array<() => void> = []
    p = pair({}, { handler: async () => { await new Promise<void>((resolve) => gates.push(resolve)); return { code: CoapCode.Content } }, limits: { maxIncomingPerPeer: 1 } })
    const first = p.a.request('B', coapRequest('GET', '/1'))
    await settle()
    const req = (n: number): Buffer => encodeMessage({ type: MessageType.CON, code: CoapCode.GET, messageId: n, token: Buffer.from([n]), options: [], payload: Buffer.alloc(0) })
    p.b.receive('A', req(500))
    p.b.receive('C', req(501))
    await settle()
    expect(p.wire.filter((d) => d.from === 'B').map((d) => d.msg?.code)).toEqual([CoapCode.ServiceUnavailable])
    expect(gates.length).toBe(2)
    gates.forEach((g) => { g() })
    expect((await first).code).toBe(CoapCode.Content)
    expect(p.b.counters.refused['coap.peer.busy']).toBe(1)
  })

  it('the dedup memory is bounded per peer and in peers; its oldest entries go first', async () => {
    p = pair({}, { handler: () => ({ code: CoapCode.Content }), limits: { maxDedupPerPeer: 2, maxPeers: 3 } })
    const req = (n: number): Buffer => encodeMessage({ type: MessageType.NON, code: CoapCode.GET, messageId: n, token: Buffer.alloc(0), options: [], payload: Buffer.alloc(0) })
    for (const n of [1, 2, 3]) p.b.receive('A', req(n))
    p.b.receive('A', req(1)) // forgotten (only 2 kept): handled again
    p.b.receive('A', req(3)) // remembered
    for (const peer of ['C', 'D', 'E', 'F']) p.b.receive(peer, req(1))
    await settle()
    expect(p.b.counters.duplicates).toBe(1)
    expect(p.b.gauges().peersRemembered).toBe(3)
  })
})
