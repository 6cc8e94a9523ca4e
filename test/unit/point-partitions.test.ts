// core/domain/months.ts and core/domain/point-partitions.ts: UTC month bounds of the points partitions, and which
// months get one and which expire.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addMonths, monthOf, monthOfTag, monthsBetween, monthTag } from '../../core/domain/months.js'
import { EARLIEST_MONTH, expired, monthsAhead, onDemandRange, retentionHorizon } from '../../core/domain/point-partitions.js'

const utc = (s: string): number => Date.parse(s + 'Z')
const tags = (ms: Array<{ start: number }>): string[] => ms.map((m) => monthTag({ start: m.start, end: 0 }))

describe('UTC months', () => {
  it('bounds a month by its first ms and the next month\'s, in UTC', () => {
    expect(monthOf(utc('2024-02-29T23:59:59.999'))).toEqual({ start: utc('2024-02-01T00:00:00'), end: utc('2024-03-01T00:00:00') })
    expect(monthOf(utc('2026-12-31T23:59:59.999'))).toEqual({ start: utc('2026-12-01T00:00:00'), end: utc('2027-01-01T00:00:00') })
    expect(monthOf(-1)).toEqual({ start: utc('1969-12-01T00:00:00'), end: 0 })
    expect(addMonths(monthOf(utc('2026-01-15T00:00:00')), -2).start).toBe(utc('2025-11-01T00:00:00'))
  })

  it('holds every timestamp in its month, and months follow each other without gap', () => {
    fc.assert(fc.property(fc.integer({ min: -2e12, max: 4e12 }), (ts) => {
      const m = monthOf(ts)
      expect(m.start).toBeLessThanOrEqual(ts)
      expect(ts).toBeLessThan(m.end)
      expect(addMonths(m, 1).start).toBe(m.end)
      expect(monthOf(m.end - 1)).toEqual(m)
    }))
  })

  it('refuses a timestamp that is no date instead of answering NaN bounds', () => {
    expect(() => monthOf(9e15)).toThrow(RangeError)
  })

  it('names a month YYYYMM and reads the name back; anything else is no month', () => {
    const m = monthOf(utc('2026-03-10T00:00:00'))
    expect(monthTag(m)).toBe('202603')
    expect(monthOfTag('202603')).toEqual(m)
    fc.assert(fc.property(fc.integer({ min: 0, max: 4e12 }), (ts) => { expect(monthOfTag(monthTag(monthOf(ts)))).toEqual(monthOf(ts)) }))
    for (const bad of ['202613', '202600', '20263', '0999 1', 'default', '2026031']) expect(monthOfTag(bad)).toBeUndefined()
  })

  it('lists the months between two, both included', () => {
    expect(tags(monthsBetween(monthOf(utc('2025-11-20T00:00:00')), monthOf(utc('2026-02-01T00:00:00'))))).toEqual(['202511', '202512', '202601', '202602'])
  })
})

describe('partition policy', () => {
  const now = utc('2026-03-15T10:00:00')

  it('keeps everything without retention', () => {
    expect(retentionHorizon(now, 0)).toBeUndefined()
    expect(expired([monthOf(0), monthOf(now)], undefined)).toEqual([])
  })

  it('keeps the month holding now − retention whole and expires the months that ended before it', () => {
    // now − 60 days is 2026-01-14: January is kept, December 2025 expires.
    const horizon = retentionHorizon(now, 60)
    expect(horizon).toBe(utc('2026-01-01T00:00:00'))
    const months = monthsBetween(monthOf(utc('2025-10-01T00:00:00')), monthOf(now))
    expect(tags(expired(months, horizon))).toEqual(['202510', '202511', '202512'])
  })

  it('has the previous month to two ahead always partitioned, less those past the horizon', () => {
    expect(tags(monthsAhead(now, undefined))).toEqual(['202602', '202603', '202604', '202605'])
    expect(tags(monthsAhead(now, retentionHorizon(now, 10)))).toEqual(['202603', '202604', '202605'])
  })

  it('moves months out of the default partition from 1970 (or the horizon) to twelve months ahead', () => {
    expect(onDemandRange(now, undefined)).toEqual({ from: EARLIEST_MONTH.start, to: utc('2027-04-01T00:00:00') })
    expect(EARLIEST_MONTH.start).toBe(0)
    expect(onDemandRange(now, utc('2026-01-01T00:00:00')).from).toBe(utc('2026-01-01T00:00:00'))
  })
})
