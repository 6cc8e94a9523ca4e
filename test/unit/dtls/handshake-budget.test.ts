// The handshakes one address may start (protocols/dtls/handshake-budget.ts, README §Handshakes per address): the
// bucket's rate under fast-check (never more than the burst plus the rate over the time elapsed, whatever the clock
// does; never a refusal at the rate), the map of buckets bounded, and the endpoint in memory refusing an address
// over its budget and counting it while another handshakes. The clock is a variable the tests move.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { allows, HandshakeBudget, refill, type Bucket, type HandshakeRate } from '../../../protocols/dtls/index.js'
import { makeClient, makeServer, pump, REMOTE } from './harness.js'

const rates = fc.record({ perS: fc.integer({ min: 1, max: 1000 }), burst: fc.integer({ min: 1, max: 200 }) })

/** Tries a handshake at each time in turn; answers how many started. */
function started (rate: HandshakeRate, times: readonly number[]): number {
  let bucket: Bucket | undefined
  let n = 0
  for (const t of times) {
    bucket = refill(bucket, rate, t)
    if (!allows(bucket)) continue
    bucket = { tokens: bucket.tokens - 1, at: bucket.at }
    n++
  }
  return n
}

describe('refill, the rate of one address', () => {
  it('starts at most the burst plus the rate over the time elapsed, the clock going back and forth', () => {
    fc.assert(fc.property(rates, fc.array(fc.integer({ min: 0, max: 60_000 }), { minLength: 1, maxLength: 300 }), (rate, times) => {
      const span = Math.max(...times) - times[0]!
      expect(started(rate, times)).toBeLessThanOrEqual(rate.burst + Math.floor((span * rate.perS) / 1000))
    }))
  })

  it('never refuses an address that keeps to the rate, whatever it did before', () => {
    fc.assert(fc.property(rates, fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 50 }), fc.integer({ min: 1, max: 50 }), (rate, before, n) => {
      const sorted = [...before].sort((a, b) => a - b)
      const start = (sorted.at(-1) ?? 0) + Math.ceil((rate.burst * 1000) / rate.perS) // long enough to refill fully
      const paced = Array.from({ length: n }, (_, i) => start + i * Math.ceil(1000 / rate.perS))
      expect(started(rate, [...sorted, ...paced]) - started(rate, sorted)).toBe(n)
    }))
  })

  it('a burst at one instant starts exactly the burst', () => {
    fc.assert(fc.property(rates, fc.integer({ min: 0, max: 1e12 }), (rate, t) => {
      expect(started(rate, Array.from({ length: rate.burst + 5 }, () => t))).toBe(rate.burst)
    }))
  })
})

describe('HandshakeBudget', () => {
  it('keeps one budget per address key, and none at all with a rate of 0', () => {
    // The key a caller gives: here the first three octets, as a /64 is for IPv6.
    const budget = new HandshakeBudget({ perS: 1, burst: 1 }, (a) => a.split('.').slice(0, 3).join('.'))
    budget.spend('10.0.0.1', 0)
    expect(budget.allows('10.0.0.2', 0)).toBe(false)
    expect(budget.allows('10.0.1.1', 0)).toBe(true)
    expect(budget.allows('10.0.0.2', 1000)).toBe(true)
    const none = new HandshakeBudget({ perS: 0, burst: 1 })
    for (let i = 0; i < 10; i++) none.spend('10.0.0.1', 0)
    expect(none.allows('10.0.0.1', 0)).toBe(true)
    expect(none.size).toBe(0)
  })

  it('holds a bounded number of addresses: full buckets go first, then the least recent', () => {
    const budget = new HandshakeBudget({ perS: 1, burst: 2 }, undefined, 10)
    for (let i = 0; i < 10; i++) budget.spend(`10.0.0.${i}`, 0)
    budget.spend('10.0.0.0', 1500)
    budget.spend('10.0.0.0', 1500) // in debt until 3000
    budget.spend('10.0.1.0', 2000) // the map is full: every other bucket is full again by then, and forgotten
    expect(budget.size).toBe(2)
    expect(budget.allows('10.0.0.0', 2000)).toBe(false) // its debt was kept
    for (let i = 0; i < 30; i++) budget.spend(`10.0.2.${i}`, 2000)
    expect(budget.size).toBeLessThanOrEqual(10)
    expect(budget.allows('10.0.2.29', 2000)).toBe(true) // one spent of a burst of 2
  })
})

describe('the endpoint', () => {
  it('refuses a good cookie from an address over its budget, counts it, and lets another address handshake', async () => {
    let now = 1_000_000
    const server = makeServer({ handshakesPerS: 1, handshakeBurst: 2, now: () => now })
    const refused: Array<[string, string]> = []
    server.endpoint.on('refused', (reason: string, remote: { address: string }) => refused.push([reason, remote.address]))
    const from = (port: number) => ({ address: REMOTE.address, port })
    for (const port of [50001, 50002]) {
      const c = makeClient()
      expect((await pump(server, c, c.start().datagrams, undefined, from(port))).established).toBe(true)
    }
    const over = makeClient()
    expect((await pump(server, over, over.start().datagrams, undefined, from(50003))).established).toBe(false)
    expect(server.endpoint.counters['handshake.rate.limited']).toBe(1)
    expect(refused).toEqual([['handshake.rate.limited', REMOTE.address]])
    expect(server.endpoint.handshakeCount).toBe(0)

    const other = makeClient()
    expect((await pump(server, other, other.start().datagrams, undefined, { address: '192.0.2.99', port: 50001 })).established).toBe(true)
    expect(server.sessions).toHaveLength(3)

    // A second later the address has one handshake again: the refused client's retransmitted hello starts it.
    now += 1000
    const again = over.timeout().datagrams
    expect((await pump(server, over, again, undefined, from(50003))).established).toBe(true)
    expect(server.endpoint.counters['handshake.rate.limited']).toBe(1)
  })

  it('a retransmitted ClientHello of the handshake in progress costs nothing', async () => {
    const server = makeServer({ handshakesPerS: 1, handshakeBurst: 1, now: () => 0 })
    const client = makeClient()
    await server.endpoint.handle(client.start().datagrams[0]!, REMOTE)
    const withCookie = (await client.receive(server.outbox.shift()!.datagram)).datagrams
    for (const d of withCookie) await server.endpoint.handle(d, REMOTE)
    expect(server.endpoint.handshakeCount).toBe(1)
    server.outbox.splice(0)
    // The same hello again, with a new record number: the handshake in progress answers it.
    const log = await pump(server, client, client.timeout().datagrams)
    expect(log.established).toBe(true)
    expect(server.endpoint.counters['handshake.rate.limited']).toBe(0)
  })
})
