// The pure codecs: records (RFC 6347 §4.1), handshake fragments (§4.2.2), hellos (RFC 5246 §7.4.1, RFC 6347 §4.2.1),
// alerts, PSK identities: round trips, several records per datagram, and refusals as data.
import { describe, expect, it } from 'vitest'
import {
  encodeHandshake, encodeRecord, fragmentHandshake, parseAlert, parseClientHello, parseHandshakeFragments,
  parseHelloVerifyRequest, parseRecords, parseServerHello, MAX_RECORDS_PER_DATAGRAM, type ClientHello
} from '../../../protocols/dtls/index.js'
import { encodeClientHello, encodeHelloVerifyRequest, encodeServerHello } from '../../../protocols/dtls/hello.js'
import { encodePskIdentity, identityText, parsePskIdentity } from '../../../protocols/dtls/psk-messages.js'

const rec = (seq: number, fragment: Buffer, type = 22, epoch = 0): Buffer => encodeRecord({ type, version: 0xfefd, epoch, seq, fragment })

describe('records', () => {
  it('encodes the 13-byte header: type, version, epoch, 48-bit sequence number, length', () => {
    const b = encodeRecord({ type: 23, version: 0xfefd, epoch: 1, seq: 0x010203040506, fragment: Buffer.from('ab') })
    expect(b.toString('hex')).toBe('17' + 'fefd' + '0001' + '010203040506' + '0002' + '6162')
  })

  it('parses several records of one datagram in order', () => {
    const d = Buffer.concat([rec(1, Buffer.from('one')), rec(2, Buffer.from('two'), 21), rec(2 ** 48 - 1, Buffer.alloc(0), 23, 65535)])
    const { records, malformed } = parseRecords(d)
    expect(malformed).toBe(false)
    expect(records.map((r) => [r.type, r.epoch, r.seq, r.fragment.toString()])).toEqual([
      [22, 0, 1, 'one'], [21, 0, 2, 'two'], [23, 65535, 2 ** 48 - 1, '']
    ])
  })

  it('keeps the records before a broken one and says the datagram was malformed', () => {
    const good = rec(1, Buffer.from('ok'))
    for (const tail of [Buffer.from('short'), rec(2, Buffer.from('cut')).subarray(0, 15), Buffer.from(rec(3, Buffer.from('v')).fill(0x03, 1, 2))]) {
      const { records, malformed } = parseRecords(Buffer.concat([good, tail]))
      expect(records).toHaveLength(1)
      expect(malformed).toBe(true)
    }
  })

  it('reads at most MAX_RECORDS_PER_DATAGRAM records', () => {
    const d = Buffer.concat(Array.from({ length: MAX_RECORDS_PER_DATAGRAM + 1 }, (_, i) => rec(i, Buffer.alloc(0))))
    const { records, malformed } = parseRecords(d)
    expect(records).toHaveLength(MAX_RECORDS_PER_DATAGRAM)
    expect(malformed).toBe(true)
  })

  it('refuses a length over 2^14 + 2048', () => {
    const d = Buffer.concat([Buffer.from('16fefd0000000000000000', 'hex'), Buffer.from('4801', 'hex'), Buffer.alloc(0x4801)])
    expect(parseRecords(d)).toEqual({ records: [], malformed: true })
  })

  it('parses an empty datagram as no records', () => {
    expect(parseRecords(new Uint8Array(0))).toEqual({ records: [], malformed: false })
  })
})

describe('handshake fragments', () => {
  it('round-trips a whole message and its fragments', () => {
    const body = Buffer.from('x'.repeat(50))
    const whole = parseHandshakeFragments(encodeHandshake(16, 3, body))
    expect(whole).toEqual({ ok: true, fragments: [{ msgType: 16, length: 50, messageSeq: 3, fragmentOffset: 0, body }] })
    const pieces = fragmentHandshake(16, 3, body, 20)
    expect(pieces).toHaveLength(3)
    const parsed = parseHandshakeFragments(Buffer.concat(pieces))
    expect(parsed.ok && parsed.fragments.map((f) => [f.fragmentOffset, f.body.length])).toEqual([[0, 20], [20, 20], [40, 10]])
  })

  it('refuses fragments outside their message, truncated, empty or too large', () => {
    const h = (len: number, off: number, fl: number, body = Buffer.alloc(fl)): Buffer =>
      Buffer.concat([Buffer.of(1), Buffer.from([len >> 16, (len >> 8) & 255, len & 255]), Buffer.of(0, 0),
        Buffer.from([off >> 16, (off >> 8) & 255, off & 255]), Buffer.from([fl >> 16, (fl >> 8) & 255, fl & 255]), body])
    expect(parseHandshakeFragments(h(10, 8, 4))).toMatchObject({ ok: false, reason: 'dtls.handshake.fragment.outside' })
    expect(parseHandshakeFragments(h(10, 0, 10, Buffer.alloc(5)))).toMatchObject({ ok: false, reason: 'dtls.handshake.truncated' })
    expect(parseHandshakeFragments(h(10, 0, 0))).toMatchObject({ ok: false, reason: 'dtls.handshake.fragment.empty' })
    expect(parseHandshakeFragments(h(9000, 0, 1))).toMatchObject({ ok: false, reason: 'dtls.handshake.too.large' })
    expect(parseHandshakeFragments(Buffer.alloc(0))).toMatchObject({ ok: false, reason: 'dtls.handshake.empty' })
    expect(parseHandshakeFragments(Buffer.alloc(11))).toMatchObject({ ok: false, reason: 'dtls.handshake.truncated' })
  })
})

describe('hellos', () => {
  const hello: ClientHello = {
    version: 0xfefd,
    random: Buffer.alloc(32, 1),
    sessionId: Buffer.alloc(0),
    cookie: Buffer.alloc(32, 2),
    cipherSuites: [0xc0a8, 0x00ff],
    compressions: [0],
    extensions: new Map([[23, Buffer.alloc(0)], [0xff01, Buffer.of(0)]])
  }

  it('round-trips a ClientHello with cookie and extensions', () => {
    expect(parseClientHello(encodeClientHello(hello))).toEqual({ ok: true, value: hello })
  })

  it('reads a ClientHello without an extensions block', () => {
    const parsed = parseClientHello(encodeClientHello({ ...hello, extensions: new Map() }))
    expect(parsed.ok && parsed.value.extensions.size).toBe(0)
  })

  it('refuses a repeated extension, an odd suite list, no compression, trailing bytes', () => {
    const b = encodeClientHello({ ...hello, extensions: new Map() })
    const twice = Buffer.concat([b, Buffer.from('0008' + '00170000' + '00170000', 'hex')])
    expect(parseClientHello(twice)).toMatchObject({ ok: false })
    expect(parseClientHello(encodeClientHello({ ...hello, compressions: [] }))).toMatchObject({ ok: false, reason: 'dtls.hello.invalid' })
    expect(parseClientHello(Buffer.concat([encodeClientHello(hello), Buffer.of(0)]))).toMatchObject({ ok: false })
    expect(parseClientHello(b.subarray(0, 40))).toMatchObject({ ok: false, reason: 'dtls.hello.truncated' })
  })

  it('round-trips ServerHello and HelloVerifyRequest (server_version DTLS 1.0, RFC 6347 §4.2.1)', () => {
    const sh = { version: 0xfefd, random: Buffer.alloc(32, 3), sessionId: Buffer.alloc(0), cipherSuite: 0xc0a8, compression: 0, extensions: new Map([[23, Buffer.alloc(0)]]) }
    expect(parseServerHello(encodeServerHello(sh))).toEqual({ ok: true, value: sh })
    const hvr = encodeHelloVerifyRequest(Buffer.alloc(32, 4))
    expect(hvr.subarray(0, 2).toString('hex')).toBe('feff')
    expect(parseHelloVerifyRequest(hvr)).toEqual({ ok: true, value: { version: 0xfeff, cookie: Buffer.alloc(32, 4) } })
  })
})

describe('alerts and PSK identities', () => {
  it('parses a two-byte alert and nothing else', () => {
    expect(parseAlert(Buffer.of(2, 51))).toEqual({ level: 2, description: 51 })
    expect(parseAlert(Buffer.of(2))).toBeUndefined()
    expect(parseAlert(Buffer.of(2, 51, 0))).toBeUndefined()
  })

  it('round-trips an identity; refuses one over 128 bytes and bytes that are not UTF-8', () => {
    const parsed = parsePskIdentity(encodePskIdentity('urn:imei:356938035643809'))
    expect(parsed.ok && identityText(parsed.value)).toBe('urn:imei:356938035643809')
    expect(parsePskIdentity(encodePskIdentity('x'.repeat(129)))).toMatchObject({ ok: false, reason: 'dtls.psk.identity.too.long' })
    expect(identityText(Buffer.of(0xff, 0xfe))).toBeUndefined()
  })
})
