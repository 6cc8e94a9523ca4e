// Observe (RFC 7641 §3.4): which notification is fresher, around the 24-bit wrap and the 128-second window.
import { describe, expect, it } from 'vitest'
import { isFresher, nextObserveSeq, notificationMatches } from '../../../protocols/coap/index.js'

const T = 1_000_000

describe('freshness (§3.4)', () => {
  it('a larger number within 2^23 is newer, a smaller one is older', () => {
    expect(isFresher(5, T, 6, T)).toBe(true)
    expect(isFresher(6, T, 5, T)).toBe(false)
    expect(isFresher(5, T, 5, T)).toBe(false)
    expect(isFresher(0, T, 2 ** 23 - 1, T)).toBe(true)
    expect(isFresher(0, T, 2 ** 23, T)).toBe(false) // exactly half way round: not newer
  })
  it('across the wrap of 2^24: a small number after a large one is newer', () => {
    expect(isFresher(2 ** 24 - 1, T, 0, T)).toBe(true)
    expect(isFresher(2 ** 24 - 10, T, 5, T)).toBe(true)
    expect(isFresher(5, T, 2 ** 24 - 10, T)).toBe(false)
  })
  it('after 128 seconds anything is newer, however it is numbered', () => {
    expect(isFresher(6, T, 5, T + 128_000)).toBe(false)
    expect(isFresher(6, T, 5, T + 128_001)).toBe(true)
  })
  it('the server side counts modulo 2^24', () => {
    expect(nextObserveSeq(2 ** 24 - 1)).toBe(0)
    expect(nextObserveSeq(7)).toBe(8)
  })
})

describe('matching (§3.2)', () => {
  it('same peer and same token, nothing else', () => {
    const o = { peer: '10.0.0.1:5683', token: Buffer.from('a1b2', 'hex') }
    expect(notificationMatches(o, '10.0.0.1:5683', { token: Buffer.from('a1b2', 'hex') })).toBe(true)
    expect(notificationMatches(o, '10.0.0.2:5683', { token: Buffer.from('a1b2', 'hex') })).toBe(false)
    expect(notificationMatches(o, '10.0.0.1:5683', { token: Buffer.from('a1b3', 'hex') })).toBe(false)
  })
})
