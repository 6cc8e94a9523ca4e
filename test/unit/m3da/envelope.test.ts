// protocols/m3da: what real agents send (docs/protocols/m3da.md), envelope
// streams over TCP (§2.6), Messages and Responses round trip, and decoders that never throw on any input.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bysantObject, Ctx, encode, typedMap, unsizedMap } from '../../../protocols/bysant/index.js'
import {
  decodeEnvelope, decodePayload, encodeEnvelope, encodePayload, EnvelopeReader, M3DA_CLASSES, normalisePath,
  type M3daResponse, type MessageToEncode
} from '../../../protocols/m3da/index.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const text = (s: string): string => Buffer.from(s).toString('hex')

describe('envelopes as real agents write them', () => {
  it('header without declared length (ctx6 C1) and a null footer on an unsigned envelope', () => {
    const bytes = hex(`60 C1 03 ${text('id')} 06 ${text('abc')} 00 01 00`)
    expect(decodeEnvelope(bytes)).toEqual({ ok: true, envelope: { header: { id: Buffer.from('abc') }, payload: Buffer.alloc(0), footer: {} } })
    expect(encodeEnvelope({ header: unsizedMap({ id: 'abc' }), footer: null })).toEqual(bytes)
  })

  it('an empty payload written as 00, and an empty payload string, both hold no objects', () => {
    expect(decodePayload(Buffer.from([0]))).toEqual({ ok: true, objects: [] })
    expect(decodePayload(Buffer.alloc(0))).toEqual({ ok: true, objects: [] })
    const env = decodeEnvelope(encodeEnvelope({ header: { id: 'x' }, payload: Buffer.from([0]) }))
    expect(env.ok && decodePayload(env.envelope.payload)).toEqual({ ok: true, objects: [] })
  })

  it('the unsigned {id, status} error envelope a device sends after a failure', () => {
    const bytes = encodeEnvelope({ header: unsizedMap({ id: '0123', status: 400 }), footer: null })
    expect(decodeEnvelope(bytes)).toEqual({ ok: true, envelope: { header: { id: Buffer.from('0123'), status: 400 }, payload: Buffer.alloc(0), footer: {} } })
  })

  it('a payload above 67631 bytes travels as a chunked UIS string (§1.7) and comes back whole', () => {
    const payload = Buffer.alloc(100_000, 7)
    const bytes = encodeEnvelope({ header: { id: 'x' }, payload })
    expect(bytes[bytes.indexOf(0x3A, 2)]).toBe(0x3A)
    expect(decodeEnvelope(bytes)).toEqual({ ok: true, envelope: { header: { id: Buffer.from('x') }, payload, footer: {} } })
  })

  it('header keys stay data, whatever they are called', () => {
    const env = decodeEnvelope(encodeEnvelope({ header: typedMap(Ctx.Global, new Map<string | number, number>([['__proto__', 1], [7, 2]])) }))
    expect(env.ok && Object.getPrototypeOf(env.envelope.header)).toBe(Object.prototype)
    expect(env.ok && Object.entries(env.envelope.header)).toEqual([['7', 2], ['__proto__', 1]])
  })

  it('refuses what is not one envelope', () => {
    expect(decodeEnvelope(encode([1]))).toEqual({ ok: false, reason: 'm3da.not.envelope' })
    expect(decodeEnvelope(encode(bysantObject(1, ['a', null, {}]), 0, M3DA_CLASSES))).toEqual({ ok: false, reason: 'm3da.not.envelope' })
    expect(decodeEnvelope(hex('60 01 01 83'))).toEqual({ ok: false, reason: 'm3da.invalid.envelope' }) // header: an empty list
    expect(decodeEnvelope(hex('60 83 3B 83'))).toEqual({ ok: false, reason: 'm3da.invalid.envelope' }) // payload: a number
    expect(decodeEnvelope(Buffer.concat([encodeEnvelope({}), Buffer.from([0x60])]))).toEqual({ ok: false, reason: 'm3da.trailing.bytes' })
    expect(decodeEnvelope(encodeEnvelope({}).subarray(0, 3))).toEqual({ ok: false, reason: 'bysant.truncated' })
  })
})

describe('payload objects', () => {
  it('normalises paths (§2.3): empty segments dropped; an empty path is refused; integer shortcuts kept', () => {
    for (const p of ['a..b', '.a.b', 'a.b.']) expect(normalisePath(p)).toBe('a.b')
    const message = (path: string | number): ReturnType<typeof decodePayload> =>
      decodePayload(encodePayload([{ kind: 'message', path, ticketId: null, body: { x: 1 } }]))
    expect(message('.greenhouse..data.')).toMatchObject({ ok: true, objects: [{ path: 'greenhouse.data' }] })
    expect(message(42)).toMatchObject({ ok: true, objects: [{ path: 42 }] })
    expect(message('..')).toEqual({ ok: false, reason: 'm3da.invalid.path' })
    expect(decodePayload(hex('61 00 00 83'))).toEqual({ ok: false, reason: 'm3da.invalid.path' })
  })

  it('ticket 0 means no ack wanted, like null; a null body is an empty one', () => {
    expect(decodePayload(hex(`61 02 ${text('a')} 3B 00`))).toEqual({ ok: true, objects: [{ kind: 'message', path: 'a', ticketId: null, body: new Map() }] })
  })

  it('Responses: negative statuses, null data', () => {
    const r: M3daResponse = { kind: 'response', ticketId: 9, status: -1, data: null }
    expect(decodePayload(encodePayload([r]))).toEqual({ ok: true, objects: [r] })
  })

  it('refuses objects that are neither Message nor Response, and malformed fields', () => {
    expect(decodePayload(encode(5))).toEqual({ ok: false, reason: 'm3da.invalid.object' })
    expect(decodePayload(encode(bysantObject(0, [{}, '', {}]), 0, M3DA_CLASSES))).toEqual({ ok: false, reason: 'm3da.invalid.object' })
    expect(decodePayload(hex(`61 02 ${text('a')} 3B 01`))).toEqual({ ok: false, reason: 'm3da.invalid.body' })
    expect(decodePayload(hex(`61 02 ${text('a')} 02 ${text('x')} 83`))).toEqual({ ok: false, reason: 'm3da.invalid.ticket' })
    expect(decodePayload(hex('62 00 62 00'))).toEqual({ ok: false, reason: 'm3da.invalid.ticket' })
    expect(decodePayload(hex('62 3C FE 3F C0 00 00 00'))).toEqual({ ok: false, reason: 'm3da.invalid.status' })
    expect(decodePayload(hex('62 3C 62 3C'))).toEqual({ ok: false, reason: 'm3da.invalid.response' })
    expect(decodePayload(hex('62 3C 62'))).toEqual({ ok: false, reason: 'bysant.truncated' })
  })

  const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).filter(d => !Number.isInteger(d)), fc.boolean(), fc.string())
  const objects = fc.array(fc.oneof(
    fc.record({
      kind: fc.constant('message' as const),
      path: fc.oneof(fc.stringMatching(/^[a-z@][a-z0-9_]{0,6}(\.[a-z0-9_]{1,6}){0,3}$/), fc.nat(1000)),
      ticketId: fc.option(fc.integer({ min: 1, max: 0xFFFFFFFF }), { nil: null }),
      body: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}$/), fc.oneof(scalar, fc.array(scalar, { maxLength: 4 })), { maxKeys: 5 })
    }),
    fc.record({
      kind: fc.constant('response' as const),
      ticketId: fc.integer({ min: 0, max: 0xFFFFFFFF }),
      status: fc.integer(),
      data: fc.option(fc.string(), { nil: null })
    })
  ), { maxLength: 5 })

  const back = (o: MessageToEncode | M3daResponse): unknown => o.kind === 'response'
    ? o
    : { ...o, body: new Map(Object.entries(o.body).map(([k, v]) => [k, strings(v)])) }
  const strings = (v: unknown): unknown => typeof v === 'string' ? Buffer.from(v) : Array.isArray(v) ? v.map(strings) : v

  it('decodePayload(encodePayload(objects)) gives the objects back (strings as bytes in bodies)', () => {
    fc.assert(fc.property(objects, os => {
      expect(decodePayload(encodePayload(os))).toEqual({ ok: true, objects: os.map(back) })
    }), { numRuns: 500 })
  })
})

describe('envelope streams (§2.6)', () => {
  const envelopes = fc.array(fc.record({
    header: fc.dictionary(fc.constantFrom('id', 'status', 'nonce', 'smv'), fc.oneof(fc.string(), fc.nat(70000))),
    payload: fc.uint8Array({ maxLength: 300 }).map(u => Buffer.from(u))
  }), { minLength: 1, maxLength: 5 })

  it('envelopes back to back, cut anywhere, come out one by one with their exact bytes', () => {
    fc.assert(fc.property(envelopes, fc.array(fc.nat(), { maxLength: 10 }), (es, cuts) => {
      const each = es.map(e => encodeEnvelope(e))
      const stream = Buffer.concat(each)
      const points = [...new Set(cuts.map(n => n % (stream.length + 1)))].sort((a, b) => a - b)
      const reader = new EnvelopeReader()
      const got: Buffer[] = []
      for (const [i, at] of [0, ...points].entries()) {
        reader.push(stream.subarray(at, points[i] ?? stream.length))
        for (let r = reader.next(); r !== 'more'; r = reader.next()) {
          if (!r.ok) throw new Error(r.reason)
          expect(r.envelope.payload).toEqual(es[got.length]?.payload)
          got.push(r.bytes)
        }
      }
      expect(got).toEqual(each)
    }), { numRuns: 500 })
  })

  it('after a refusal the stream stays refused', () => {
    const reader = new EnvelopeReader()
    reader.push(encode(1))
    expect(reader.next()).toEqual({ ok: false, reason: 'm3da.not.envelope' })
    reader.push(encodeEnvelope({}))
    expect(reader.next()).toEqual({ ok: false, reason: 'm3da.not.envelope' })
  })
})

describe('fuzz', () => {
  it('random bytes never throw out of EnvelopeReader, decodeEnvelope or decodePayload', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 1, max: 50 }), (u, chunk) => {
      const bytes = Buffer.from(u)
      expect(typeof decodeEnvelope(bytes).ok).toBe('boolean')
      expect(typeof decodePayload(bytes).ok).toBe('boolean')
      const withOpcode = Buffer.concat([Buffer.from([0x60]), bytes]) // reach the envelope's fields more often
      expect(typeof decodeEnvelope(withOpcode).ok).toBe('boolean')
      expect(typeof decodePayload(Buffer.concat([Buffer.from([0x61 + (u[0] ?? 0) % 4]), bytes])).ok).toBe('boolean')
      const reader = new EnvelopeReader()
      for (let at = 0; at < withOpcode.length; at += chunk) {
        reader.push(withOpcode.subarray(at, at + chunk))
        for (let r = reader.next(); r !== 'more'; r = reader.next()) if (!r.ok) break
      }
    }), { numRuns: 5000 })
  })

  it('truncated envelopes ask for more; corrupted ones answer without throwing', () => {
    const env = encodeEnvelope({
      header: { id: '012345678901234' },
      payload: encodePayload([{ kind: 'message', path: 'greenhouse.data', ticketId: 3, body: { t: [1.5, 2.5], h: 'x' } }])
    })
    fc.assert(fc.property(fc.nat(), fc.integer({ min: 0, max: 255 }), (pos, byte) => {
      const at = pos % env.length
      const reader = new EnvelopeReader()
      reader.push(env.subarray(0, at))
      expect(reader.next()).toBe('more')
      const bad = Buffer.from(env)
      bad[at] = byte
      const d = decodeEnvelope(bad)
      if (d.ok) expect(typeof decodePayload(d.envelope.payload).ok).toBe('boolean')
    }), { numRuns: 3000 })
  })
})
