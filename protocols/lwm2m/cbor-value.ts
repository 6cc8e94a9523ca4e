// One value as a CBOR data item (content format 60, OMA-TS-LightweightM2M-Core 1.1 §7.3.3), for a single resource
// or resource instance: integers, floats, text, byte strings and booleans as themselves, Time as an epoch-based
// date (tag 1, seconds), Objlnk and Corelnk as text. Decoded by cbor2; tags 0 and 1 come out as Dates.
import { decode, encode, Tag } from 'cbor2'
import { INT64_MAX, INT64_MIN, UINT64_MAX, asBigInt, formatObjectLink, guessType, integerValue, parseObjectLink, timeFromSeconds, timeToSeconds } from './values.js'
import { plainBytes } from './senml-cbor.js'
import type { Decoded, LwM2mValue, ObjectLink, ValueType } from './types.js'

const INVALID = { ok: false, reason: 'lwm2m.cbor.invalid' } as const
const MISMATCH = { ok: false, reason: 'lwm2m.cbor.type.mismatch' } as const

function integerOf (item: unknown, min: bigint, max: bigint): Decoded<{ value: LwM2mValue }> {
  const n = asBigInt(item)
  return n === undefined || n < min || n > max ? MISMATCH : { ok: true, value: integerValue(n) }
}

function typed (type: ValueType, item: unknown): Decoded<{ value: LwM2mValue }> {
  switch (type) {
    case 'String':
    case 'Corelnk':
      return typeof item === 'string' ? { ok: true, value: item } : MISMATCH
    case 'Integer':
      return integerOf(item, INT64_MIN, INT64_MAX)
    case 'Unsigned Integer':
      return integerOf(item, 0n, UINT64_MAX)
    case 'Float':
      return typeof item === 'number' || typeof item === 'bigint' ? { ok: true, value: Number(item) } : MISMATCH
    case 'Boolean':
      return typeof item === 'boolean' ? { ok: true, value: item } : MISMATCH
    case 'Opaque':
      return item instanceof Uint8Array ? { ok: true, value: Buffer.from(item) } : MISMATCH
    case 'Time': {
      if (item instanceof Date) return Number.isNaN(item.getTime()) ? MISMATCH : { ok: true, value: item }
      const d = typeof item === 'number' || typeof item === 'bigint' ? timeFromSeconds(item) : undefined
      return d === undefined ? MISMATCH : { ok: true, value: d }
    }
    case 'Objlnk': {
      const link = typeof item === 'string' ? parseObjectLink(item) : undefined
      return link === undefined ? MISMATCH : { ok: true, value: link }
    }
  }
}

const isScalar = (item: unknown): item is LwM2mValue =>
  ['string', 'number', 'bigint', 'boolean'].includes(typeof item) || item instanceof Uint8Array || item instanceof Date

/** The value of a CBOR payload, typed by `type`, or by the CBOR item when the model has none. */
export function decodeCborValue (payload: Uint8Array, type: ValueType | undefined): Decoded<{ value: LwM2mValue, type: ValueType }> {
  let item: unknown
  try {
    item = decode(payload, { maxDepth: 1 })
  } catch {
    return INVALID
  }
  if (!isScalar(item)) return INVALID
  const t = type ?? guessType(item)
  const v = typed(t, item)
  return v.ok ? { ok: true, value: v.value, type: t } : v
}

/** The CBOR item of a value the caller checked with fitsType. Floats stay floats on the wire (Leshan insists). */
export function encodeCborValue (type: ValueType, v: LwM2mValue): Buffer {
  switch (type) {
    case 'Time':
      return Buffer.from(encode(new Tag(1, timeToSeconds(v as Date))))
    case 'Objlnk':
      return Buffer.from(encode(formatObjectLink(v as ObjectLink)))
    case 'Float':
      return Buffer.from(encode(v, { avoidInts: true }))
    case 'Opaque':
      return Buffer.from(encode(plainBytes(v as Uint8Array)))
    default:
      return Buffer.from(encode(v))
  }
}
