// Option numbers and their rules (RFC 7252 §5.4, §5.10, §12.2; RFC 7641 §2; RFC 7959 §2.1, §4).
import type { CoapMessage, CoapOption } from './types.js'

export const OptionNumber = {
  IfMatch: 1,
  UriHost: 3,
  ETag: 4,
  IfNoneMatch: 5,
  Observe: 6,
  UriPort: 7,
  LocationPath: 8,
  UriPath: 11,
  ContentFormat: 12,
  MaxAge: 14,
  UriQuery: 15,
  Accept: 17,
  LocationQuery: 20,
  Block2: 23,
  Block1: 27,
  Size2: 28,
  ProxyUri: 35,
  ProxyScheme: 39,
  Size1: 60
} as const

export type OptionFormat = 'empty' | 'opaque' | 'uint' | 'string'

interface OptionRule { format: OptionFormat, min: number, max: number, repeatable: boolean }

const rule = (format: OptionFormat, min: number, max: number, repeatable = false): OptionRule => ({ format, min, max, repeatable })

/** The format and length range of each option we know (§5.10 table 4, RFC 7641 §2, RFC 7959 §2.1 and §4). */
export const OPTION_RULES: ReadonlyMap<number, OptionRule> = new Map([
  [OptionNumber.IfMatch, rule('opaque', 0, 8, true)],
  [OptionNumber.UriHost, rule('string', 1, 255)],
  [OptionNumber.ETag, rule('opaque', 1, 8, true)],
  [OptionNumber.IfNoneMatch, rule('empty', 0, 0)],
  [OptionNumber.Observe, rule('uint', 0, 3)],
  [OptionNumber.UriPort, rule('uint', 0, 2)],
  [OptionNumber.LocationPath, rule('string', 0, 255, true)],
  [OptionNumber.UriPath, rule('string', 0, 255, true)],
  [OptionNumber.ContentFormat, rule('uint', 0, 2)],
  [OptionNumber.MaxAge, rule('uint', 0, 4)],
  [OptionNumber.UriQuery, rule('string', 0, 255, true)],
  [OptionNumber.Accept, rule('uint', 0, 2)],
  [OptionNumber.LocationQuery, rule('string', 0, 255, true)],
  [OptionNumber.Block2, rule('uint', 0, 3)],
  [OptionNumber.Block1, rule('uint', 0, 3)],
  [OptionNumber.Size2, rule('uint', 0, 4)],
  [OptionNumber.ProxyUri, rule('string', 1, 1034)],
  [OptionNumber.ProxyScheme, rule('string', 1, 255)],
  [OptionNumber.Size1, rule('uint', 0, 4)]
])

/** §5.4.6: odd numbers are critical, bit 1 set is unsafe to forward, 0x1c in bits 1–4 is NoCacheKey. */
export const isCritical = (n: number): boolean => (n & 1) === 1
export const isUnsafe = (n: number): boolean => (n & 2) === 2
export const isNoCacheKey = (n: number): boolean => (n & 0x1e) === 0x1c

/** §3.2 uint: big-endian in as few bytes as possible, 0 is the empty value. */
export function encodeUint (value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`uint option value out of range: ${value}`)
  const bytes: number[] = []
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256)
  return Buffer.from(bytes)
}

/** Reads a uint of any length (leading zero bytes are tolerated, §3.2 only asks senders to be minimal). */
export function decodeUint (value: Buffer): number {
  let n = 0
  for (const b of value) n = n * 256 + b
  return n
}

export const getOption = (msg: Pick<CoapMessage, 'options'>, n: number): Buffer | undefined =>
  msg.options.find((o) => o.number === n)?.value

export const getOptions = (msg: Pick<CoapMessage, 'options'>, n: number): Buffer[] =>
  msg.options.filter((o) => o.number === n).map((o) => o.value)

export function getUintOption (msg: Pick<CoapMessage, 'options'>, n: number): number | undefined {
  const v = getOption(msg, n)
  return v === undefined ? undefined : decodeUint(v)
}

export const hasOption = (msg: Pick<CoapMessage, 'options'>, n: number): boolean => msg.options.some((o) => o.number === n)

/** A copy without option n. */
export const withoutOption = (options: readonly CoapOption[], n: number): CoapOption[] => options.filter((o) => o.number !== n)

/** A copy where option n has exactly these values (numbers are encoded as uint), kept sorted by number. */
export function withOption (options: readonly CoapOption[], n: number, value: Buffer | number | string | ReadonlyArray<Buffer | string>): CoapOption[] {
  const values = Array.isArray(value) ? value : [value]
  const added = values.map((v: Buffer | number | string) => ({ number: n, value: toOptionValue(v) }))
  return sortOptions([...withoutOption(options, n), ...added])
}

function toOptionValue (v: Buffer | number | string): Buffer {
  if (typeof v === 'number') return encodeUint(v)
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v
}

/** Stable sort by number: repeated options keep their order, which carries meaning (§5.4.5). */
export const sortOptions = (options: CoapOption[]): CoapOption[] => options.sort((a, b) => a.number - b.number)

/** Uri-Path options for "/a/b" (an empty path, or "/", has none; §6.4 step 8). */
export function pathOptions (path: string): CoapOption[] {
  const segments = path.split('/').filter((s, i, all) => !(s === '' && (i === 0 || i === all.length - 1)))
  return segments.map((s) => ({ number: OptionNumber.UriPath, value: Buffer.from(s, 'utf8') }))
}

/** Uri-Query options, one per "k=v" item. */
export const queryOptions = (items: readonly string[]): CoapOption[] =>
  items.map((q) => ({ number: OptionNumber.UriQuery, value: Buffer.from(q, 'utf8') }))

/** "/a/b" from the Uri-Path options ("/" when there is none). */
export const uriPathOf = (msg: Pick<CoapMessage, 'options'>): string =>
  '/' + getOptions(msg, OptionNumber.UriPath).map((v) => v.toString('utf8')).join('/')

export const uriQueryOf = (msg: Pick<CoapMessage, 'options'>): string[] =>
  getOptions(msg, OptionNumber.UriQuery).map((v) => v.toString('utf8'))

/**
 * The first critical option the receiver must refuse (§5.4.1): unknown, of a length outside its range (§5.4.3), or
 * repeated when it is not repeatable (§5.4.5). Elective ones in the same case are simply ignored, so never returned.
 */
export function findBadCriticalOption (msg: Pick<CoapMessage, 'options'>, known: ReadonlyMap<number, OptionRule> = OPTION_RULES): number | undefined {
  let previous = -1
  for (const o of msg.options) {
    const r = known.get(o.number)
    const repeated = o.number === previous
    previous = o.number
    if (!isCritical(o.number)) continue
    if (r === undefined || o.value.length < r.min || o.value.length > r.max || (repeated && !r.repeatable)) return o.number
  }
  return undefined
}
