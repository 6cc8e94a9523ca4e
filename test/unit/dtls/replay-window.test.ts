// The anti-replay window of RFC 6347 §4.1.2.6: 64 entries below the highest authenticated sequence number.
import { describe, expect, it } from 'vitest'
import { ReplayWindow } from '../../../protocols/dtls/index.js'

function marked (...seqs: number[]): ReplayWindow {
  const w = new ReplayWindow()
  for (const s of seqs) w.mark(s)
  return w
}

describe('ReplayWindow', () => {
  it('accepts anything before the first record, including 0', () => {
    const w = new ReplayWindow()
    expect(w.accepts(0)).toBe(true)
    expect(w.accepts(2 ** 48 - 1)).toBe(true)
  })

  it('refuses a number seen, accepts one not seen inside the window (reordering)', () => {
    const w = marked(0, 1, 2, 5)
    for (const s of [0, 1, 2, 5]) expect(w.accepts(s)).toBe(false)
    expect(w.accepts(3)).toBe(true)
    expect(w.accepts(4)).toBe(true)
    w.mark(4)
    expect(w.accepts(4)).toBe(false)
    expect(w.accepts(3)).toBe(true)
  })

  it('keeps exactly 64 entries: top - 63 is inside, top - 64 is too old', () => {
    const w = marked(100)
    expect(w.accepts(37)).toBe(true) // 100 - 63
    expect(w.accepts(36)).toBe(false) // 100 - 64
    w.mark(37)
    expect(w.accepts(37)).toBe(false)
  })

  it('slides: marking a higher number moves old entries out and keeps the ones still inside', () => {
    const w = marked(10, 12)
    w.mark(70) // shift by 58: 10 and 12 are 60 and 58 behind, still inside
    expect(w.accepts(10)).toBe(false)
    expect(w.accepts(12)).toBe(false)
    expect(w.accepts(11)).toBe(true)
    w.mark(80) // 10 is now 70 behind: too old; 12 is 68 behind: too old as well
    expect(w.accepts(10)).toBe(false)
    expect(w.accepts(12)).toBe(false)
    expect(w.accepts(16)).toBe(false) // 64 behind
    expect(w.accepts(17)).toBe(true) // 63 behind, never seen
  })

  it('a jump far ahead clears the window', () => {
    const w = marked(1, 2, 3)
    w.mark(1_000_000)
    expect(w.accepts(999_999)).toBe(true)
    expect(w.accepts(3)).toBe(false)
  })

  it('marking an old number outside the window changes nothing', () => {
    const w = marked(200)
    w.mark(10)
    expect(w.accepts(199)).toBe(true)
    expect(w.accepts(200)).toBe(false)
  })

  it('works at the top of the 48-bit range', () => {
    const top = 2 ** 48 - 1
    const w = marked(top - 1)
    expect(w.accepts(top)).toBe(true)
    w.mark(top)
    expect(w.accepts(top)).toBe(false)
    expect(w.accepts(top - 1)).toBe(false)
    expect(w.accepts(top - 2)).toBe(true)
  })
})
