// The PROXY protocol header parser (protocols/proxy/header.ts) on the specification's examples, and fuzzed: it never
// throws, answers from its input alone, and a header followed by anything is the same header.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseProxyHeader, V2_SIGNATURE } from '../../../protocols/proxy/header.js'

/** A version 2 header: command (0 LOCAL, 1 PROXY), family/transport byte, the address block and TLVs. */
function v2 (command: number, familyTransport: number, block: number[]): Buffer {
  return Buffer.concat([Buffer.from(V2_SIGNATURE), Buffer.from([0x20 | command, familyTransport, block.length >> 8, block.length & 0xff]), Buffer.from(block)])
}
const tcp4 = (src: number[], srcPort: number): Buffer => v2(1, 0x11, [...src, 10, 0, 0, 1, srcPort >> 8, srcPort & 0xff, 0x07, 0x5b])

describe('parseProxyHeader, version 1', () => {
  it('reads the examples of the specification', () => {
    const line = 'PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n'
    expect(parseProxyHeader(Buffer.from(line + 'GET /'))).toEqual({ kind: 'header', version: 1, length: line.length, source: { address: '192.168.0.1', port: 56324 } })
    const six = 'PROXY TCP6 ffff:f...:ffff ffff:f...:ffff 65535 65535\r\n'
    expect(parseProxyHeader(Buffer.from(six)).kind).toBe('invalid') // the specification's elided form is no address
    const v6 = 'PROXY TCP6 2001:DB8:0:0:0:0:0:1 ::1 65535 65535\r\n'
    expect(parseProxyHeader(Buffer.from(v6))).toMatchObject({ kind: 'header', source: { address: '2001:db8::1', port: 65535 } })
    expect(parseProxyHeader(Buffer.from('PROXY UNKNOWN\r\n'))).toEqual({ kind: 'header', version: 1, length: 15 })
    const longest = 'PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n'
    expect(longest.length).toBe(107)
    expect(parseProxyHeader(Buffer.from(longest))).toEqual({ kind: 'header', version: 1, length: 107 })
  })

  it('gives a mapped IPv4 client in the dotted form Node uses', () => {
    expect(parseProxyHeader(Buffer.from('PROXY TCP6 ::ffff:10.1.2.3 ::1 1 2\r\n'))).toMatchObject({ source: { address: '::ffff:10.1.2.3' } })
  })

  it('waits for the rest of a header, and refuses one that cannot be', () => {
    for (const part of ['', 'P', 'PROXY', 'PROXY TCP4 1.2.3.4']) expect(parseProxyHeader(Buffer.from(part)).kind).toBe('need-more')
    for (const bad of [
      'GET / HTTP/1.1\r\n', 'PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n', 'PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n', 'PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n',
      'PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n', 'PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n', 'PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n', 'PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n',
      'PROXY UNKNOWN ' + 'x'.repeat(100)
    ]) expect(parseProxyHeader(Buffer.from(bad)).kind).toBe('invalid')
  })
})

describe('parseProxyHeader, version 2', () => {
  it('reads a PROXY command over TCP/IPv4 and TCP/IPv6, skipping its TLVs', () => {
    const h = tcp4([203, 0, 113, 7], 51000)
    expect(parseProxyHeader(Buffer.concat([h, Buffer.from([0x10, 0x0c])]))).toEqual({ kind: 'header', version: 2, length: 28, source: { address: '203.0.113.7', port: 51000 } })
    const src = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42]
    const tlv = [0x04, 0x00, 0x03, 0x61, 0x62, 0x63] // PP2_TYPE_NOOP with 3 bytes
    const six = v2(1, 0x21, [...src, ...new Array<number>(15).fill(0), 1, 0x12, 0x34, 0x07, 0x5b, ...tlv])
    expect(parseProxyHeader(six)).toEqual({ kind: 'header', version: 2, length: 16 + 36 + 6, source: { address: '2001:db8::42', port: 0x1234 } })
    const mapped = v2(1, 0x21, [...new Array<number>(10).fill(0), 0xff, 0xff, 192, 0, 2, 1, ...new Array<number>(16).fill(0), 0, 1, 0, 2])
    expect(parseProxyHeader(mapped)).toMatchObject({ source: { address: '::ffff:192.0.2.1' } })
  })

  it('names no client for LOCAL (the proxy\'s own health check), UNSPEC, UDP and UNIX sockets', () => {
    expect(parseProxyHeader(v2(0, 0x00, []))).toEqual({ kind: 'header', version: 2, length: 16 })
    expect(parseProxyHeader(v2(0, 0x11, [...tcp4([1, 2, 3, 4], 1).subarray(16)]))).toEqual({ kind: 'header', version: 2, length: 28 })
    expect(parseProxyHeader(v2(1, 0x12, [...tcp4([1, 2, 3, 4], 1).subarray(16)]))).toEqual({ kind: 'header', version: 2, length: 28 })
    expect(parseProxyHeader(v2(1, 0x31, new Array<number>(216).fill(0x2f)))).toEqual({ kind: 'header', version: 2, length: 232 })
  })

  it('waits for every byte the length announces, and refuses a wrong version, command, family or a short block', () => {
    const h = tcp4([1, 2, 3, 4], 1)
    for (let n = 0; n < h.length; n++) expect(parseProxyHeader(h.subarray(0, n)).kind).toBe('need-more')
    const with_ = (at: number, byte: number): Buffer => { const c = Buffer.from(h); c[at] = byte; return c }
    for (const bad of [with_(12, 0x11), with_(12, 0x22), with_(13, 0x41), with_(13, 0x13), v2(1, 0x11, [1, 2, 3, 4]), v2(1, 0x21, new Array<number>(12).fill(0)), with_(11, 0x0b)]) {
      expect(parseProxyHeader(bad).kind).toBe('invalid')
    }
  })
})

describe('parseProxyHeader, fuzzed', () => {
  it('never throws, answers from its input alone (a view into a longer buffer reads the same), and a header is the same with anything after it', () => {
    const prefixes = fc.constantFrom(Buffer.alloc(0), Buffer.from(V2_SIGNATURE), Buffer.from('PROXY '), Buffer.from('PROXY TCP4 '), tcp4([9, 9, 9, 9], 9).subarray(0, 16))
    fc.assert(fc.property(prefixes, fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 1, maxLength: 50 }), (prefix, bytes, after) => {
      const input = Buffer.concat([prefix, bytes])
      const r = parseProxyHeader(input)
      const backed = Buffer.concat([input, after]).subarray(0, input.length) // the same bytes, with more behind them in memory
      expect(parseProxyHeader(backed)).toEqual(r)
      if (r.kind === 'header') {
        expect(r.length).toBeLessThanOrEqual(input.length)
        expect(parseProxyHeader(Buffer.concat([input, after]))).toEqual(r)
      }
    }), { numRuns: 2000 })
  })

  it('reads back any IPv4 client and port of a version 2 header, whole, and only needs more before its end', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 65535 }), fc.nat(27), (ip, port, cut) => {
      const h = tcp4(ip, port)
      expect(parseProxyHeader(h)).toMatchObject({ kind: 'header', source: { address: ip.join('.'), port } })
      expect(parseProxyHeader(h.subarray(0, cut)).kind).toBe('need-more')
    }), { numRuns: 500 })
  })
})
