// Device message uids (core/security/secrets.ts newTimeOrderedUid): the shape of every resource uid, the time first so
// that the indexes holding them grow at their right edge, and 80 random bits drawn from a pool refilled 512 at a time.
import { describe, expect, it } from 'vitest'
import { newTimeOrderedUid } from '../../core/security/secrets.js'

describe('newTimeOrderedUid', () => {
  it('is 32 hex characters, the time in ms first', () => {
    const now = Date.UTC(2026, 10, 28, 12, 0, 0, 123)
    const uid = newTimeOrderedUid(now)
    expect(uid).toMatch(/^[0-9a-f]{32}$/)
    expect(Number.parseInt(uid.slice(0, 12), 16)).toBe(now)
  })

  it('sorts by time, and never repeats across refills of its random pool', () => {
    const uids: string[] = []
    for (let i = 0; i < 3000; i++) uids.push(newTimeOrderedUid(1_700_000_000_000 + Math.floor(i / 100)))
    expect([...uids].sort()).toEqual([...uids].sort((a, b) => Number.parseInt(a.slice(0, 12), 16) - Number.parseInt(b.slice(0, 12), 16) || (a < b ? -1 : 1)))
    expect(new Set(uids).size).toBe(uids.length)
    const randoms = new Set(uids.map((u) => u.slice(12)))
    expect(randoms.size).toBe(uids.length)
    // Every hex digit shows up in every random position: no part of it is fixed (a UUID's version nibble would be).
    for (let pos = 12; pos < 32; pos++) expect(new Set(uids.map((u) => u[pos])).size, `position ${pos}`).toBe(16)
  })
})
