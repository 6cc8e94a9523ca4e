// ingest/login-gate.ts: connections not logged in, their deadline and their count per address.
import { EventEmitter } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLoginGate } from '../../../ingest/login-gate.js'
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
