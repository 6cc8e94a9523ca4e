// Property-based tests (fast-check): the decoder never throws on any bytes; valid messages survive encode → decode;
// any datagram the decoder accepts re-encodes to the very same bytes; an endpoint fed random datagrams from several
// peers (random bytes, and well-formed messages with random fields, tokens, ids and block options) never throws, never
// hits an internal error, and keeps its state within its limits.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CoapCode, CoapEndpoint, MessageType, OptionNumber, coapRequest, decodeMessage, encodeMessage, uriPathOf, withOption,
  type CoapMessage, type CoapOption
} from '../../../protocols/coap/index.js'
import { settle } from './pair.js'

const KNOWN = Object.values(OptionNumber)
const bytes = (max: number): fc.Arbitrary<Buffer> => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a))
const boundaryValue = fc.constantFrom(12, 13, 14, 268, 269, 270, 1034).map((n) => Buffer.alloc(n, 0x61))

const option: fc.Arbitrary<CoapOption> = fc.record({
  number: fc.oneof(fc.constantFrom(...KNOWN), fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(12, 13, 268, 269, 270, 65535)),
  value: fc.oneof({ weight: 4, arbitrary: bytes(12) }, { weight: 1, arbitrary: boundaryValue })
})

/** Any message the codec must be able to carry (an Empty one is the bare header, §4.1). */
const message: fc.Arbitrary<CoapMessage> = fc.oneof(
  fc.record({
    type: fc.constantFrom(MessageType.CON, MessageType.NON, MessageType.ACK, MessageType.RST),
    code: fc.integer({ min: 1, max: 255 }),
    messageId: fc.integer({ min: 0, max: 0xffff }),
    token: bytes(8),
    options: fc.array(option, { maxLength: 6 }),
    payload: bytes(300)
  }),
  fc.record({
    type: fc.constantFrom(MessageType.CON, MessageType.ACK, MessageType.RST),
    code: fc.constant(0),
    messageId: fc.integer({ min: 0, max: 0xffff }),
    token: fc.constant(Buffer.alloc(0)),
    options: fc.constant<CoapOption[]>([]),
    payload: fc.constant(Buffer.alloc(0))
  })
)

const sorted = (m: CoapMessage): CoapMessage => ({ ...m, options: [...m.options].sort((a, b) => a.number - b.number) })

describe('decodeMessage', () => {
  it('never throws, whatever the bytes, and says why it refuses', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (a) => {
      const r = decodeMessage(a)
      if (!r.ok) expect(r.reason).toMatch(/^coap\./)
    }), { numRuns: 5000 })
  })

  it('never throws on valid messages truncated or with bytes changed', () => {
    fc.assert(fc.property(message, fc.nat(), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), (m, cut, flips) => {
      const buf = encodeMessage(m)
      for (const [at, v] of flips) buf[at % buf.length] = v
      decodeMessage(buf.subarray(0, cut % (buf.length + 1)))
      decodeMessage(buf)
    }), { numRuns: 3000 })
  })

  it('valid messages round-trip (options in number order, repeated ones in their order)', () => {
    fc.assert(fc.property(message, (m) => {
      const r = decodeMessage(encodeMessage(m))
      expect(r).toEqual({ ok: true, message: sorted(m) })
    }), { numRuns: 3000 })
  })

  it('whatever it accepts re-encodes to the same bytes (the encoding is canonical)', () => {
    const tails = fc.tuple(fc.constantFrom(0x40, 0x51, 0x62, 0x48, 0x60), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 60 }))
    fc.assert(fc.property(tails, ([b0, code, rest]) => {
      const buf = Buffer.concat([Buffer.from([b0, code, 0x12, 0x34]), rest])
      const r = decodeMessage(buf)
      if (r.ok) expect(encodeMessage(r.message)).toEqual(buf)
    }), { numRuns: 5000 })
  })
})

describe('CoapEndpoint fed random datagrams', () => {
  const peers = ['10.0.0.1:5683', '10.0.0.2:5683', '[::1]:5683']
  const tokens = [Buffer.alloc(0), Buffer.from([1]), Buffer.from('0102030405060708', 'hex')]
  const blockValue = fc.integer({ min: 0, max: 0xffffff }).map((v) => Buffer.from([v >> 16, (v >> 8) & 255, v & 255]).subarray(v < 256 ? 2 : v < 65536 ? 1 : 0))
  const tricky: fc.Arbitrary<CoapOption> = fc.oneof(
    fc.record({ number: fc.constantFrom(OptionNumber.Block1, OptionNumber.Block2, OptionNumber.Observe, OptionNumber.Size1, OptionNumber.Size2), value: blockValue }),
    fc.record({ number: fc.constant(OptionNumber.UriPath), value: fc.constantFrom('big', 'obs', 'x').map((s) => Buffer.from(s)) }),
    option
  )
  const plausible: fc.Arbitrary<CoapMessage> = fc.record({
    type: fc.constantFrom(MessageType.CON, MessageType.NON, MessageType.ACK, MessageType.RST),
    code: fc.constantFrom(0, CoapCode.GET, CoapCode.POST, CoapCode.PUT, CoapCode.FETCH, CoapCode.Content, CoapCode.Continue, CoapCode.Changed, CoapCode.NotFound, 0x21, 0xe0),
    messageId: fc.integer({ min: 0, max: 8 }),
    token: fc.constantFrom(...tokens),
    options: fc.array(tricky, { maxLength: 4 }),
    payload: fc.oneof(bytes(40), fc.constant(Buffer.alloc(16)), fc.constant(Buffer.alloc(1024)))
  })
  const datagram = fc.oneof(
    fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
    plausible.map((m) => (m.code === 0 ? encodeMessage({ ...m, token: Buffer.alloc(0), options: [], payload: Buffer.alloc(0) }) : encodeMessage(m)))
  )

  it('never throws, never fails inside, and stays within its limits', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...peers), datagram), { maxLength: 40 }), async (input) => {
      const sent: Buffer[] = []
      const limits = { maxDedupPerPeer: 4, maxTransfersPerPeer: 1, maxBodySize: 4096, maxObserversPerPeer: 1, maxPendingPerPeer: 2 }
      const e = new CoapEndpoint({
        send: (_peer, buf) => { sent.push(buf) },
        limits,
        randomBytes: (n) => Buffer.alloc(n, 1), // the tokens the datagrams use, so responses match our requests
        handler: (req) => {
          const path = uriPathOf(req)
          if (path === '/big') return { code: CoapCode.Content, payload: Buffer.alloc(3000, 7) }
          if (path === '/obs') return { code: CoapCode.Content, options: withOption([], OptionNumber.Observe, 0) }
          if (path === '/x') throw new Error('handler bug')
          return { code: CoapCode.Changed, payload: req.payload.subarray(0, 10) }
        }
      })
      const outcomes = [
        e.request(peers[0] as string, coapRequest('GET', '/big')).catch(() => undefined),
        e.observe(peers[1] as string, coapRequest('GET', '/obs'), { onNotification: () => {} }).catch(() => undefined)
      ]
      for (const [peer, d] of input) e.receive(peer, d)
      await settle(50)
      for (const [peer, d] of input) e.receive(peer, d)
      await settle(50)
      expect(e.counters.internalErrors).toBe(0)
      const g = e.gauges()
      expect(g.observers).toBeLessThanOrEqual(peers.length * limits.maxObserversPerPeer)
      expect(g.transferBytes).toBeLessThanOrEqual(peers.length * limits.maxBodySize)
      expect(sent.every((b) => decodeMessage(b).ok)).toBe(true) // everything we send is well-formed
      e.close()
      await Promise.all(outcomes)
    }), { numRuns: 300 })
  })
})
