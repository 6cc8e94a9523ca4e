import { describe, expect, it } from 'vitest'
import { isTrustedProxy } from '../../core/domain/trusted-proxies.js'

describe('isTrustedProxy', () => {
  const list = ['10.0.0.5', '192.168.0.0/16', 'fd00::/8']

  it('trusts the listed addresses and the addresses inside the listed ranges, IPv4 on a dual-stack socket too', () => {
    for (const a of ['10.0.0.5', '::ffff:10.0.0.5', '192.168.44.1', 'fd12::1']) expect(isTrustedProxy(a, list)).toBe(true)
  })

  it('trusts nobody else, nothing when the list is empty, and no address that is not one', () => {
    for (const a of ['10.0.0.6', '172.16.0.1', 'fe80::1', '::1', 'proxy', '', undefined]) expect(isTrustedProxy(a, list)).toBe(false)
    expect(isTrustedProxy('10.0.0.5', [])).toBe(false)
  })
})
