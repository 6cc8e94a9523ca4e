// The system page's chart as data: the time range picked, the query of the raw and aggregated data endpoints
// (their operations in the OpenAPI document) and the series uPlot draws from their answers, with the
// live points of the stream appended. No DOM here (tested in test/unit/console/series.test.ts).

import type { AggregateFn, Timescale } from '../../../../core/domain/aggregation.js'

export interface Point { ts: number, v: number | string | null }
/** The answer of both endpoints: system uid → data id → points, most recent first. */
export type PointsAnswer = Record<string, Record<string, Point[]> | undefined>

export const RANGES = ['hour', 'day', 'week', 'month', 'custom'] as const
export type RangeName = typeof RANGES[number]
// The functions and units the chart offers, checked against the service's lists (types only: the console's bundle
// takes nothing else of core).
export const FUNCTIONS = ['mean', 'min', 'max', 'sum', 'cnt', 'stddev'] as const satisfies readonly AggregateFn[]
export const UNITS = ['hour', 'day', 'month', 'year'] as const satisfies readonly Timescale[]

const HOUR = 3_600_000
const DAY = 24 * HOUR
const SPAN: Record<Exclude<RangeName, 'custom'>, number> = { hour: HOUR, day: DAY, week: 7 * DAY, month: 30 * DAY }
/** The endpoints' limit (AirVantage's too): at most 500 points per system and data id. */
export const MAX_POINTS = 500

export interface TimeRange { from: number, to: number }

/** The range of a preset ending now; a custom range is kept as given when from < to. */
export function rangeOf (name: RangeName, now: number, custom?: TimeRange): TimeRange | null {
  if (name === 'custom') return custom !== undefined && custom.from < custom.to ? custom : null
  return { from: now - SPAN[name], to: now }
}

/** Whether new points from the stream belong in the view: the range ends now. */
export const isLive = (name: RangeName): boolean => name !== 'custom'

/** A sensible bucket for a range: about 24 to 60 buckets (aggregation units are hour, day, month, year). */
export function defaultInterval (range: TimeRange): string {
  const span = range.to - range.from
  if (span <= 2 * DAY) return '1hour'
  if (span <= 10 * DAY) return '6hour'
  if (span <= 120 * DAY) return '1day'
  if (span <= 3 * 365 * DAY) return '1month'
  return '1year'
}

const INTERVAL = new RegExp(`^(\\d{1,2})(${UNITS.join('|')})$`)

/** `6hour` → {n: 6, unit: 'hour'}; null when not a valid interval (multiplier 1 to 50, docs/devices.md). */
export function parseInterval (text: string): { n: number, unit: typeof UNITS[number] } | null {
  const m = INTERVAL.exec(text)
  if (m === null) return null
  const n = Number(m[1])
  return n >= 1 && n <= 50 ? { n, unit: m[2] as typeof UNITS[number] } : null
}

const UNIT_MS = { hour: HOUR, day: DAY, month: 30 * DAY, year: 365 * DAY }

/** How many buckets of `interval` the range holds, bounded by the endpoint's maximum size. */
export function bucketCount (range: TimeRange, interval: string): number {
  const i = parseInterval(interval)
  if (i === null) return 100
  return Math.min(MAX_POINTS, Math.max(1, Math.ceil((range.to - range.from) / (i.n * UNIT_MS[i.unit])) + 1))
}

export interface ChartRequest {
  uid: string
  dataId: string
  range: TimeRange
  /** null: raw points; otherwise the aggregation. */
  aggregate: { interval: string, fn: string } | null
}

/** The path and query of the request that answers a chart. */
export function chartQuery (r: ChartRequest): { path: string, query: Record<string, string | number> } {
  const base = { targetIds: r.uid, dataIds: r.dataId, from: r.range.from, to: r.range.to }
  if (r.aggregate === null) return { path: '/api/v1/systems/data/raw', query: { ...base, size: MAX_POINTS } }
  return {
    path: '/api/v1/systems/data/aggregated',
    query: { ...base, interval: r.aggregate.interval, fn: r.aggregate.fn, size: bucketCount(r.range, r.aggregate.interval) }
  }
}

/** uPlot's shape: x in seconds ascending, and the values (null where there is none). */
export interface Series { xs: number[], ys: Array<number | null> }

/** A value uPlot can draw: numbers, and text that is a number; anything else is a gap. */
export function numeric (v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v)
    return Number.isFinite(n) ? n : null
  }
  return null
}

/** The series of one system's data id in an answer (most recent first) in time order, one point per time. */
export function seriesOf (answer: PointsAnswer, uid: string, dataId: string): Series {
  const points = answer[uid]?.[dataId] ?? []
  const byTs = new Map<number, number | null>()
  for (const p of points) if (Number.isFinite(p.ts) && !byTs.has(p.ts)) byTs.set(p.ts, numeric(p.v))
  const ts = [...byTs.keys()].sort((a, b) => a - b)
  return { xs: ts.map((t) => t / 1000), ys: ts.map((t) => byTs.get(t) ?? null) }
}

/**
 * The span a chart shows: the range asked for, widened to the series' points. An aggregation's buckets start at
 * their interval's boundaries, so the first one starts before the range (the last hour's at the full hour): shown
 * as the range alone, it was counted but drawn off the chart's left edge.
 */
export function shownSpan (range: TimeRange, s: Series): TimeRange {
  const first = s.xs[0]
  const last = s.xs[s.xs.length - 1]
  return {
    from: first === undefined ? range.from : Math.min(range.from, first * 1000),
    to: last === undefined ? range.to : Math.max(range.to, last * 1000)
  }
}

/** Whether a series has anything to draw (a text data id gives only gaps: the page lists it instead). */
export const drawable = (s: Series): boolean => s.ys.some((y) => y !== null)

/**
 * A live point added to a raw series: in time order, replacing a point of the same time, dropping what falls out
 * of the range's start (which moves with now) and keeping at most MAX_POINTS.
 */
export function appendPoint (s: Series, ts: number, v: unknown, from: number): Series {
  const x = ts / 1000
  const xs = [...s.xs]
  const ys = [...s.ys]
  let i = xs.length
  while (i > 0 && (xs[i - 1] ?? 0) > x) i--
  if (i > 0 && xs[i - 1] === x) ys[i - 1] = numeric(v)
  else { xs.splice(i, 0, x); ys.splice(i, 0, numeric(v)) }
  let drop = 0
  while (drop < xs.length && (xs[drop] ?? 0) < from / 1000) drop++
  drop = Math.max(drop, xs.length - MAX_POINTS)
  return { xs: xs.slice(drop), ys: ys.slice(drop) }
}

/** The answer of GET /systems/{uid}/data (the OpenAPI document): data id → its last point. */
export type LastValues = Record<string, Array<{ value: unknown, timestamp: number }> | undefined>

/**
 * The data id charted first, unless the address names one (`?chart=<id>`): a number, the most recently sent,
 * application data before the device-management ids (_RSSI...) and before settings (`config.*`), then by name.
 */
export function firstChart (last: LastValues): string | null {
  const ts = (id: string): number => last[id]?.[0]?.timestamp ?? 0
  const ids = Object.keys(last).sort((a, b) => a.localeCompare(b))
  const numbers = ids.filter((id) => typeof last[id]?.[0]?.value === 'number')
  const app = numbers.filter((id) => !id.startsWith('_') && !id.startsWith('config.'))
  const pool = app.length > 0 ? app : numbers
  const latest = Math.max(...pool.map(ts))
  return pool.find((id) => ts(id) === latest) ?? ids[0] ?? null
}
