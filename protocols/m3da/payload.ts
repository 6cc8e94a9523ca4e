// The objects of an envelope payload (docs/protocols/m3da.md): Messages and Responses back to back; vectors in
// Message bodies come out expanded into number lists.
import { bysantObject, decodeAll, encode, isBysantObject, type BysantValue, type Encodable, type MapKey } from '../bysant/index.js'
import { ClassId, M3DA_CLASSES } from './classes.js'
import { normalisePath } from './path.js'
import { expandDeltas, expandQuasiPeriodic, MAX_VECTOR_POINTS } from './vectors.js'

/** A Message; ticketId null means no acknowledgement wanted (the wire's null or 0, §2.3). */
export interface M3daMessage { kind: 'message', path: string | number, ticketId: number | null, body: Map<string | number, BysantValue> }
export interface M3daResponse { kind: 'response', ticketId: number, status: number, data: string | null }
export type M3daObject = M3daMessage | M3daResponse

export interface MessageToEncode {
  kind: 'message'
  path: string | number
  ticketId: number | null
  body: Record<string, Encodable> | Map<MapKey, Encodable>
}

// Bound once: under tsx an imported binding is read through a getter, felt on the per-message path.
const isObject = isBysantObject
const makeObject = bysantObject
const encodeValue = encode
const CLASSES = M3DA_CLASSES
const { Message: MESSAGE, Response: RESPONSE, DeltasVector: DELTAS, QuasiPeriodicVector: QUASI_PERIODIC } = ClassId

export type PayloadResult = { ok: true, objects: M3daObject[] } | { ok: false, reason: string }

/** The payload's objects; an empty payload and a lone `00` both mean none (§2.2: the Lua agent writes `00`). */
export function decodePayload (payload: Buffer): PayloadResult {
  if (payload.length === 0) return { ok: true, objects: [] }
  const all = decodeAll(payload, undefined, CLASSES)
  if (!all.ok) return all
  const objects: M3daObject[] = []
  const budget = { points: MAX_VECTOR_POINTS }
  for (const v of all.values) {
    if (v === null) continue
    const o = toObject(v, budget)
    if ('reason' in o) return { ok: false, reason: o.reason }
    objects.push(o)
  }
  return { ok: true, objects }
}

type Refused = { reason: string }

function toObject (v: BysantValue, budget: { points: number }): M3daObject | Refused {
  if (!isObject(v) || v.fields.length !== 3) return { reason: 'm3da.invalid.object' }
  const fields = v.fields as BysantValue[]
  if (v.classId === MESSAGE) return toMessage(fields, budget)
  if (v.classId === RESPONSE) return toResponse(fields)
  return { reason: 'm3da.invalid.object' }
}

function toMessage ([p, t, b]: BysantValue[], budget: { points: number }): M3daMessage | Refused {
  const path = typeof p === 'number' ? p : Buffer.isBuffer(p) ? normalisePath(p.toString('utf8')) : ''
  if (path === '') return { reason: 'm3da.invalid.path' } // §2.3: must not be null or empty
  if (t !== null && typeof t !== 'number') return { reason: 'm3da.invalid.ticket' }
  if (b !== null && !(b instanceof Map)) return { reason: 'm3da.invalid.body' }
  const body = b === null ? new Map<string | number, BysantValue>() : expand(b, budget)
  if (isRefused(body)) return body
  return { kind: 'message', path, ticketId: t === 0 ? null : t, body }
}

function toResponse ([t, s, d]: BysantValue[]): M3daResponse | Refused {
  if (typeof t !== 'number') return { reason: 'm3da.invalid.ticket' }
  const status = typeof s === 'bigint' ? Number(s) : s
  if (typeof status !== 'number' || !Number.isInteger(status)) return { reason: 'm3da.invalid.status' }
  if (d !== null && !Buffer.isBuffer(d)) return { reason: 'm3da.invalid.response' }
  return { kind: 'response', ticketId: t, status, data: d === null ? null : d.toString('utf8') }
}

/** Vectors anywhere in a body become number lists; other values are kept (and containers without one reused). */
function expand<T extends BysantValue> (v: T, budget: { points: number }): T | Refused {
  if (isObject(v)) {
    const fields = v.fields as BysantValue[]
    const r = v.classId === DELTAS
      ? expandDeltas(fields, budget.points)
      : v.classId === QUASI_PERIODIC ? expandQuasiPeriodic(fields, budget.points) : null
    if (r === null) return v
    if (!r.ok) return { reason: r.reason }
    budget.points -= r.values.length
    return r.values as T
  }
  if (Array.isArray(v)) {
    let out: BysantValue[] | null = null
    for (let i = 0; i < v.length; i++) {
      const x = expand(v[i] as BysantValue, budget)
      if (isRefused(x)) return x
      if (x !== v[i]) (out ??= v.slice())[i] = x
    }
    return (out ?? v) as T
  }
  if (v instanceof Map) {
    let out: Map<string | number, BysantValue> | null = null
    for (const [k, item] of v as Map<string | number, BysantValue>) {
      const x = expand(item, budget)
      if (isRefused(x)) return x
      if (x !== item) (out ??= new Map(v as Map<string | number, BysantValue>)).set(k, x)
    }
    return (out ?? v) as T
  }
  return v
}

const isRefused = (x: unknown): x is Refused =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Map) && !Buffer.isBuffer(x) && !isObject(x) && 'reason' in x

/** Messages and Responses back to back, as the payload of an envelope. */
export function encodePayload (objects: ReadonlyArray<MessageToEncode | M3daResponse>): Buffer {
  return Buffer.concat(objects.map(o => encodeValue(o.kind === 'message'
    ? makeObject(MESSAGE, [o.path, o.ticketId, o.body])
    : makeObject(RESPONSE, [o.ticketId, o.status, o.data]), undefined, CLASSES)))
}
