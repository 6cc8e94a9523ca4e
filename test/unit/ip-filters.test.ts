import { describe, expect, it } from 'vitest'
import { hasFilters, ipAllowed, ipFiltersProblem } from '../../core/domain/ip-filters.js'
import type { IpFilters } from '../../core/domain/company.js'

// docs/api.md#users-and-companies (ipFilters: start and end define a range) and §Companies, Edit (a range needs both
// ends with start not greater than end).

const f = (over: Partial<IpFilters>): IpFilters => ({ startIPAddress: null, endIPAddress: null, ipAddresses: [], ...over })

describe('ipFiltersProblem', () => {
  it('accepts empty filters, IPv4 and IPv6 addresses and ranges', () => {
    expect(ipFiltersProblem(f({}))).toBeUndefined()
    expect(ipFiltersProblem(f({ ipAddresses: ['10.0.0.1', '::1', '2001:db8::ff', '::ffff:192.0.2.1'] }))).toBeUndefined()
    expect(ipFiltersProblem(f({ startIPAddress: '10.0.0.1', endIPAddress: '10.0.0.1' }))).toBeUndefined()
    expect(ipFiltersProblem(f({ startIPAddress: '10.0.0.255', endIPAddress: '10.0.1.0' }))).toBeUndefined()
    expect(ipFiltersProblem(f({ startIPAddress: '2001:db8::f', endIPAddress: '2001:db8::10' }))).toBeUndefined()
  })

  it.each([
    ['a bad IPv4 address', f({ ipAddresses: ['10.0.0.256'] })],
    ['an IPv4 address with a leading zero', f({ ipAddresses: ['10.0.0.01'] })],
    ['a CIDR block', f({ ipAddresses: ['10.0.0.0/8'] })],
    ['a host name', f({ ipAddresses: ['localhost'] })],
    ['an empty string', f({ ipAddresses: [''] })],
    ['a bad IPv6 address', f({ ipAddresses: ['2001:db8::1::2'] })],
    ['a bad range start', f({ startIPAddress: '10.0.0', endIPAddress: '10.0.0.9' })],
    ['a bad IPv6 range end', f({ startIPAddress: '2001:db8::1', endIPAddress: '2001:db8::x' })]
  ])('answers "address" for %s', (_name, filters) => {
    expect(ipFiltersProblem(filters)).toBe('address')
  })

  it.each([
    ['a start without end', f({ startIPAddress: '10.0.0.1' })],
    ['an end without start', f({ endIPAddress: '10.0.0.1' })],
    ['an IPv4 start after the end', f({ startIPAddress: '10.0.0.2', endIPAddress: '10.0.0.1' })],
    ['an IPv4 start after the end by an octet', f({ startIPAddress: '10.1.0.0', endIPAddress: '10.0.255.255' })],
    ['an IPv6 start after the end', f({ startIPAddress: '2001:db8::10', endIPAddress: '2001:db8::f' })],
    ['ends of two families', f({ startIPAddress: '10.0.0.1', endIPAddress: '::ffff:10.0.0.2' })]
  ])('answers "range" for %s', (_name, filters) => {
    expect(ipFiltersProblem(filters)).toBe('range')
  })

  it('reports a bad address before a bad range', () => {
    expect(ipFiltersProblem(f({ startIPAddress: '10.0.0.1', ipAddresses: ['nope'] }))).toBe('address')
  })
})

describe('hasFilters', () => {
  it('needs an address or a complete range', () => {
    expect(hasFilters(f({}))).toBe(false)
    expect(hasFilters(f({ startIPAddress: '10.0.0.1' }))).toBe(false)
    expect(hasFilters(f({ ipAddresses: ['10.0.0.1'] }))).toBe(true)
    expect(hasFilters(f({ startIPAddress: '10.0.0.1', endIPAddress: '10.0.0.2' }))).toBe(true)
  })
})

describe('ipAllowed', () => {
  const filters = f({ startIPAddress: '192.0.2.10', endIPAddress: '192.0.2.20', ipAddresses: ['198.51.100.1', '2001:db8::1'] })

  it('allows the listed addresses and the range, both ends included', () => {
    for (const ip of ['198.51.100.1', '2001:db8::1', '2001:DB8:0::1', '192.0.2.10', '192.0.2.15', '192.0.2.20']) {
      expect(ipAllowed(filters, ip), ip).toBe(true)
    }
  })

  it('allows an IPv4 caller seen as IPv4-mapped IPv6 (a dual-stack socket)', () => {
    expect(ipAllowed(filters, '::ffff:192.0.2.11')).toBe(true)
    expect(ipAllowed(filters, '::ffff:192.0.2.21')).toBe(false)
  })

  it('refuses addresses outside, malformed callers, and everyone when there is no filter', () => {
    for (const ip of ['192.0.2.9', '192.0.2.21', '198.51.100.2', '2001:db8::2', 'unknown', '']) {
      expect(ipAllowed(filters, ip), ip).toBe(false)
    }
    expect(ipAllowed(f({}), '127.0.0.1')).toBe(false)
  })

  it('ignores an invalid stored range rather than failing', () => {
    const broken = f({ startIPAddress: '10.0.0.9', endIPAddress: '10.0.0.1', ipAddresses: ['10.0.0.5'] })
    expect(ipAllowed(broken, '10.0.0.5')).toBe(true)
    expect(ipAllowed(broken, '10.0.0.3')).toBe(false)
  })
})
