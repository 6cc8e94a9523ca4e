// Values by LwM2M data type (OMA-TS-LightweightM2M-Core 1.1 Appendix C): checks for encoders, the type a bare
// JavaScript value suggests, Objlnk and Time conversions, base64. Nothing here throws.
import { MAX_ID, type LwM2mValue, type ObjectLink, type ValueType } from './types.js'

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n
export const UINT64_MAX = 2n ** 64n - 1n
/** The seconds a Date holds on either side of the epoch (8.64e15 ms). */
const MAX_TIME_SECONDS = 8.64e12

/** A bigint as the value type: a number while it is a safe integer, the bigint beyond. */
export const integerValue = (n: bigint): number | bigint =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n

/** An integer value as a bigint; undefined for a non-integer. */
export function asBigInt (v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
  return undefined
}

export const isObjectLink = (v: unknown): v is ObjectLink =>
  typeof v === 'object' && v !== null && !(v instanceof Date) && !(v instanceof Uint8Array) &&
  isId((v as ObjectLink).objectId) && isId((v as ObjectLink).instanceId)

const isId = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_ID

/** `3:0` → { objectId: 3, instanceId: 0 } (§7.3.1 text form, SenML `vlo`); undefined when malformed. */
export function parseObjectLink (text: string): ObjectLink | undefined {
  const m = /^(\d{1,5}):(\d{1,5})$/.exec(text)
  if (m === null) return undefined
  const link = { objectId: Number(m[1]), instanceId: Number(m[2]) }
  return isObjectLink(link) ? link : undefined
}

export const formatObjectLink = (link: ObjectLink): string => `${link.objectId}:${link.instanceId}`

/** Seconds since the epoch → Date; undefined beyond what a Date holds. */
export function timeFromSeconds (seconds: number | bigint): Date | undefined {
  const s = Number(seconds)
  if (!Number.isFinite(s) || Math.abs(s) > MAX_TIME_SECONDS) return undefined
  return new Date(Math.round(s * 1000))
}

/** A Date as whole seconds since the epoch (LwM2M Time), rounded down. */
export const timeToSeconds = (d: Date): number => Math.floor(d.getTime() / 1000)

/** Whether a value can be sent as this type (the encoders' check). */
export function fitsType (type: ValueType, v: LwM2mValue): boolean {
  switch (type) {
    case 'String':
    case 'Corelnk':
      return typeof v === 'string'
    case 'Integer': {
      const n = asBigInt(v)
      return n !== undefined && n >= INT64_MIN && n <= INT64_MAX
    }
    case 'Unsigned Integer': {
      const n = asBigInt(v)
      return n !== undefined && n >= 0n && n <= UINT64_MAX
    }
    case 'Float':
      return typeof v === 'number'
    case 'Boolean':
      return typeof v === 'boolean'
    case 'Opaque':
      return v instanceof Uint8Array
    case 'Time':
      return v instanceof Date && !Number.isNaN(v.getTime())
    case 'Objlnk':
      return isObjectLink(v)
  }
}

/** The type a bare value suggests, for a resource the object model does not know. */
export function guessType (v: LwM2mValue): ValueType {
  if (typeof v === 'string') return 'String'
  if (typeof v === 'boolean') return 'Boolean'
  if (typeof v === 'bigint') return v > INT64_MAX ? 'Unsigned Integer' : 'Integer'
  if (typeof v === 'number') return Number.isInteger(v) ? 'Integer' : 'Float'
  if (v instanceof Uint8Array) return 'Opaque'
  if (v instanceof Date) return 'Time'
  return 'Objlnk'
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Base64 in either alphabet (RFC 4648 §4 or §5), padded or not; undefined for anything else. */
export function decodeBase64 (text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined
  const bare = text.replace(/=+$/, '')
  if (bare.length % 4 === 1) return undefined
  if (text.length !== bare.length && text.length % 4 !== 0) return undefined
  return Buffer.from(bare.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
}
