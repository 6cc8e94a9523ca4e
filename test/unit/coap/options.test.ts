// Option values and rules (RFC 7252 §3.2, §5.4): minimal uint encoding, the critical/unsafe/NoCacheKey bits, the
// path and query helpers, and which options a receiver must refuse.
import { describe, expect, it } from 'vitest'
import {
  OptionNumber, decodeUint, encodeUint, findBadCriticalOption, getUintOption, isCritical, isNoCacheKey, isUnsafe,
  pathOptions, queryOptions, uriPathOf, uriQueryOf, withOption, withoutOption, type CoapOption
} from '../../../protocols/coap/index.js'

const opt = (number: number, value: Buffer | string = Buffer.alloc(0)): CoapOption => ({ number, value: Buffer.from(value) })

describe('uint values (§3.2)', () => {
  it.each([[0, ''], [1, '01'], [255, 'ff'], [256, '0100'], [65535, 'ffff'], [65536, '010000'], [0xffffffff, 'ffffffff']])(
    '%i is written in as few bytes as possible: %s', (n, hexValue) => {
      expect(encodeUint(n).toString('hex')).toBe(hexValue)
      expect(decodeUint(encodeUint(n))).toBe(n)
    })
  it('reads leading zero bytes (senders should not write them), refuses to write what does not fit', () => {
    expect(decodeUint(Buffer.from([0, 0, 5]))).toBe(5)
    expect(() => encodeUint(-1)).toThrow(RangeError)
    expect(() => encodeUint(2 ** 32)).toThrow(RangeError)
    expect(() => encodeUint(1.5)).toThrow(RangeError)
  })
})

describe('option number bits (§5.4.6)', () => {
  it('critical, unsafe and NoCacheKey as the table in §5.10 says', () => {
    expect([1, 3, 5, 7, 11, 15, 17, 23, 27, 35, 39].every(isCritical)).toBe(true)
    expect([4, 6, 8, 12, 14, 20, 28, 60].some(isCritical)).toBe(false)
    expect([3, 7, 11, 14, 15, 35, 39].every(isUnsafe)).toBe(true)
    expect(isNoCacheKey(OptionNumber.Size1)).toBe(true)
    expect(isNoCacheKey(OptionNumber.UriPath)).toBe(false)
  })
})

describe('path and query helpers', () => {
  it('one Uri-Path per segment; "/" and "" have none; empty inner segments stay (they are meaningful)', () => {
    expect(pathOptions('/rd/abc').map((o) => o.value.toString())).toEqual(['rd', 'abc'])
    expect(pathOptions('/')).toEqual([])
    expect(pathOptions('')).toEqual([])
    expect(pathOptions('/a//b').map((o) => o.value.toString())).toEqual(['a', '', 'b'])
    const msg = { options: [...pathOptions('/3/0/1'), ...queryOptions(['ep=dev', 'lt=300'])] }
    expect(uriPathOf(msg)).toBe('/3/0/1')
    expect(uriQueryOf(msg)).toEqual(['ep=dev', 'lt=300'])
  })
  it('withOption replaces every value of a number and keeps the list sorted; withoutOption removes them', () => {
    const base = [opt(OptionNumber.UriPath, 'a'), opt(OptionNumber.Observe, Buffer.from([1])), opt(OptionNumber.UriQuery, 'q')]
    const next = withOption(base, OptionNumber.Observe, 300)
    expect(next.map((o) => o.number)).toEqual([6, 11, 15])
    expect(getUintOption({ options: next }, OptionNumber.Observe)).toBe(300)
    expect(withOption(next, OptionNumber.Observe, 0)[0]?.value.length).toBe(0)
    expect(withoutOption(next, OptionNumber.Observe).map((o) => o.number)).toEqual([11, 15])
    expect(withOption([], OptionNumber.LocationPath, ['rd', 'x1']).map((o) => o.value.toString())).toEqual(['rd', 'x1'])
  })
})

describe('options a receiver must refuse (§5.4.1, §5.4.3, §5.4.5)', () => {
  it('an unknown critical option', () => {
    expect(findBadCriticalOption({ options: [opt(OptionNumber.UriPath, 'a'), opt(9)] })).toBe(9)
  })
  it('a known critical option of a length outside its range, or repeated when it may not be', () => {
    expect(findBadCriticalOption({ options: [opt(OptionNumber.UriHost)] })).toBe(OptionNumber.UriHost) // 1–255
    expect(findBadCriticalOption({ options: [opt(OptionNumber.Accept, Buffer.alloc(3))] })).toBe(OptionNumber.Accept)
    expect(findBadCriticalOption({ options: [opt(OptionNumber.Block2, Buffer.alloc(4))] })).toBe(OptionNumber.Block2)
    expect(findBadCriticalOption({ options: [opt(OptionNumber.UriPort, '1'), opt(OptionNumber.UriPort, '2')] })).toBe(OptionNumber.UriPort)
  })
  it('never an elective one, known or not, well-formed or not', () => {
    expect(findBadCriticalOption({ options: [opt(2), opt(OptionNumber.ETag), opt(OptionNumber.ContentFormat, Buffer.alloc(5)), opt(1000)] })).toBeUndefined()
    expect(findBadCriticalOption({ options: [opt(OptionNumber.UriPath, 'a'), opt(OptionNumber.UriPath, 'b'), opt(OptionNumber.IfMatch), opt(OptionNumber.IfMatch)] })).toBeUndefined()
  })
})
