// One value as text (OMA-TS-LightweightM2M-Core 1.1 §7.3.1 Plain Text, Appendix C): integers in decimal, Float in
// decimal or exponent notation, Boolean "0"/"1", Time the seconds since the epoch, Objlnk "3:0", Opaque base64
// (RFC 4648 §4; the Opaque content format, 42, is the way to send raw bytes), String and Corelnk as they are.
import {
  INT64_MAX, INT64_MIN, UINT64_MAX, decodeBase64, formatObjectLink, integerValue, parseObjectLink, timeFromSeconds,
  timeToSeconds
} from './values.js'
import type { Decoded, LwM2mValue, ObjectLink, ValueType } from './types.js'

const MISMATCH = { ok: false, reason: 'lwm2m.text.invalid' } as const
const FLOAT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

function integerFrom (text: string, min: bigint, max: bigint): Decoded<{ value: LwM2mValue }> {
  if (!/^[-+]?\d{1,20}$/.test(text)) return MISMATCH
  const n = BigInt(text)
  return n < min || n > max ? MISMATCH : { ok: true, value: integerValue(n) }
}

/** The typed value of a text payload. */
export function valueFromText (type: ValueType, text: string): Decoded<{ value: LwM2mValue }> {
  switch (type) {
    case 'String':
    case 'Corelnk':
      return { ok: true, value: text }
    case 'Integer':
      return integerFrom(text, INT64_MIN, INT64_MAX)
    case 'Unsigned Integer':
      return integerFrom(text, 0n, UINT64_MAX)
    case 'Float':
      return FLOAT.test(text) && text.length <= 400 ? { ok: true, value: Number(text) } : MISMATCH
    case 'Boolean':
      return text === '0' || text === '1' ? { ok: true, value: text === '1' } : MISMATCH
    case 'Time': {
      if (!/^-?\d{1,16}$/.test(text)) return MISMATCH
      const d = timeFromSeconds(Number(text))
      return d === undefined ? { ok: false, reason: 'lwm2m.value.time.range' } : { ok: true, value: d }
    }
    case 'Objlnk': {
      const link = parseObjectLink(text)
      return link === undefined ? MISMATCH : { ok: true, value: link }
    }
    case 'Opaque': {
      const bytes = decodeBase64(text)
      return bytes === undefined ? MISMATCH : { ok: true, value: bytes }
    }
  }
}

/** The text of a value the caller checked with fitsType; undefined for a Float text cannot carry (NaN, ±∞). */
export function valueToText (type: ValueType, v: LwM2mValue): string | undefined {
  switch (type) {
    case 'String':
    case 'Corelnk':
      return v as string
    case 'Integer':
    case 'Unsigned Integer':
      return String(v)
    case 'Float':
      return Number.isFinite(v) ? String(v) : undefined
    case 'Boolean':
      return v === true ? '1' : '0'
    case 'Time':
      return String(timeToSeconds(v as Date))
    case 'Objlnk':
      return formatObjectLink(v as ObjectLink)
    case 'Opaque':
      return Buffer.from(v as Uint8Array).toString('base64')
  }
}
