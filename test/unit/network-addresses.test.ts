// The address classification shared by operation callbacks and MSCI polls (core/domain/network-addresses.ts): every
// form of an IPv4 address inside IPv6 is classified by that IPv4, and no text makes it throw.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { internalAddress, isForbiddenAddress } from '../../core/domain/network-addresses.js'

const hex = (a: number, b: number): string => ((a << 8) | b).toString(16)

describe('embedded IPv4', () => {
  it('::ffff:a.b.c.d, ::ffff:hex, NAT64 64:ff9b::/96 and 6to4 2002::/16 are classified as a.b.c.d', () => {
    fc.assert(fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), ([a, b, c, d]) => {
      const v4 = `${a}.${b}.${c}.${d}`
      const forms = [`::ffff:${v4}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `64:ff9b::${v4}`, `64:ff9b::${hex(a, b)}:${hex(c, d)}`, `2002:${hex(a, b)}:${hex(c, d)}::1`]
      for (const f of forms) {
        expect(isForbiddenAddress(f)).toBe(isForbiddenAddress(v4))
        expect(internalAddress(f)).toBe(internalAddress(v4))
      }
    }), { numRuns: 2000 })
  })

  it('the local-use NAT64 prefix and Teredo are never public, whatever they carry', () => {
    fc.assert(fc.property(fc.nat(0xffff), fc.nat(0xffff), (x, y) => {
      expect(isForbiddenAddress(`64:ff9b:1::${x.toString(16)}:${y.toString(16)}`)).toBe(true)
      expect(isForbiddenAddress(`2001:0:${x.toString(16)}:${y.toString(16)}::1`)).toBe(true)
    }))
  })

  it('any text: an answer, never a throw; what is no address is refused', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (s) => {
      expect(typeof isForbiddenAddress(s)).toBe('boolean')
      const kind = internalAddress(s)
      expect([undefined, 'loopback', 'internal']).toContain(kind)
    }), { numRuns: 2000 })
    expect(isForbiddenAddress('gw.example')).toBe(true)
    expect(internalAddress('gw.example')).toBe('internal')
  })
})
