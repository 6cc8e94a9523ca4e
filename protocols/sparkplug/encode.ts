// SparkplugPayload-like input → payload bytes (docs/protocols/sparkplug.md): what the host sends (NCMD, DCMD) and what
// tests and the simulator send as edge nodes. Each value goes in the field its datatype uses (values.ts).
import { PayloadType } from './schema.js'
import { DataType } from './types.js'
import type { ScalarValue } from './values.js'

export interface OutgoingMetric {
  name?: string
  alias?: number | bigint
  timestamp?: number
  datatype: number
  /** null sends is_null. Bytes and File take base64 text or a Buffer. */
  value: ScalarValue | Buffer
}

export interface OutgoingPayload { timestamp?: number, seq?: number, metrics: readonly OutgoingMetric[], uuid?: string, body?: Buffer }

const u64Text = (v: number | bigint | string): string => BigInt.asUintN(64, BigInt(v)).toString()

function valueFields (datatype: number, value: ScalarValue | Buffer): Record<string, unknown> {
  if (value === null) return { is_null: true }
  switch (datatype) {
    case DataType.Int8:
    case DataType.Int16:
    case DataType.Int32:
    case DataType.UInt8:
    case DataType.UInt16: return { int_value: Number(value) >>> 0 }
    case DataType.UInt32:
    case DataType.Int64:
    case DataType.UInt64:
    case DataType.DateTime: return { long_value: u64Text(typeof value === 'number' ? Math.trunc(value) : String(value)) }
    case DataType.Float: return { float_value: Number(value) }
    case DataType.Double: return { double_value: Number(value) }
    case DataType.Boolean: return { boolean_value: value === true || value === 'true' }
    case DataType.Bytes:
    case DataType.File: return { bytes_value: Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'base64') }
    default: return { string_value: Buffer.isBuffer(value) ? value.toString('base64') : String(value) }
  }
}

export function encodePayload (p: OutgoingPayload): Buffer {
  const obj: Record<string, unknown> = {
    metrics: p.metrics.map((m) => ({
      ...(m.name === undefined ? {} : { name: m.name }),
      ...(m.alias === undefined ? {} : { alias: u64Text(m.alias) }),
      ...(m.timestamp === undefined ? {} : { timestamp: u64Text(m.timestamp) }),
      datatype: m.datatype,
      ...valueFields(m.datatype, m.value)
    }))
  }
  if (p.timestamp !== undefined) obj.timestamp = u64Text(p.timestamp)
  if (p.seq !== undefined) obj.seq = u64Text(p.seq)
  if (p.uuid !== undefined) obj.uuid = p.uuid
  if (p.body !== undefined) obj.body = p.body
  return Buffer.from(PayloadType.encode(PayloadType.fromObject(obj)).finish())
}
