// A metric's value as a stored data value (docs/protocols/sparkplug.md, "Value field per datatype"): signed integers
// travel as two's complement in int_value (8, 16, 32 bits) or long_value (64 bits); UInt32 may come in either field; a
// 64-bit integer beyond ±2^53 is kept exactly as its decimal text. Float and Double become numbers (NaN and ±Infinity,
// which no column holds, become null), strings stay strings, Bytes and File become base64 text. DataSet, Template,
// PropertySet and the array types have no scalar form: they are not stored (`unsupported`).
import { DataType, type RawValue, type SparkplugMetric } from './types.js'

export type ScalarValue = number | string | boolean | null

const exact = (n: bigint): number | string => n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString()

function integer (raw: RawValue, bits: 8 | 16 | 32 | 64, signed: boolean): number | string | undefined {
  let n: bigint
  if (raw.kind === 'int') n = BigInt(raw.value)
  else if (raw.kind === 'long') n = raw.value
  else return undefined
  return exact(signed ? BigInt.asIntN(bits, n) : BigInt.asUintN(bits, n))
}

const finite = (n: number): number | null => Number.isFinite(n) ? n : null

/** The value to store, or 'unsupported' (a type without a scalar form, or a value field that does not fit it). */
export function metricValue (m: Pick<SparkplugMetric, 'raw' | 'isNull'>, datatype: number): ScalarValue | 'unsupported' {
  if (m.isNull || m.raw.kind === 'none') return null
  const { raw } = m
  let v: ScalarValue | undefined
  switch (datatype) {
    case DataType.Int8: v = integer(raw, 8, true); break
    case DataType.Int16: v = integer(raw, 16, true); break
    case DataType.Int32: v = integer(raw, 32, true); break
    case DataType.Int64: v = integer(raw, 64, true); break
    case DataType.UInt8: v = integer(raw, 8, false); break
    case DataType.UInt16: v = integer(raw, 16, false); break
    case DataType.UInt32: v = integer(raw, 32, false); break
    case DataType.UInt64: v = integer(raw, 64, false); break
    case DataType.DateTime: v = integer(raw, 64, false); break
    case DataType.Float:
    case DataType.Double: v = raw.kind === 'float' || raw.kind === 'double' ? finite(raw.value) : undefined; break
    case DataType.Boolean: v = raw.kind === 'boolean' ? raw.value : undefined; break
    case DataType.String:
    case DataType.Text:
    case DataType.UUID: v = raw.kind === 'string' ? raw.value : undefined; break
    case DataType.Bytes:
    case DataType.File: v = raw.kind === 'bytes' ? raw.value.toString('base64') : undefined; break
    default: v = undefined
  }
  return v === undefined ? 'unsupported' : v
}

/** The datatype a host gives a written value when the BIRTH did not declare the metric. */
export function datatypeFor (value: ScalarValue): number {
  if (typeof value === 'boolean') return DataType.Boolean
  if (typeof value === 'string' || value === null) return DataType.String
  return Number.isInteger(value) ? DataType.Int64 : DataType.Double
}
