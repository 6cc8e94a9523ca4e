// core/domain/usage-rollup.ts: which days of an aggregation's range the daily usage rollups answer
// (docs/store.md#rollups).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bucketsOf, TIMESCALES, type Interval } from '../../core/domain/aggregation.js'
import { DAY_MS, dayOf, rollupDays } from '../../core/domain/usage-rollup.js'

const utc = (s: string): number => Date.parse(s + 'Z')
const H = 3_600_000

describe('dayOf', () => {
  it('is the start of the UTC day, before 1970 too', () => {
    expect(dayOf(utc('2024-02-29T23:59:59.999'))).toBe(utc('2024-02-29T00:00:00'))
    expect(dayOf(utc('2024-03-01T00:00:00'))).toBe(utc('2024-03-01T00:00:00'))
    expect(dayOf(-1)).toBe(-DAY_MS)
  })
})

describe('rollupDays', () => {
  const month: Interval = { n: 1, unit: 'month' }

  it('gives the whole days of the range, those the edges cut left out', () => {
    const buckets = bucketsOf(utc('2024-02-01T00:00:00'), utc('2024-04-01T00:00:00'), month, 500)
    expect(rollupDays(buckets, utc('2024-02-01T00:00:00'), utc('2024-04-01T00:00:00'))).toEqual([utc('2024-02-01T00:00:00'), utc('2024-04-01T00:00:00')])
    expect(rollupDays(buckets, utc('2024-02-01T00:00:00.001'), utc('2024-03-31T23:59:59.999'))).toEqual([utc('2024-02-02T00:00:00'), utc('2024-03-31T00:00:00')])
    // No whole day inside: none.
    expect(rollupDays(buckets, utc('2024-02-01T10:00:00'), utc('2024-02-02T09:00:00'))).toBeUndefined()
  })

  it('gives none when a bucket starts inside a day (hours other than 24 and 48)', () => {
    const from = utc('2024-02-01T00:00:00')
    const to = utc('2024-02-05T00:00:00')
    expect(rollupDays(bucketsOf(from, to, { n: 1, unit: 'hour' }, 500), from, to)).toBeUndefined()
    expect(rollupDays(bucketsOf(from, to, { n: 12, unit: 'hour' }, 500), from, to)).toBeUndefined()
    expect(rollupDays(bucketsOf(from, to, { n: 24, unit: 'hour' }, 500), from, to)).toEqual([from, to])
    expect(rollupDays(bucketsOf(from, to, { n: 48, unit: 'hour' }, 500), from, to)).toEqual([from, to])
  })

  it('never gives a day that a bucket edge cuts or that lies outside [from, to)', () => {
    const interval = fc.record({ n: fc.integer({ min: 1, max: 50 }), unit: fc.constantFrom(...TIMESCALES) })
    const t = fc.integer({ min: utc('2023-01-01T00:00:00'), max: utc('2026-01-01T00:00:00') })
    fc.assert(fc.property(interval, t, fc.integer({ min: 1, max: 400 * 24 * H }), (iv, from, span) => {
      const buckets = bucketsOf(from, from + span, iv, 500)
      const days = rollupDays(buckets, from, from + span)
      if (days === undefined) return
      expect(days[0]).toBeGreaterThanOrEqual(from)
      expect(days[1]).toBeLessThanOrEqual(from + span)
      for (let d = days[0]; d < days[1]; d += DAY_MS) {
        // The day's bucket is the one its last millisecond falls in.
        expect(buckets.filter((b) => b <= d).at(-1)).toBe(buckets.filter((b) => b <= d + DAY_MS - 1).at(-1))
      }
    }), { numRuns: 300 })
  })
})
