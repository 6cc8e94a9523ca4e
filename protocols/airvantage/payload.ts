// AirVantage data payloads (docs/protocols/mqtt.md, docs/devices.md): the three JSON forms, decoded
// into points in payload order. Pure and total: every input answers a result, nothing throws.
import { MAX_POINTS, type DataValue, type Point, type Refusal } from './types.js'
import { isRecord, parseJson, tooLong, unstorable, type TextReason } from './text.js'

/** list: `[{"id": [{"timestamp", "value"}]}]`; timestamp-keyed: `{"<ms>": {"id": v}}`; flat: `{"id": v}`. */
export type DataForm = 'list' | 'timestamp-keyed' | 'flat'

export type DataReason = TextReason
  | 'payload.invalid.shape'
  | 'payload.id.empty'
  | 'payload.id.too.long'
  | 'payload.invalid.string'
  | 'payload.invalid.value'
  | 'payload.value.not.finite'
  | 'payload.invalid.timestamp'
  | 'payload.too.many.points'

export type DecodedData = { ok: true, form: DataForm, points: Point[] } | Refusal<DataReason>

export interface DecodeDataOptions {
  /** Server time of reception (ms): stamps flat payloads and points whose timestamp is null, absent or empty. */
  receivedAt: number
  /** REST `Device-REST-Version: 2` (docs/devices.md): read an object as timestamp-keyed whatever its keys. */
  timestampKeyed?: boolean
}

// Timestamps are ms (docs/protocols/mqtt.md). Devices without a ms clock send seconds or microseconds; the ranges do
// not overlap for dates between 1973 and 5138: below 1e11 is seconds, above 1e14 is microseconds.
const SECONDS_BELOW = 1e11
const MICROS_ABOVE = 1e14
const MICROS_MAX = 1e17
const DIGITS = /^\d+$/

/** ms since epoch from a device timestamp, or undefined when it is not one (negative, not finite, too large). */
export function normaliseTimestamp (t: number): number | undefined {
  if (!Number.isFinite(t) || t < 0 || t > MICROS_MAX) return undefined
  if (t < SECONDS_BELOW) return Math.round(t * 1000)
  if (t > MICROS_ABOVE) return Math.round(t / 1000)
  return Math.round(t)
}

/** Decodes one data payload. Points keep payload order; repeated points are kept (they count in nbDataPoints). */
export function decodeData (input: Buffer | Uint8Array | string, opts: DecodeDataOptions): DecodedData {
  const parsed = parseJson(input)
  if (!parsed.ok) return parsed
  const { json } = parsed
  const points: Point[] = []
  let form: DataForm
  let refused: DataReason | undefined
  if (Array.isArray(json)) {
    form = 'list'
    refused = readList(json, opts.receivedAt, points)
  } else if (isRecord(json)) {
    form = opts.timestampKeyed === true || Object.keys(json).every((k) => DIGITS.test(k)) ? 'timestamp-keyed' : 'flat'
    refused = form === 'flat' ? readEntries(json, opts.receivedAt, points) : readKeyed(json, points)
  } else {
    return { ok: false, reason: 'payload.invalid.shape' }
  }
  if (refused !== undefined) return { ok: false, reason: refused }
  if (points.length === 0) return { ok: false, reason: 'payload.empty' }
  return { ok: true, form, points }
}

function readList (list: unknown[], receivedAt: number, out: Point[]): DataReason | undefined {
  for (const element of list) {
    if (!isRecord(element)) return 'payload.invalid.shape'
    for (const [dataId, series] of Object.entries(element)) {
      const bad = checkId(dataId)
      if (bad !== undefined) return bad
      if (!Array.isArray(series)) return 'payload.invalid.shape'
      for (const item of series) {
        if (!isRecord(item) || !('value' in item)) return 'payload.invalid.shape'
        const ts = listTimestamp(item.timestamp, receivedAt)
        if (ts === undefined) return 'payload.invalid.timestamp'
        const refused = push(out, dataId, ts, item.value)
        if (refused !== undefined) return refused
      }
    }
  }
  return undefined
}

/**
 * List-form timestamps may be null (docs/protocols/mqtt.md), absent or an empty string (the HL-series gateways send
 * `"timestamp": ""`): the point is stamped on receipt (docs/devices.md). Any other string is refused.
 */
function listTimestamp (t: unknown, receivedAt: number): number | undefined {
  if (t === null || t === undefined || (typeof t === 'string' && t.trim() === '')) return receivedAt
  return typeof t === 'number' ? normaliseTimestamp(t) : undefined
}

function readKeyed (json: Record<string, unknown>, out: Point[]): DataReason | undefined {
  for (const [key, entry] of Object.entries(json)) {
    const ts = DIGITS.test(key) ? normaliseTimestamp(Number(key)) : undefined
    if (ts === undefined) return 'payload.invalid.timestamp'
    if (!isRecord(entry)) return 'payload.invalid.shape'
    const refused = readEntries(entry, ts, out)
    if (refused !== undefined) return refused
  }
  return undefined
}

function readEntries (entries: Record<string, unknown>, ts: number, out: Point[]): DataReason | undefined {
  for (const [dataId, value] of Object.entries(entries)) {
    const refused = checkId(dataId) ?? push(out, dataId, ts, value)
    if (refused !== undefined) return refused
  }
  return undefined
}

function checkId (dataId: string): DataReason | undefined {
  if (dataId.trim() === '') return 'payload.id.empty'
  if (tooLong(dataId)) return 'payload.id.too.long'
  if (unstorable(dataId)) return 'payload.invalid.string'
  return undefined
}

function push (out: Point[], dataId: string, ts: number, value: unknown): DataReason | undefined {
  const refused = checkValue(value)
  if (refused !== undefined) return refused
  if (out.length >= MAX_POINTS) return 'payload.too.many.points'
  out.push({ dataId, ts, value: value as DataValue })
  return undefined
}

/** Scalars only: an object or array value is a malformed payload, not a value to store as JSON text. */
function checkValue (v: unknown): DataReason | undefined {
  if (v === null || typeof v === 'boolean') return undefined
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : 'payload.value.not.finite' // 1e999 parses to Infinity
  if (typeof v === 'string') return unstorable(v) ? 'payload.invalid.string' : undefined
  return 'payload.invalid.value'
}

/**
 * Encodes points as a data payload (for the simulator and tests). The list form keeps every point and its order
 * (consecutive points of one id share an element); timestamp-keyed keeps the last value per (ts, id); flat keeps
 * the last value per id and drops timestamps.
 */
export function encodeData (points: readonly Point[], form: DataForm = 'list'): string {
  if (form === 'list') return JSON.stringify(encodeList(points))
  const out: Record<string, unknown> = Object.create(null) // a "__proto__" id stays an ordinary key
  for (const p of points) {
    if (form === 'flat') {
      out[p.dataId] = p.value
    } else {
      const key = String(p.ts)
      const entry = (out[key] ??= Object.create(null)) as Record<string, DataValue>
      entry[p.dataId] = p.value
    }
  }
  return JSON.stringify(out)
}

function encodeList (points: readonly Point[]): Array<Record<string, Array<{ timestamp: number, value: DataValue }>>> {
  const list: Array<Record<string, Array<{ timestamp: number, value: DataValue }>>> = []
  let lastId: string | undefined
  let series: Array<{ timestamp: number, value: DataValue }> = []
  for (const p of points) {
    if (p.dataId !== lastId) {
      series = []
      const element = Object.create(null) as Record<string, typeof series>
      element[p.dataId] = series
      list.push(element)
      lastId = p.dataId
    }
    series.push({ timestamp: p.ts, value: p.value })
  }
  return list
}
