// TLV values by data type (OMA-TS-LightweightM2M-Core 1.1 §7.4.3 and Appendix C): integers and Time signed
// big-endian on 1, 2, 4 or 8 bytes, Unsigned Integer likewise unsigned, Float IEEE 754 on 4 or 8 bytes, Boolean one
// byte 0 or 1, Objlnk two 16-bit ids, strings UTF-8, Opaque as is.
import { integerValue, timeFromSeconds, timeToSeconds } from './values.js'
import type { Decoded, LwM2mValue, ObjectLink, ValueType } from './types.js'

const INTEGER_LENGTHS = [1, 2, 4, 8]

function readInteger (b: Buffer, signed: boolean): bigint | undefined {
  if (!INTEGER_LENGTHS.includes(b.length)) return undefined
  if (b.length === 8) return signed ? b.readBigInt64BE(0) : b.readBigUInt64BE(0)
  return BigInt(signed ? b.readIntBE(0, b.length) : b.readUIntBE(0, b.length))
}

/** The typed value of a TLV value field. */
export function decodeTlvValue (type: ValueType, b: Buffer): Decoded<{ value: LwM2mValue }> {
  switch (type) {
    case 'String':
    case 'Corelnk':
      // Invalid UTF-8 becomes U+FFFD rather than a refusal: a device's odd name should not hide its other values.
      return { ok: true, value: b.toString('utf8') }
    case 'Opaque':
      return { ok: true, value: Buffer.from(b) }
    case 'Integer':
    case 'Unsigned Integer': {
      const n = readInteger(b, type === 'Integer')
      return n === undefined ? { ok: false, reason: 'lwm2m.tlv.integer.length' } : { ok: true, value: integerValue(n) }
    }
    case 'Time': {
      const n = readInteger(b, true)
      if (n === undefined) return { ok: false, reason: 'lwm2m.tlv.integer.length' }
      const d = timeFromSeconds(n)
      return d === undefined ? { ok: false, reason: 'lwm2m.value.time.range' } : { ok: true, value: d }
    }
    case 'Float':
      if (b.length === 4) return { ok: true, value: b.readFloatBE(0) }
      if (b.length === 8) return { ok: true, value: b.readDoubleBE(0) }
      return { ok: false, reason: 'lwm2m.tlv.float.length' }
    case 'Boolean':
      return b.length === 1 && b[0]! <= 1 ? { ok: true, value: b[0] === 1 } : { ok: false, reason: 'lwm2m.tlv.boolean.invalid' }
    case 'Objlnk':
      return b.length === 4
        ? { ok: true, value: { objectId: b.readUInt16BE(0), instanceId: b.readUInt16BE(2) } }
        : { ok: false, reason: 'lwm2m.tlv.objlnk.length' }
  }
}

function writeInteger (n: bigint, signed: boolean): Buffer {
  for (const len of INTEGER_LENGTHS) {
    const bits = BigInt(len * 8)
    const fits = signed ? n >= -(1n << (bits - 1n)) && n < 1n << (bits - 1n) : n < 1n << bits
    if (!fits) continue
    const b = Buffer.alloc(len)
    if (len === 8) {
      if (signed) b.writeBigInt64BE(n)
      else b.writeBigUInt64BE(n)
    } else if (signed) b.writeIntBE(Number(n), 0, len)
    else b.writeUIntBE(Number(n), 0, len)
    return b
  }
  return Buffer.alloc(0) // unreachable: fitsType checked the range before
}

/** The TLV value field of a value the caller checked with fitsType. */
export function encodeTlvValue (type: ValueType, v: LwM2mValue): Buffer {
  switch (type) {
    case 'String':
    case 'Corelnk':
      return Buffer.from(v as string, 'utf8')
    case 'Opaque':
      return Buffer.from(v as Uint8Array)
    case 'Integer':
    case 'Unsigned Integer':
      return writeInteger(BigInt(v as number | bigint), type === 'Integer')
    case 'Time':
      return writeInteger(BigInt(timeToSeconds(v as Date)), true)
    case 'Float': {
      const x = v as number
      // 4 bytes when a 32-bit float holds the value exactly, as a client would send it; 8 otherwise.
      const b = Buffer.alloc(Object.is(Math.fround(x), x) || Number.isNaN(x) ? 4 : 8)
      if (b.length === 4) b.writeFloatBE(x)
      else b.writeDoubleBE(x)
      return b
    }
    case 'Boolean':
      return Buffer.from([v === true ? 1 : 0])
    case 'Objlnk': {
      const b = Buffer.alloc(4)
      b.writeUInt16BE((v as ObjectLink).objectId, 0)
      b.writeUInt16BE((v as ObjectLink).instanceId, 2)
      return b
    }
  }
}
