// Device Messages → data points (docs/protocols/m3da.md). Each body key under the Message path
// is one data id (sys-paths.ts). A body of lists is correlated data: index i across the keys is one record, stamped by
// the `timestamp`/`timestamps` list (POSIX seconds) when there is one. A scalar `timestamp` stamps every value of its
// body; without one the values are stamped at reception. Pure and total: a body it cannot store is a refusal.
import type { DataPoint, DataValue } from '../../core/domain/device-message.js'
import { MAX_ID_LENGTH, MAX_POINTS } from '../../protocols/airvantage/index.js'
import { tooLong, unstorable } from '../../protocols/airvantage/text.js'
import { dataIdOf } from './sys-paths.js'

/** What a Message gives this module (protocols/m3da decodePayload's M3daMessage, vectors already expanded). */
export interface MessageLike { path: string | number, body: ReadonlyMap<string | number, unknown> }

export type PointsReason =
  | 'payload.invalid.path'
  | 'payload.invalid.value'
  | 'payload.invalid.string'
  | 'payload.id.too.long'
  | 'payload.invalid.timestamp'
  | 'payload.invalid.correlated'
  | 'payload.too.many.points'

export type PointsResult = { ok: true, points: DataPoint[] } | { ok: false, reason: PointsReason }

const TIME_KEYS = new Set(['timestamp', 'timestamps'])
// POSIX seconds up to year 5138 (the AirVantage codec bounds ms the same way): beyond is not a timestamp.
const MAX_SECONDS = 1e11

const isMap = (v: unknown): v is ReadonlyMap<string | number, unknown> => v instanceof Map

/** A primitive as stored: Bysant strings arrive as bytes (UTF-8), int64 beyond 2^53 as bigint (kept as text). */
function scalar (v: unknown): { ok: true, value: DataValue } | { ok: false, reason: PointsReason } {
  if (v === null || typeof v === 'boolean') return { ok: true, value: v }
  if (typeof v === 'number') return Number.isFinite(v) ? { ok: true, value: v } : { ok: false, reason: 'payload.invalid.value' }
  if (typeof v === 'bigint') return { ok: true, value: Number.isSafeInteger(Number(v)) ? Number(v) : v.toString() }
  const s = Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : undefined
  if (s === undefined) return { ok: false, reason: 'payload.invalid.value' }
  return unstorable(s) ? { ok: false, reason: 'payload.invalid.string' } : { ok: true, value: s }
}

function seconds (v: unknown): number | undefined {
  const n = typeof v === 'bigint' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_SECONDS ? Math.round(n * 1000) : undefined
}

/** Body keys flattened: a nested map's keys are further path parts (`{engine: {temp: 1}}` is `engine.temp`). */
function flatten (body: ReadonlyMap<string | number, unknown>, prefix: string, out: Array<[string, unknown]>, depth = 0): boolean {
  if (depth > 16) return false
  for (const [k, v] of body) {
    const key = prefix === '' ? String(k) : `${prefix}.${String(k)}`
    if (isMap(v)) { if (!flatten(v, key, out, depth + 1)) return false } else out.push([key, v])
  }
  return true
}

/** The points of one Message, appended to `out`; a refusal reason, or undefined when all went in. */
function messagePoints (m: MessageLike, receivedAt: number, out: DataPoint[]): PointsReason | undefined {
  const path = String(m.path)
  if (path.split('.').every((s) => s === '')) return 'payload.invalid.path'
  const entries: Array<[string, unknown]> = []
  if (!flatten(m.body, '', entries)) return 'payload.invalid.value'
  let stamp = receivedAt
  let stamps: number[] | undefined
  for (const [key, v] of entries) {
    if (!TIME_KEYS.has(key)) continue
    if (Array.isArray(v)) {
      const ms = v.map(seconds)
      if (ms.some((t) => t === undefined)) return 'payload.invalid.timestamp'
      stamps = ms as number[]
    } else {
      const t = seconds(v)
      if (t === undefined) return 'payload.invalid.timestamp'
      stamp = t
    }
  }
  const lists = entries.filter(([k, v]) => !TIME_KEYS.has(k) && Array.isArray(v)).map(([, v]) => (v as unknown[]).length)
  const rows = stamps?.length ?? lists[0]
  if (rows !== undefined && lists.some((n) => n !== rows)) return 'payload.invalid.correlated'
  for (const [key, v] of entries) {
    if (TIME_KEYS.has(key)) continue
    const dataId = dataIdOf(`${path}.${key}`)
    if (dataId === '' || tooLong(dataId, MAX_ID_LENGTH)) return dataId === '' ? 'payload.invalid.path' : 'payload.id.too.long'
    if (unstorable(dataId)) return 'payload.invalid.string'
    const values = Array.isArray(v) ? v : [v]
    for (const [i, raw] of values.entries()) {
      const s = scalar(raw)
      if (!s.ok) return s.reason
      if (out.length >= MAX_POINTS) return 'payload.too.many.points'
      out.push({ dataId, ts: Array.isArray(v) ? stamps?.[i] ?? stamp : stamp, value: s.value })
    }
  }
  return undefined
}

/** Every point of the device's Messages, in payload and body order; never throws. */
export function pointsOf (messages: readonly MessageLike[], receivedAt: number): PointsResult {
  const points: DataPoint[] = []
  for (const m of messages) {
    const refused = messagePoints(m, receivedAt, points)
    if (refused !== undefined) return { ok: false, reason: refused }
  }
  return { ok: true, points }
}
