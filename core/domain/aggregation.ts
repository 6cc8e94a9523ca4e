// Temporal aggregation of data points (docs/devices.md;
// docs/devices.md): the interval syntax, the folding functions and calendar buckets in UTC.
import { FleetError } from '../errors.js'

export const TIMESCALES = ['hour', 'day', 'month', 'year'] as const
export type Timescale = typeof TIMESCALES[number]
export interface Interval { n: number, unit: Timescale }

/** docs/devices.md: interval default 1hour; §Limits: multiplier 1 to 50. */
export const DEFAULT_INTERVAL: Interval = { n: 1, unit: 'hour' }
export const MAX_MULTIPLIER = 50
/** What an interval error tells the caller (the last error parameter says how to fix the request). */
export const INTERVAL_FORM = `<n><unit>: n from 1 to ${MAX_MULTIPLIER}, unit ${TIMESCALES.join(', ')} (e.g. 1hour, 7day, 1month)`
/** The interval syntax as a pattern, for the API document (1 to 49 spelled out, then MAX_MULTIPLIER: a unit test checks it against parseInterval). */
export const INTERVAL_PATTERN = `^([1-9]|[1-4][0-9]|${MAX_MULTIPLIER})(${TIMESCALES.join('|')})$`

/**
 * `<n><unit>` (docs/devices.md), unit case-insensitive; absent or empty: 1hour. The multiplier is read
 * first, so a value with both parts wrong answers aggregation.invalid.multiplier.
 * @throws FleetError aggregation.invalid.multiplier (missing, not an integer, below 1 or above 50),
 *   aggregation.invalid.timescale (unit not hour, day, month, year)
 */
export function parseInterval (v: string | undefined): Interval {
  if (v === undefined || v.trim() === '') return DEFAULT_INTERVAL
  const m = /^\s*([+-]?[\d.]*)\s*(.*?)\s*$/.exec(v)
  const digits = m?.[1] ?? ''
  const unit = (m?.[2] ?? '').toLowerCase()
  const n = digits === '' ? NaN : Number(digits)
  if (!Number.isInteger(n) || n < 1 || n > MAX_MULTIPLIER) throw new FleetError('aggregation.invalid.multiplier', [v, INTERVAL_FORM])
  const scale = TIMESCALES.find((t) => t === unit)
  if (scale === undefined) throw new FleetError('aggregation.invalid.timescale', [v, INTERVAL_FORM])
  return { n, unit: scale }
}

/** docs/devices.md: the folding functions of `fn` and `fleetFn`. */
export const AGGREGATE_FNS = ['mean', 'min', 'max', 'sum', 'stddev', 'ss', 'cnt'] as const
export type AggregateFn = typeof AGGREGATE_FNS[number]
// A Map, not an object: `fn=__proto__` or `fn=constructor` must find nothing, not Object.prototype's members.
const FN_ALIASES: ReadonlyMap<string, AggregateFn> = new Map([['count', 'cnt'], ['standarddeviation', 'stddev']])
/** Every value `fn` and `fleetFn` take: the functions, then their aliases (the API document's list). */
export const AGGREGATE_FN_NAMES: readonly string[] = [...AGGREGATE_FNS, ...FN_ALIASES.keys()]
/** The function used when a request names none. */
export const DEFAULT_AGGREGATE_FN: AggregateFn = 'mean'
const FN_FORM = `one of ${AGGREGATE_FNS.join(', ')} (or ${[...FN_ALIASES.keys()].join(', ')})`

/**
 * mean by default; `count` and `standarddeviation` are aliases (docs/devices.md). docs/api.md names no code
 * for an unknown function: request.invalid with the parameter name, the value and the functions there are.
 * @throws FleetError request.invalid
 */
export function parseFn (v: string | undefined, param: 'fn' | 'fleetFn'): AggregateFn {
  if (v === undefined || v === '') return DEFAULT_AGGREGATE_FN
  const key = v.trim().toLowerCase()
  const fn = AGGREGATE_FNS.find((f) => f === key) ?? FN_ALIASES.get(key)
  if (fn === undefined) throw new FleetError('request.invalid', [param, v, FN_FORM])
  return fn
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

const floorMod = (a: number, b: number): number => ((a % b) + b) % b

/** Months since 1970-01 of a month/year bucket width. */
function monthsOf (iv: Interval): number {
  return iv.unit === 'year' ? 12 * iv.n : iv.n
}

/**
 * The start of the bucket holding ts. Buckets are aligned in UTC on multiples counted from the epoch
 * (1970-01-01 00:00 UTC): hours and days on multiples of their width in ms; months and years on multiples of
 * their width in months since January 1970, so a month bucket starts on the 1st at 00:00 UTC, a `2month`
 * bucket in January, March, May..., a `1year` bucket on January 1st, a `2year` bucket on even years.
 */
export function bucketStart (ts: number, iv: Interval): number {
  if (iv.unit === 'hour' || iv.unit === 'day') {
    const width = iv.n * (iv.unit === 'hour' ? HOUR_MS : DAY_MS)
    return ts - floorMod(ts, width)
  }
  const d = new Date(ts)
  const index = (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth()
  return Date.UTC(1970, index - floorMod(index, monthsOf(iv)), 1)
}

/** The start of the bucket following the one that starts at `start`. */
export function bucketEnd (start: number, iv: Interval): number {
  if (iv.unit === 'hour') return start + iv.n * HOUR_MS
  if (iv.unit === 'day') return start + iv.n * DAY_MS
  const d = new Date(start)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + monthsOf(iv), 1)
}

/**
 * The buckets to answer for [from, to), oldest first: the bucket holding `to - 1` and those before it, down to
 * the bucket holding `from`, at most `size` of them (docs/devices.md: most recent first,
 * size per system and data). Every bucket of the range is listed, empty or not. With no `from` (its default is
 * null) the answer is simply the `size` buckets that end at `to`. The first bucket may start before `from`: it
 * keeps its calendar start as its timestamp and only the points from `from` on count.
 */
export function bucketsOf (from: number | null, to: number, iv: Interval, size: number): number[] {
  const out: number[] = []
  if (size <= 0 || (from !== null && to <= from)) return out
  let b = bucketStart(to - 1, iv)
  while (Number.isFinite(b) && out.length < size) {
    out.push(b)
    if (from !== null && b <= from) break
    b = bucketStart(b - 1, iv)
  }
  return out.reverse()
}

/** `now minus k months` (docs/api.md#limits, default time range), clamped to the last day of a shorter month. */
export function minusMonths (ts: number, k: number): number {
  const d = new Date(ts)
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth() - k
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds())
}

// docs/usage.md: counters computed from usage records. Each record is one point of the
// series (its value below, its date as docs/api.md says) and `fn` folds them like any other point.
export type UsageRecordType = 'DATA' | 'SMS_SENT' | 'SMS_RECEIVED' | 'VOICE_IN' | 'VOICE_OUT' | 'MSU'

/**
 * What a usage record contributes: `session` 1 on the first record of a session (interim DATA records share the
 * session uid, so a session counts once, at its start); `count` 1 per record; `duration` end − start in seconds;
 * `roundedDuration` / `roundedBytesTotal` the billed (rounded) values; the byte counters as recorded (interim
 * records carry the volume of their own period, so they add up).
 */
export type UsageMeasure = 'session' | 'count' | 'duration' | 'roundedDuration' | 'bytesSent' | 'bytesReceived' |
  'bytesTotal' | 'roundedBytesTotal'

/** `start`: the session start date; `invoiced`: when the session end was processed (else its end, else start). */
export interface UsageSeries { type: UsageRecordType, measure: UsageMeasure, date: 'start' | 'invoiced' }

const usage = (type: UsageRecordType, measure: UsageMeasure, date: 'start' | 'invoiced' = 'start'): UsageSeries => ({ type, measure, date })

export const USAGE_DATA_IDS: Readonly<Record<string, UsageSeries>> = Object.freeze({
  DATA_SESSION: usage('DATA', 'session'),
  DATA_DURATION: usage('DATA', 'duration'),
  DATA_BYTES_SENT: usage('DATA', 'bytesSent'),
  DATA_BYTES_RECEIVED: usage('DATA', 'bytesReceived'),
  DATA_BYTES_TOTAL: usage('DATA', 'bytesTotal'),
  INVOICED_DATA_BYTES_TOTAL: usage('DATA', 'roundedBytesTotal', 'invoiced'),
  VOICE_IN_SESSION: usage('VOICE_IN', 'session'),
  VOICE_IN_DURATION: usage('VOICE_IN', 'duration'),
  INVOICED_VOICE_IN_DURATION: usage('VOICE_IN', 'roundedDuration', 'invoiced'),
  VOICE_OUT_SESSION: usage('VOICE_OUT', 'session'),
  VOICE_OUT_DURATION: usage('VOICE_OUT', 'duration'),
  INVOICED_VOICE_OUT_DURATION: usage('VOICE_OUT', 'roundedDuration', 'invoiced'),
  SMS_SENT: usage('SMS_SENT', 'count'),
  INVOICED_SMS_SENT: usage('SMS_SENT', 'count', 'invoiced'),
  SMS_RECEIVED: usage('SMS_RECEIVED', 'count'),
  INVOICED_SMS_RECEIVED: usage('SMS_RECEIVED', 'count', 'invoiced'),
  MSU: usage('MSU', 'count'),
  INVOICED_MSU: usage('MSU', 'count', 'invoiced')
})

export function isUsageDataId (id: string): boolean {
  return Object.hasOwn(USAGE_DATA_IDS, id)
}
