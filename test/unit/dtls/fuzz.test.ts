// Property tests (fast-check): no parser throws on any bytes; valid streams survive any cutting; the endpoint fed
// random datagrams, or mutated real ones, never throws, never faults inside, and never makes a session; an
// established session fed garbage stays up and delivers nothing.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  encodeRecord, fragmentHandshake, parseAlert, parseClientHello, parseHandshakeFragments, parseHelloVerifyRequest,
  parseRecords, parseServerHello, readClientHello, type HandshakeFragment
} from '../../../protocols/dtls/index.js'
import { parseFinished, parsePskIdentity } from '../../../protocols/dtls/psk-messages.js'
import { Reassembler } from '../../../protocols/dtls/reassembler.js'
import { connect, makeClient, makeServer, REMOTE } from './harness.js'

const bytes = fc.uint8Array({ maxLength: 1500 })
/** Bytes that often look like a DTLS record: a real-looking header in front of random bytes. */
const recordish = fc.tuple(fc.constantFrom(20, 21, 22, 23, 24, 0), fc.constantFrom(0xfefd, 0xfeff, 0x0303), fc.integer({ min: 0, max: 3 }), fc.nat(2 ** 48 - 1), fc.uint8Array({ maxLength: 300 }))
  .map(([type, version, epoch, seq, body]) => encodeRecord({ type, version, epoch, seq, fragment: Buffer.from(body) }))
const datagram = fc.oneof(bytes, recordish, fc.array(recordish, { maxLength: 4 }).map((rs) => Buffer.concat(rs)))

function mutate (base: Buffer): fc.Arbitrary<Buffer> {
  return fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }).map((edits) => {
    const b = Buffer.from(base)
    for (const [at, v] of edits) b[at] = v
    return b
  })
}

describe('parsers never throw', () => {
  it('on any bytes', () => {
    fc.assert(fc.property(datagram, (d) => {
      parseRecords(d)
      parseHandshakeFragments(d)
      parseClientHello(d)
      parseServerHello(d)
      parseHelloVerifyRequest(d)
      parseAlert(d)
      parsePskIdentity(d)
      parseFinished(d)
      readClientHello(d)
    }), { numRuns: 2000 })
  })

  it('on any handshake record fragment inside a record', () => {
    fc.assert(fc.property(fc.array(bytes, { maxLength: 5 }), (bodies) => {
      const d = Buffer.concat(bodies.map((b, i) => encodeRecord({ type: 22, version: 0xfefd, epoch: 0, seq: i, fragment: Buffer.from(b) })))
      const { records } = parseRecords(d)
      for (const r of records) parseHandshakeFragments(r.fragment)
    }))
  })
})

describe('valid input survives any cutting', () => {
  it('records concatenated in a datagram parse back to themselves', () => {
    const record = fc.record({
      type: fc.integer({ min: 0, max: 255 }),
      version: fc.constantFrom(0xfefd, 0xfeff),
      epoch: fc.integer({ min: 0, max: 65535 }),
      seq: fc.nat(2 ** 48 - 1),
      fragment: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b))
    })
    fc.assert(fc.property(fc.array(record, { maxLength: 8 }), (rs) => {
      expect(parseRecords(Buffer.concat(rs.map(encodeRecord)))).toEqual({ records: rs, malformed: false })
    }))
  })

  it('a message cut into fragments of any size, shuffled and repeated, reassembles to itself', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 3000 }), fc.integer({ min: 1, max: 400 }), fc.func(fc.integer()), (body, size, order) => {
      const message = Buffer.from(body)
      const pieces = fragmentHandshake(16, 0, message, size).flatMap((p) => {
        const parsed = parseHandshakeFragments(p)
        return parsed.ok ? parsed.fragments : []
      })
      const shuffled: HandshakeFragment[] = [...pieces, ...pieces.slice(0, 2)].sort((a, b) => order(a.fragmentOffset) - order(b.fragmentOffset))
      const r = new Reassembler()
      for (const f of shuffled) expect(r.push(f, 0)).toBe('kept')
      expect(r.pop()?.body).toEqual(message)
    }))
  })
})

describe('the endpoint under random input', () => {
  it('never throws or faults, and makes no session, from random datagrams of many peers', async () => {
    const server = makeServer()
    let made = 0
    server.endpoint.on('session', () => { made += 1 })
    await fc.assert(fc.asyncProperty(datagram, fc.integer({ min: 1, max: 65535 }), async (d, port) => {
      await server.endpoint.handle(d, { address: '203.0.113.5', port })
    }), { numRuns: 1500 })
    expect(made).toBe(0)
    expect(server.endpoint.sessionCount).toBe(0)
    expect(server.endpoint.handshakeCount).toBe(0)
    expect(server.endpoint.counters['internal.error']).toBe(0)
    server.endpoint.close()
  })

  it('never faults on mutated real handshake datagrams (hello, hello with cookie, final flight)', async () => {
    const server = makeServer()
    const client = makeClient()
    const hello1 = client.start().datagrams[0]!
    await server.endpoint.handle(hello1, REMOTE)
    const hello2 = (await client.receive(server.outbox.shift()!.datagram)).datagrams[0]!
    await server.endpoint.handle(hello2, REMOTE)
    let final: Buffer | undefined
    for (const { datagram: d } of server.outbox.splice(0)) final ??= (await client.receive(d)).datagrams[0]
    // The peer whose handshake is in progress too: its connection then reads the mutated flights (until one ends it).
    const peers = fc.oneof(fc.constant(REMOTE), fc.integer({ min: 1, max: 50 }).map((port) => ({ address: '203.0.113.9', port })))
    await fc.assert(fc.asyncProperty(fc.oneof(mutate(hello1), mutate(hello2), mutate(final!)), peers, async (d, peer) => {
      await server.endpoint.handle(d, peer)
    }), { numRuns: 1500 })
    // A mutation of bytes nothing authenticates (an epoch-0 record number) may still complete the one real handshake.
    expect(server.sessions.every((s) => s.remote.port === REMOTE.port)).toBe(true)
    expect(server.sessions.length).toBeLessThanOrEqual(1)
    expect(server.endpoint.counters['internal.error']).toBe(0)
    server.endpoint.close()
  })

  it('an established session fed garbage and mutated records stays up and delivers nothing', async () => {
    const server = makeServer()
    const { client, session } = await connect(server)
    const got: Buffer[] = []
    session.on('message', (m: Buffer) => got.push(m))
    const data = client.send(Buffer.from('hello'))
    await fc.assert(fc.asyncProperty(fc.oneof(datagram, mutate(data).filter((d) => !d.equals(data))), async (d) => {
      await server.endpoint.handle(d, REMOTE)
    }), { numRuns: 1000 })
    // A mutation may leave the record intact but for a header byte the AAD covers: never delivered either.
    expect(got).toEqual([])
    expect(session.closed).toBe(false)
    expect(server.endpoint.counters['internal.error']).toBe(0)
    await server.endpoint.handle(data, REMOTE)
    expect(got.map(String)).toEqual(['hello'])
    server.endpoint.close()
  })

  it('a client connection fed random datagrams never throws', async () => {
    await fc.assert(fc.asyncProperty(fc.array(datagram, { maxLength: 5 }), async (ds) => {
      const client = makeClient()
      client.start()
      for (const d of ds) {
        const out = await client.receive(d)
        expect(out.refused).not.toContain('internal.error')
      }
    }), { numRuns: 300 })
  })
})
