import { describe, expect, it } from 'vitest'
import { appendPoint, bucketCount, chartQuery, defaultInterval, drawable, MAX_POINTS, parseInterval, rangeOf, seriesOf, shownSpan } from '../../../console/src/pages/system/series.js'

const HOUR = 3_600_000
const NOW = 1_763_884_800_000

describe('chart series', () => {
  it('gives the range of each preset ending now, and a custom one only when it is a range', () => {
    expect(rangeOf('hour', NOW)).toEqual({ from: NOW - HOUR, to: NOW })
    expect(rangeOf('week', NOW)).toEqual({ from: NOW - 7 * 24 * HOUR, to: NOW })
    expect(rangeOf('custom', NOW, { from: 1, to: 2 })).toEqual({ from: 1, to: 2 })
    expect(rangeOf('custom', NOW, { from: 2, to: 2 })).toBeNull()
    expect(rangeOf('custom', NOW)).toBeNull()
  })

  it('picks an interval of a few dozen buckets and counts them within the size limit', () => {
    expect(defaultInterval({ from: NOW - 24 * HOUR, to: NOW })).toBe('1hour')
    expect(defaultInterval({ from: NOW - 7 * 24 * HOUR, to: NOW })).toBe('6hour')
    expect(defaultInterval({ from: NOW - 30 * 24 * HOUR, to: NOW })).toBe('1day')
    expect(bucketCount({ from: NOW - 24 * HOUR, to: NOW }, '1hour')).toBe(25)
    expect(bucketCount({ from: 0, to: NOW }, '1hour')).toBe(MAX_POINTS)
    expect(parseInterval('50day')).toEqual({ n: 50, unit: 'day' })
    expect(parseInterval('51day')).toBeNull()
    expect(parseInterval('0hour')).toBeNull()
    expect(parseInterval('1week')).toBeNull()
  })

  it('asks the raw endpoint for raw points and the aggregated one with interval and fn', () => {
    const range = { from: NOW - 24 * HOUR, to: NOW }
    expect(chartQuery({ uid: 's1', dataId: 'temp', range, aggregate: null })).toEqual({
      path: '/api/v1/systems/data/raw', query: { targetIds: 's1', dataIds: 'temp', from: range.from, to: NOW, size: 500 }
    })
    expect(chartQuery({ uid: 's1', dataId: 'temp', range, aggregate: { interval: '1hour', fn: 'max' } })).toEqual({
      path: '/api/v1/systems/data/aggregated', query: { targetIds: 's1', dataIds: 'temp', from: range.from, to: NOW, interval: '1hour', fn: 'max', size: 25 }
    })
  })

  it('turns an answer (most recent first) into time-ordered seconds and numbers, gaps for null and text', () => {
    const answer = { s1: { temp: [{ ts: 3000, v: 21.5 }, { ts: 2000, v: null }, { ts: 1000, v: '20' }, { ts: 1000, v: 99 }] } }
    expect(seriesOf(answer, 's1', 'temp')).toEqual({ xs: [1, 2, 3], ys: [20, null, 21.5] })
    expect(seriesOf(answer, 's1', 'other')).toEqual({ xs: [], ys: [] })
    expect(seriesOf({}, 's2', 'temp')).toEqual({ xs: [], ys: [] })
    expect(drawable(seriesOf({ s1: { t: [{ ts: 1, v: 'open' }] } }, 's1', 't'))).toBe(false)
    expect(drawable(seriesOf(answer, 's1', 'temp'))).toBe(true)
  })

  it('appends a live point in time order, replaces one of the same time, and drops what left the range', () => {
    let s = { xs: [1, 2, 4], ys: [10, 20, 40] as Array<number | null> }
    s = appendPoint(s, 5000, 50, 0)
    expect(s).toEqual({ xs: [1, 2, 4, 5], ys: [10, 20, 40, 50] })
    s = appendPoint(s, 3000, '30', 0)
    expect(s).toEqual({ xs: [1, 2, 3, 4, 5], ys: [10, 20, 30, 40, 50] })
    s = appendPoint(s, 5000, 55, 2500)
    expect(s).toEqual({ xs: [3, 4, 5], ys: [30, 40, 55] })
  })

  it('keeps at most the endpoint size of points', () => {
    let s = { xs: [] as number[], ys: [] as Array<number | null> }
    for (let i = 1; i <= MAX_POINTS + 3; i++) s = appendPoint(s, i * 1000, i, 0)
    expect(s.xs).toHaveLength(MAX_POINTS)
    expect(s.xs[0]).toBe(4)
  })

  it('shows an aggregation\'s buckets that start before the range, rather than drawing them off the edge', () => {
    const range = { from: 7_200_000 + 1_800_000, to: 7_200_000 + 5_400_000 } // 02:30 to 03:30
    const buckets = { xs: [7_200, 10_800], ys: [20, 21] } // 02:00 and 03:00, in seconds
    expect(shownSpan(range, buckets)).toEqual({ from: 7_200_000, to: range.to })
    expect(shownSpan(range, { xs: [], ys: [] })).toEqual(range)
  })
})
