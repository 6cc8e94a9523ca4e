import { describe, expect, it } from 'vitest'
import { formatAgo, formatBytes, formatShort, formatValue } from '../../../console/src/lib/format.js'

describe('console formats', () => {
  it('writes bytes in powers of 1024 with one decimal below 10', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1023)).toBe('1023 B')
    expect(formatBytes(1536)).toBe('1.5 KB')
    expect(formatBytes(12 * 1024 * 1024)).toBe('12 MB')
    expect(formatBytes(-2048)).toBe('-2.0 KB')
    expect(formatBytes(Number.NaN)).toBe('')
  })

  it('says how long ago, up to a month', () => {
    const now = 1_763_884_800_000
    expect(formatAgo(now - 12_000, now)).toBe('12 s ago')
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 min ago')
    expect(formatAgo(now - 3 * 3_600_000, now)).toBe('3 h ago')
    expect(formatAgo(now - 2 * 86_400_000, now)).toBe('2 d ago')
    expect(formatAgo(now - 40 * 86_400_000, now)).not.toContain('ago')
  })

  it('writes a time of today without its date, an older one with it', () => {
    const now = new Date(2026, 10, 23, 15, 0, 0).getTime()
    const today = formatShort(new Date(2026, 10, 23, 11, 43, 9).getTime(), now)
    const older = formatShort(new Date(2026, 10, 20, 11, 43, 9).getTime(), now)
    expect(today).toMatch(/43/)
    expect(today).not.toMatch(/20|Nov/)
    expect(older).toMatch(/20/)
  })

  it('writes values as devices sent them', () => {
    expect(formatValue(21.123456)).toBe('21.1235')
    expect(formatValue(70)).toBe('70')
    expect(formatValue(null)).toBe('')
    expect(formatValue(true)).toBe('true')
    expect(formatValue({ a: 1 })).toBe('{"a":1}')
  })
})
