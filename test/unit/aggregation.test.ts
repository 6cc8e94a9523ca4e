import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AGGREGATE_FN_NAMES, AGGREGATE_FNS, bucketEnd, bucketsOf, bucketStart, DEFAULT_INTERVAL, minusMonths, parseFn, parseInterval, USAGE_DATA_IDS,
  INTERVAL_PATTERN, TIMESCALES, type Interval
} from '../../core/domain/aggregation.js'
import { FleetError } from '../../core/errors.js'

const utc = (s: string): number => Date.parse(s + 'Z')
const codeOf = (fn: () => unknown): string | undefined => {
  try { fn() } catch (e) { return e instanceof FleetError ? e.code : 'not a FleetError' }
  return undefined
}

describe('parseInterval (conventions.md §Data: <n><unit>, n 1..50, hour|day|month|year)', () => {
  it('reads multiplier and unit, 1hour by default', () => {
    expect(parseInterval(undefined)).toEqual(DEFAULT_INTERVAL)
    expect(parseInterval('')).toEqual({ n: 1, unit: 'hour' })
    expect(parseInterval('1hour')).toEqual({ n: 1, unit: 'hour' })
    expect(parseInterval('50day')).toEqual({ n: 50, unit: 'day' })
    expect(parseInterval('2month')).toEqual({ n: 2, unit: 'month' })
    expect(parseInterval('3YEAR')).toEqual({ n: 3, unit: 'year' })
  })

  it.each(['0hour', '51day', '-1hour', 'hour', '1.5hour', 'xday'])('refuses the multiplier of %s with aggregation.invalid.multiplier', (v) => {
    expect(codeOf(() => parseInterval(v))).toBe('aggregation.invalid.multiplier')
  })

  it.each(['1minute', '2', '5weeks', '1hours', '1 hour x'])('refuses the unit of %s with aggregation.invalid.timescale', (v) => {
    expect(codeOf(() => parseInterval(v))).toBe('aggregation.invalid.timescale')
  })

  it('names the value and the allowed form and units in the error parameters', () => {
    const form = '<n><unit>: n from 1 to 50, unit hour, day, month, year (e.g. 1hour, 7day, 1month)'
    expect(() => parseInterval('60hour')).toThrow(expect.objectContaining({ code: 'aggregation.invalid.multiplier', params: ['60hour', form] }))
    expect(() => parseInterval('1week')).toThrow(expect.objectContaining({ code: 'aggregation.invalid.timescale', params: ['1week', form] }))
  })
})

describe('the lists the API document shows', () => {
  it('INTERVAL_PATTERN accepts the lower-case intervals parseInterval reads, and no other', () => {
    const pattern = new RegExp(INTERVAL_PATTERN)
    for (let n = -1; n <= 60; n++) {
      for (const unit of [...TIMESCALES, 'week']) {
        const v = `${n}${unit}`
        const reads = codeOf(() => parseInterval(v)) === undefined
        expect(pattern.test(v), v).toBe(reads)
      }
    }
  })

  it('AGGREGATE_FN_NAMES is every value parseFn reads: the functions, then the aliases', () => {
    expect(AGGREGATE_FN_NAMES).toEqual(['mean', 'min', 'max', 'sum', 'stddev', 'ss', 'cnt', 'count', 'standarddeviation'])
    for (const f of AGGREGATE_FN_NAMES) expect(codeOf(() => parseFn(f, 'fn')), f).toBeUndefined()
  })
})

describe('parseFn (conventions.md §Data)', () => {
  it('knows every function, the aliases and the default mean', () => {
    for (const f of AGGREGATE_FNS) expect(parseFn(f, 'fn')).toBe(f)
    expect(parseFn(undefined, 'fn')).toBe('mean')
    expect(parseFn('count', 'fn')).toBe('cnt')
    expect(parseFn('standarddeviation', 'fleetFn')).toBe('stddev')
    expect(parseFn('MAX', 'fn')).toBe('max')
  })

  it('refuses an unknown function with request.invalid naming the parameter and the functions there are', () => {
    expect(() => parseFn('median', 'fleetFn')).toThrow(expect.objectContaining({
      code: 'request.invalid', params: ['fleetFn', 'median', 'one of mean, min, max, sum, stddev, ss, cnt (or count, standarddeviation)']
    }))
  })

  it.each(['__proto__', 'constructor', 'toString', 'valueOf'])('refuses %s, a member of every plain object', (v) => {
    expect(() => parseFn(v, 'fn')).toThrow(expect.objectContaining({ code: 'request.invalid' }))
  })
})

describe('calendar buckets in UTC', () => {
  it('aligns hours and days on multiples from the epoch', () => {
    expect(bucketStart(utc('2024-03-10T13:45:12.345'), { n: 1, unit: 'hour' })).toBe(utc('2024-03-10T13:00:00'))
    expect(bucketStart(utc('2024-03-10T13:45:00'), { n: 6, unit: 'hour' })).toBe(utc('2024-03-10T12:00:00'))
    expect(bucketStart(utc('2024-03-10T23:59:59.999'), { n: 1, unit: 'day' })).toBe(utc('2024-03-10T00:00:00'))
    expect(bucketStart(utc('1969-12-31T23:30:00'), { n: 1, unit: 'hour' })).toBe(utc('1969-12-31T23:00:00'))
  })

  it('starts a month on the 1st at 00:00 UTC, a 2month bucket on even month indexes from January 1970', () => {
    expect(bucketStart(utc('2024-02-29T23:00:00'), { n: 1, unit: 'month' })).toBe(utc('2024-02-01T00:00:00'))
    expect(bucketStart(utc('2024-02-29T23:00:00'), { n: 2, unit: 'month' })).toBe(utc('2024-01-01T00:00:00'))
    expect(bucketStart(utc('2024-04-01T00:00:00'), { n: 2, unit: 'month' })).toBe(utc('2024-03-01T00:00:00'))
    expect(bucketEnd(utc('2024-01-01T00:00:00'), { n: 1, unit: 'month' })).toBe(utc('2024-02-01T00:00:00'))
    expect(bucketEnd(utc('2024-12-01T00:00:00'), { n: 3, unit: 'month' })).toBe(utc('2025-03-01T00:00:00'))
  })

  it('starts a year on January 1st; 2year buckets on even years', () => {
    expect(bucketStart(utc('2023-07-04T00:00:00'), { n: 1, unit: 'year' })).toBe(utc('2023-01-01T00:00:00'))
    expect(bucketStart(utc('2023-07-04T00:00:00'), { n: 2, unit: 'year' })).toBe(utc('2022-01-01T00:00:00'))
    expect(bucketEnd(utc('2022-01-01T00:00:00'), { n: 2, unit: 'year' })).toBe(utc('2024-01-01T00:00:00'))
  })

  const intervals = fc.record({ n: fc.integer({ min: 1, max: 50 }), unit: fc.constantFrom('hour', 'day', 'month', 'year') }) as fc.Arbitrary<Interval>
  const times = fc.integer({ min: utc('1900-01-01T00:00:00'), max: utc('2200-01-01T00:00:00') })

  it('puts every instant in exactly one bucket [start, end)', () => {
    fc.assert(fc.property(times, intervals, (ts, iv) => {
      const start = bucketStart(ts, iv)
      expect(start).toBeLessThanOrEqual(ts)
      expect(bucketEnd(start, iv)).toBeGreaterThan(ts)
      expect(bucketStart(start, iv)).toBe(start)
      expect(bucketStart(bucketEnd(start, iv), iv)).toBe(bucketEnd(start, iv))
    }))
  })
})

describe('bucketsOf: the buckets answered for [from, to), oldest first', () => {
  const hour = { n: 1, unit: 'hour' } as const

  it('lists every bucket from the one holding from to the one holding to - 1', () => {
    const from = utc('2024-01-01T10:30:00')
    const to = utc('2024-01-01T13:00:00')
    expect(bucketsOf(from, to, hour, 100)).toEqual([
      utc('2024-01-01T10:00:00'), utc('2024-01-01T11:00:00'), utc('2024-01-01T12:00:00')
    ])
  })

  it('keeps the most recent `size` buckets; with no from, exactly `size`', () => {
    const to = utc('2024-01-01T13:00:01')
    expect(bucketsOf(null, to, hour, 3)).toEqual([utc('2024-01-01T11:00:00'), utc('2024-01-01T12:00:00'), utc('2024-01-01T13:00:00')])
    expect(bucketsOf(utc('2023-01-01T00:00:00'), to, hour, 2)).toEqual([utc('2024-01-01T12:00:00'), utc('2024-01-01T13:00:00')])
  })

  it('answers nothing for an empty range or size 0', () => {
    expect(bucketsOf(5, 5, hour, 10)).toEqual([])
    expect(bucketsOf(null, 5, hour, 0)).toEqual([])
  })

  it('walks calendar months backwards', () => {
    expect(bucketsOf(utc('2023-11-15T00:00:00'), utc('2024-02-10T00:00:00'), { n: 1, unit: 'month' }, 100)).toEqual([
      utc('2023-11-01T00:00:00'), utc('2023-12-01T00:00:00'), utc('2024-01-01T00:00:00'), utc('2024-02-01T00:00:00')
    ])
  })
})

describe('minusMonths', () => {
  it('goes back calendar months in UTC, clamping to the end of a shorter month', () => {
    expect(minusMonths(utc('2024-05-15T08:00:00'), 3)).toBe(utc('2024-02-15T08:00:00'))
    expect(minusMonths(utc('2024-05-31T08:00:00'), 3)).toBe(utc('2024-02-29T08:00:00'))
    expect(minusMonths(utc('2024-01-31T00:00:00'), 3)).toBe(utc('2023-10-31T00:00:00'))
  })
})

describe('USAGE_DATA_IDS', () => {
  it('is the list of fleet-api.md §System usage data ids; INVOICED_ ones use the processing date', () => {
    const listed = 'DATA_SESSION, DATA_DURATION, DATA_BYTES_SENT, DATA_BYTES_RECEIVED, DATA_BYTES_TOTAL, ' +
      'INVOICED_DATA_BYTES_TOTAL, VOICE_IN_SESSION, VOICE_IN_DURATION, INVOICED_VOICE_IN_DURATION, VOICE_OUT_SESSION, ' +
      'VOICE_OUT_DURATION, INVOICED_VOICE_OUT_DURATION, SMS_SENT, INVOICED_SMS_SENT, SMS_RECEIVED, ' +
      'INVOICED_SMS_RECEIVED, MSU, INVOICED_MSU'
    expect(Object.keys(USAGE_DATA_IDS).sort()).toEqual(listed.split(', ').sort())
    for (const [id, u] of Object.entries(USAGE_DATA_IDS)) expect(u.date).toBe(id.startsWith('INVOICED_') ? 'invoiced' : 'start')
  })
})
