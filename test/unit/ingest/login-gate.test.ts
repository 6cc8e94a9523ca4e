// ingest/login-gate.ts: connections not logged in, their deadline and their count per address.
import { EventEmitter } from 'node:events'
import { BlockList } from 'node:net'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { addressBlock, createLoginGate } from '../../../ingest/login-gate.js'
import { noMetrics } from '../../../core/metrics.js'

class FakeConn extends EventEmitter {
  destroyed = false
  destroy (): void {
    if (this.destroyed) return
    this.destroyed = true
    this.emit('close')
  }
}

beforeEach(() => { vi.useFakeTimers() })
afterEach(() => { vi.useRealTimers() })

const gate = (): ReturnType<typeof createLoginGate> => createLoginGate({ transport: 'mqtt', perAddress: 2, timeoutMs: 1000, metrics: noMetrics })

describe('login gate', () => {
  it('closes a connection not logged in at its deadline, and not one that logged in', () => {
    const g = gate()
    const late = new FakeConn()
    const quick = new FakeConn()
    g.admit('a', late)
    g.admit('b', quick)?.loggedIn()
    vi.advanceTimersByTime(999)
    expect(late.destroyed).toBe(false)
    vi.advanceTimersByTime(1)
    expect([late.destroyed, quick.destroyed]).toEqual([true, false])
    expect(g.pending()).toBe(0)
  })

  it('caps each address apart; a place comes back when a connection logs in or closes', () => {
    const g = gate()
    const first = g.admit('a', new FakeConn())
    const second = new FakeConn()
    g.admit('a', second)
    expect(g.admit('a', new FakeConn())).toBeUndefined()
    expect(g.admit('b', new FakeConn())).toBeDefined()
    first?.loggedIn()
    first?.loggedIn() // twice: one place only
    expect(g.admit('a', new FakeConn())).toBeDefined()
    expect(g.admit('a', new FakeConn())).toBeUndefined()
    second.destroy()
    expect(g.admit('a', new FakeConn())).toBeDefined()
    expect(g.pending()).toBe(3)
  })

  it('a connection that closes after logging in gives back nothing more', () => {
    const g = gate()
    const c = new FakeConn()
    g.admit('a', c)?.loggedIn()
    c.destroy()
    g.admit('a', new FakeConn())
    g.admit('a', new FakeConn())
    expect(g.admit('a', new FakeConn())).toBeUndefined()
  })
})

describe('addresses counted together', () => {
  it('an IPv4 address alone, whether written plain or IPv4-mapped', () => {
    expect(addressBlock('192.0.2.7')).toBe('192.0.2.7')
    expect(addressBlock('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(addressBlock('::FFFF:192.0.2.7')).toBe('192.0.2.7')
  })

  it('an IPv6 address by its /64, however written', () => {
    expect(addressBlock('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(addressBlock('2001:0DB8:0001:0002::9')).toBe('2001:db8:1:2::/64')
    expect(addressBlock('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressBlock('::1')).toBe('0:0:0:0::/64')
    expect(addressBlock('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(addressBlock('64:ff9b::192.0.2.7')).toBe('64:ff9b:0:0::/64')
    expect(addressBlock('')).toBe('')
  })

  it('any IPv6 address lies in its block, and every address of that /64 has the same block', () => {
    const v6 = fc.ipV6().filter((a) => addressBlock(a).endsWith('::/64')) // IPv4-mapped ones count as IPv4
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
    fc.assert(fc.property(v6, fc.array(group, { minLength: 4, maxLength: 4 }), (a, tail) => {
      const block = addressBlock(a)
      const list = new BlockList()
      list.addSubnet(block.replace('::/64', '::'), 64, 'ipv6')
      expect(list.check(a, 'ipv6')).toBe(true)
      expect(addressBlock(`${block.replace('::/64', '')}:${tail.join(':')}`)).toBe(block)
    }))
  })

  it('a cap counts the addresses of one /64 together', () => {
    const g = createLoginGate({ transport: 'mqtt', perAddress: 1, timeoutMs: 1000, metrics: noMetrics })
    expect(g.admit('2001:db8:1:2::a', new FakeConn())).toBeDefined()
    expect(g.admit('2001:db8:1:2::b', new FakeConn())).toBeUndefined()
    expect(g.admit('2001:db8:1:3::a', new FakeConn())).toBeDefined()
  })
})
