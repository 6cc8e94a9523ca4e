// The CoAP message codec (RFC 7252 §3): the Appendix A examples byte for byte, option encodings around the 13/269
// extended-length boundaries, and every refusal of decodeMessage.
import { describe, expect, it } from 'vitest'
import {
  CoapCode, MessageType, OptionNumber, decodeMessage, encodeMessage, formatCode, pathOptions, uriPathOf,
  type CoapMessage, type CoapOption
} from '../../../protocols/coap/index.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const EMPTY = Buffer.alloc(0)

function message (m: Partial<CoapMessage>): CoapMessage {
  return { type: MessageType.CON, code: CoapCode.GET, messageId: 0, token: EMPTY, options: [], payload: EMPTY, ...m }
}

function decoded (buf: Buffer): CoapMessage {
  const r = decodeMessage(buf)
  if (!r.ok) throw new Error(r.reason)
  return r.message
}

const temperature = Buffer.from('temperature').toString('hex')
const reading = Buffer.from('22.3 C').toString('hex')

describe('RFC 7252 Appendix A examples', () => {
  it('figure 16: CON GET /temperature, MID 0x7d34, piggybacked 2.05 "22.3 C"', () => {
    const request = message({ messageId: 0x7d34, options: pathOptions('/temperature') })
    expect(encodeMessage(request)).toEqual(hex(`40 01 7d34 bb ${temperature}`))
    const response = message({ type: MessageType.ACK, code: CoapCode.Content, messageId: 0x7d34, payload: Buffer.from('22.3 C') })
    expect(encodeMessage(response)).toEqual(hex(`60 45 7d34 ff ${reading}`))
    expect(uriPathOf(decoded(hex(`40 01 7d34 bb ${temperature}`)))).toBe('/temperature')
    expect(decoded(hex(`60 45 7d34 ff ${reading}`)).payload.toString()).toBe('22.3 C')
  })

  it('figure 20: separate response: empty ACK 0x7d38, then CON 2.05 0xad7b with token 0x53, ACKed', () => {
    const request = message({ messageId: 0x7d38, token: hex('53'), options: pathOptions('/temperature') })
    expect(encodeMessage(request)).toEqual(hex(`41 01 7d38 53 bb ${temperature}`))
    expect(encodeMessage(message({ type: MessageType.ACK, code: 0, messageId: 0x7d38 }))).toEqual(hex('60 00 7d38'))
    const separate = message({ type: MessageType.CON, code: CoapCode.Content, messageId: 0xad7b, token: hex('53'), payload: Buffer.from('22.3 C') })
    expect(encodeMessage(separate)).toEqual(hex(`41 45 ad7b 53 ff ${reading}`))
    expect(decoded(hex(`41 45 ad7b 53 ff ${reading}`))).toEqual(separate)
    expect(decoded(hex('60 00 ad7b'))).toEqual(message({ type: MessageType.ACK, code: 0, messageId: 0xad7b }))
  })

  it('figure 22: NON GET 0x7d40 token 0x75, NON 2.05 0xad7d', () => {
    const request = message({ type: MessageType.NON, messageId: 0x7d40, token: hex('75'), options: pathOptions('/temperature') })
    expect(encodeMessage(request)).toEqual(hex(`51 01 7d40 75 bb ${temperature}`))
    const response = message({ type: MessageType.NON, code: CoapCode.Content, messageId: 0xad7d, token: hex('75'), payload: Buffer.from('22.3 C') })
    expect(encodeMessage(response)).toEqual(hex(`51 45 ad7d 75 ff ${reading}`))
  })
})

describe('option encoding (§3.1)', () => {
  const lengthCases: Array<[number, string]> = [
    [12, 'b c'], // nibble 12, no extension
    [13, 'b d 00'], // 13 → nibble 13, one byte 0
    [268, 'b d ff'], // 268 → nibble 13, one byte 255
    [269, 'b e 0000'], // 269 → nibble 14, two bytes 0
    [270, 'b e 0001']
  ]
  it.each(lengthCases)('a value of %i bytes: its length written as %s', (length, head) => {
    const value = Buffer.alloc(length, 0x61)
    const buf = encodeMessage(message({ options: [{ number: OptionNumber.UriPath, value }] }))
    expect(buf.subarray(4, 4 + hex(head).length)).toEqual(hex(head))
    expect(decoded(buf).options).toEqual([{ number: OptionNumber.UriPath, value }])
  })

  const deltaCases: Array<[number, string]> = [[12, 'c0'], [13, 'd0 00'], [268, 'd0 ff'], [269, 'e0 0000'], [65535, 'e0 fef2']]
  it.each(deltaCases)('option number %i: its delta written as %s', (n, head) => {
    const buf = encodeMessage(message({ options: [{ number: n, value: EMPTY }] }))
    expect(buf.subarray(4)).toEqual(hex(head))
    expect(decoded(buf).options).toEqual([{ number: n, value: EMPTY }])
  })

  it('deltas are relative to the previous option; repeated options keep their order; input order does not matter', () => {
    const options: CoapOption[] = [
      { number: OptionNumber.UriQuery, value: Buffer.from('ep=a') },
      { number: OptionNumber.UriPath, value: Buffer.from('rd') },
      { number: OptionNumber.ContentFormat, value: Buffer.from([40]) },
      { number: OptionNumber.UriQuery, value: Buffer.from('lt=60') }
    ]
    const buf = encodeMessage(message({ options }))
    // Uri-Path 11 (delta 11), Content-Format 12 (delta 1), Uri-Query 15 (delta 3), Uri-Query 15 (delta 0)
    expect(buf.subarray(4)).toEqual(hex('b2 7264 11 28 34 65703d61 05 6c743d3630'))
    expect(decoded(buf).options.map((o) => [o.number, o.value.toString('latin1')])).toEqual([[11, 'rd'], [12, '('], [15, 'ep=a'], [15, 'lt=60']])
  })

  it('writes the payload marker only with a payload, and the token of up to 8 bytes', () => {
    expect(encodeMessage(message({ token: hex('0102030405060708') }))).toEqual(hex('48 01 0000 0102030405060708'))
    expect(() => encodeMessage(message({ token: Buffer.alloc(9) }))).toThrow(RangeError)
    expect(() => encodeMessage(message({ options: [{ number: 70000, value: EMPTY }] }))).toThrow(RangeError)
    expect(() => encodeMessage(message({ messageId: 65536 }))).toThrow(RangeError)
  })
})

describe('decodeMessage refusals', () => {
  const cases: Array<[string, string, boolean]> = [
    ['coap.too.short', '40 01 00', false],
    ['coap.bad.version', '80 01 0001', false], // version 2: silently ignored, so no id to answer
    ['coap.bad.token.length', '49 01 1234 000102030405060708', true],
    ['coap.truncated', '42 01 1234 01', true], // token shorter than TKL
    ['coap.truncated', '40 01 1234 b5 6162', true], // option value past the end
    ['coap.truncated', '40 01 1234 d0', true], // missing extended delta byte
    ['coap.truncated', '40 01 1234 e0 00', true],
    ['coap.option.reserved', '40 01 1234 f0', true], // delta nibble 15 without length 15
    ['coap.option.reserved', '40 01 1234 bf', true], // length nibble 15
    ['coap.option.number.too.large', '40 01 1234 e0 fef2 e0 0000', true],
    ['coap.payload.marker.empty', '40 01 1234 ff', true],
    ['coap.empty.not.empty', '41 00 1234 aa', true], // an Empty message with a token
    ['coap.empty.not.empty', '60 00 1234 ff 61', true]
  ]
  it.each(cases)('%s for %s', (reason, bytes, withId) => {
    const r = decodeMessage(hex(bytes))
    expect(r).toMatchObject({ ok: false, reason })
    if (withId) expect(r).toMatchObject({ messageId: 0x1234 })
    else expect(r).not.toHaveProperty('messageId')
  })

  it('gives the type with the id, so the caller can RST a malformed CON and ignore the rest', () => {
    expect(decodeMessage(hex('40 01 1234 ff'))).toEqual({ ok: false, reason: 'coap.payload.marker.empty', messageId: 0x1234, type: MessageType.CON })
    expect(decodeMessage(hex('50 01 1234 ff'))).toMatchObject({ type: MessageType.NON })
  })

  it('decodes from a Uint8Array as from a Buffer, without copying the payload', () => {
    const bytes = new Uint8Array(hex(`60 45 7d34 ff ${reading}`))
    const m = decoded(Buffer.from(bytes.buffer))
    expect(m.payload.toString()).toBe('22.3 C')
    expect(decodeMessage(bytes)).toEqual({ ok: true, message: m })
  })
})

describe('codes (§12.1)', () => {
  it('formats class.detail', () => {
    expect([CoapCode.GET, CoapCode.Content, CoapCode.Continue, CoapCode.RequestEntityTooLarge, CoapCode.ProxyingNotSupported].map(formatCode))
      .toEqual(['0.01', '2.05', '2.31', '4.13', '5.05'])
  })
})
