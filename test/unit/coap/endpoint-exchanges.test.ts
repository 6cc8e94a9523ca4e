// The endpoint's exchanges (RFC 7252 §4, §5): piggybacked and separate responses, NON, matching by token and peer,
// what it rejects (unknown responses, bad options, malformed datagrams), ping; two endpoints back to back in memory.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  CoapCode, CoapError, MessageType, OptionNumber, coapRequest, encodeMessage, uriPathOf, type CoapMessage, type RequestHandler
} from '../../../protocols/coap/index.js'
import { pair, settle, type Pair } from './pair.js'

const EMPTY = Buffer.alloc(0)
const echoPath: RequestHandler = (req) => ({ code: CoapCode.Content, payload: `at ${uriPathOf(req)}` })
const raw = (m: Partial<CoapMessage>): Buffer =>
  encodeMessage({ type: MessageType.CON, code: CoapCode.GET, messageId: 1, token: EMPTY, options: [], payload: EMPTY, ...m })

let p: Pair
afterEach(() => { p.close(); vi.useRealTimers() })

describe('requests and responses', () => {
  it('a CON request is answered in the ACK (piggybacked), same id and token', async () => {
    p = pair({}, { handler: echoPath })
    const res = await p.a.request('B', coapRequest('GET', '/3/0/1'))
    expect(res).toMatchObject({ type: MessageType.ACK, code: CoapCode.Content })
    expect(res.payload.toString()).toBe('at /3/0/1')
    expect(p.trace()).toEqual(['A CON 0.01', 'B ACK 2.05'])
    const [req, ack] = p.wire.map((d) => d.msg)
    expect(ack?.messageId).toBe(req?.messageId)
    expect(ack?.token).toEqual(req?.token)
    expect(req?.token.length).toBe(8)
  })

  it('a NON request gets a NON response with its token and a message id of its own', async () => {
    p = pair({}, { handler: echoPath })
    const res = await p.a.request('B', coapRequest('GET', '/x', { confirmable: false }))
    expect(res.type).toBe(MessageType.NON)
    expect(p.trace()).toEqual(['A NON 0.01', 'B NON 2.05'])
  })

  it('both ends are client and server at once over the same link', async () => {
    p = pair({ handler: () => ({ code: CoapCode.Changed, payload: 'A answers' }) }, { handler: echoPath })
    const [fromB, fromA] = await Promise.all([p.a.request('B', coapRequest('GET', '/b')), p.b.request('A', coapRequest('POST', '/rd'))])
    expect(fromB.payload.toString()).toBe('at /b')
    expect(fromA.payload.toString()).toBe('A answers')
  })

  it('a slow handler: empty ACK after separateAfterMs, then the response as a CON of its own, ACKed (§5.2.2)', async () => {
    vi.useFakeTimers()
    let answer: (v: { code: number, payload: string }) => void = () => {}
    p = pair({}, { handler: async () => await new Promise((resolve) => { answer = resolve }), limits: { separateAfterMs: 500 } })
    const res = p.a.request('B', coapRequest('GET', '/slow'))
    await vi.advanceTimersByTimeAsync(600)
    expect(p.trace()).toEqual(['A CON 0.01', 'B ACK 0.00'])
    answer({ code: CoapCode.Content, payload: 'late' })
    expect((await res).payload.toString()).toBe('late')
    await settle()
    expect(p.trace()).toEqual(['A CON 0.01', 'B ACK 0.00', 'B CON 2.05', 'A ACK 0.00'])
    const separate = p.wire[2]?.msg
    expect(separate?.token).toEqual(p.wire[0]?.msg?.token)
    expect(p.wire[3]?.msg?.messageId).toBe(separate?.messageId)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(p.b.counters.retransmissions).toBe(0) // the separate response was ACKed
  })

  it('a handler that throws is answered 5.00; without a handler, 4.04', async () => {
    p = pair({}, { handler: () => { throw new Error('boom') } })
    expect((await p.a.request('B', coapRequest('GET', '/'))).code).toBe(CoapCode.InternalServerError)
    expect(p.b.counters.callbackErrors).toBe(1)
    expect((await p.b.request('A', coapRequest('GET', '/'))).code).toBe(CoapCode.NotFound)
  })
})

describe('matching responses (§5.3.2)', () => {
  it('a response with a token we never sent is rejected with a RST (§4.3)', async () => {
    p = pair()
    p.a.receive('B', raw({ type: MessageType.CON, code: CoapCode.Content, messageId: 77, token: Buffer.from('feed', 'hex') }))
    await settle()
    expect(p.trace()).toEqual(['A RST 0.00'])
    expect(p.wire[0]?.msg?.messageId).toBe(77)
    expect(p.a.counters.unmatched).toBe(1)
  })

  it('the same token from another peer does not match', async () => {
    vi.useFakeTimers()
    p = pair()
    p.drop((d) => d.from === 'A')
    const res = p.a.request('B', coapRequest('GET', '/'), { timeoutMs: 1000 })
    const err = res.catch((e: unknown) => e)
    await settle()
    const token = p.wire[0]?.msg?.token as Buffer
    p.a.receive('C', raw({ type: MessageType.NON, code: CoapCode.Content, messageId: 5, token }))
    await vi.advanceTimersByTimeAsync(1000)
    expect(await err).toMatchObject({ code: 'coap.timeout' })
    expect(p.a.counters.unmatched).toBe(1)
  })

  it('a separate response that comes before the (lost) empty ACK ends the retransmissions', async () => {
    vi.useFakeTimers()
    p = pair()
    p.drop(() => true)
    const res = p.a.request('B', coapRequest('GET', '/'))
    await settle()
    const req = p.wire[0]?.msg as CoapMessage
    p.a.receive('B', raw({ type: MessageType.CON, code: CoapCode.Content, messageId: 900, token: req.token, payload: Buffer.from('ok') }))
    expect((await res).payload.toString()).toBe('ok')
    await vi.advanceTimersByTimeAsync(100_000)
    expect(p.a.counters.retransmissions).toBe(0)
    expect(p.trace()).toEqual(['x A CON 0.01', 'x A ACK 0.00'])
  })

  it('a RST to our CON fails the request with coap.reset', async () => {
    p = pair()
    p.drop((d) => d.from === 'B')
    const res = p.a.request('B', coapRequest('GET', '/'))
    await settle()
    p.a.receive('B', raw({ type: MessageType.RST, code: 0, messageId: p.wire[0]?.msg?.messageId }))
    await expect(res).rejects.toMatchObject({ code: 'coap.reset' })
    expect(p.a.counters.resetsReceived).toBe(1)
  })
})

describe('what a server refuses', () => {
  it('an unknown critical option: 4.02 in a CON, a RST to a NON (§5.4.1); an unknown elective one is ignored', async () => {
    const handler = vi.fn(echoPath)
    p = pair({}, { handler })
    const bad = [{ number: 9, value: EMPTY }]
    expect((await p.a.request('B', { code: CoapCode.GET, options: bad })).code).toBe(CoapCode.BadOption)
    await expect(p.a.request('B', { code: CoapCode.GET, options: bad, confirmable: false }, { timeoutMs: 50 })).rejects.toBeInstanceOf(CoapError)
    expect(p.trace().slice(2)).toEqual(['A NON 0.01', 'B RST 0.00'])
    expect(handler).not.toHaveBeenCalled()
    expect((await p.a.request('B', { code: CoapCode.GET, options: [{ number: 1000, value: EMPTY }] })).code).toBe(CoapCode.Content)
    expect(p.b.counters.refused['coap.bad.option']).toBe(2)
  })

  it('a Proxy-Uri is 5.05; a Block option with SZX 7 is 4.00', async () => {
    p = pair({}, { handler: echoPath })
    expect((await p.a.request('B', { code: CoapCode.GET, options: [{ number: OptionNumber.ProxyUri, value: Buffer.from('coap://x/') }] })).code).toBe(CoapCode.ProxyingNotSupported)
    expect((await p.a.request('B', { code: CoapCode.GET, options: [{ number: OptionNumber.Block2, value: Buffer.from([7]) }] })).code).toBe(CoapCode.BadRequest)
  })

  it('a malformed CON is answered with a RST of its id; a malformed NON, ACK or RST is dropped (§4.2, §4.3)', async () => {
    p = pair()
    p.b.receive('A', Buffer.from('40011234ff', 'hex')) // payload marker without payload
    p.b.receive('A', Buffer.from('50011235ff', 'hex'))
    p.b.receive('A', Buffer.from('70011236', 'hex')) // a RST carrying a request code
    p.b.receive('A', Buffer.from('6001', 'hex'))
    await settle()
    expect(p.trace()).toEqual(['B RST 0.00'])
    expect(p.wire[0]?.msg?.messageId).toBe(0x1234)
    expect(p.b.counters.malformed).toBe(4)
  })

  it('a reserved code class in a CON is rejected with a RST', async () => {
    p = pair()
    p.b.receive('A', raw({ code: 0xe1, messageId: 3 }))
    await settle()
    expect(p.trace()).toEqual(['B RST 0.00'])
  })
})

describe('ping (§4.3)', () => {
  it('an empty CON is answered by a RST: ping() is true', async () => {
    p = pair()
    expect(await p.a.ping('B')).toBe(true)
    expect(p.trace()).toEqual(['A CON 0.00', 'B RST 0.00'])
  })
  it('a silent peer: false after MAX_RETRANSMIT', async () => {
    vi.useFakeTimers()
    p = pair({ params: { ackTimeoutMs: 100 } })
    p.drop(() => true)
    const alive = p.a.ping('B')
    await vi.advanceTimersByTimeAsync(100 * 31)
    expect(await alive).toBe(false)
    expect(p.wire.length).toBe(5)
  })
})

describe('close', () => {
  it('fails what is pending with coap.closed and ignores input afterwards', async () => {
    p = pair()
    p.drop(() => true)
    const res = p.a.request('B', coapRequest('GET', '/'))
    p.a.close()
    await expect(res).rejects.toMatchObject({ code: 'coap.closed' })
    await expect(p.a.request('B', coapRequest('GET', '/'))).rejects.toMatchObject({ code: 'coap.closed' })
    p.a.receive('B', raw({}))
    expect(p.a.counters.received).toBe(0)
  })

  it('settles a ping in flight (false) rather than leaving it waiting', async () => {
    p = pair()
    p.drop(() => true)
    const alive = p.a.ping('B')
    p.a.close()
    expect(await alive).toBe(false)
  })
})

describe('forgetPeer (a DTLS session ended: §9.1 scopes ids and tokens to it)', () => {
  it('fails what is pending or queued for that peer only, and forgets its message ids', async () => {
    vi.useFakeTimers()
    p = pair({}, { handler: echoPath })
    p.drop((d) => d.peer === 'B')
    const pending = [p.a.request('B', coapRequest('GET', '/1')), p.a.request('B', coapRequest('GET', '/2'))].map(async (r) => await r.catch((e: { code: string }) => e.code))
    const other = p.a.request('C', coapRequest('GET', '/c'))
    await settle()
    p.a.forgetPeer('B')
    expect(await Promise.all(pending)).toEqual(['coap.peer.gone', 'coap.peer.gone'])
    expect((await other).payload.toString()).toBe('at /c')
    expect(p.a.gauges()).toMatchObject({ unacknowledged: 0, pendingRequests: 0 })
    await vi.advanceTimersByTimeAsync(100_000)
    expect(p.wire.filter((d) => d.peer === 'B').length).toBe(1) // no retransmission after forgetting
  })
})

beforeEach(() => { vi.useRealTimers() })
