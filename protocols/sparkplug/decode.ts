// Sparkplug B payload bytes → SparkplugPayload (docs/protocols/sparkplug.md). Total: answers a refusal for any input,
// never throws (docs/architecture.md#how-data-flows). uint64 fields come out of protobufjs as Long objects or numbers;
// timestamps must fit a Date and `seq` 0–255 (§4.3), otherwise the payload is refused. Compressed payloads (uuid
// SPBV1.0_COMPRESSED, body deflated or gzipped, metric `algorithm`) are inflated once, bounded by MAX_PAYLOAD_BYTES.
import { gunzipSync, inflateSync } from 'node:zlib'
import { PayloadType } from './schema.js'
import {
  COMPRESSED_UUID, MAX_METRICS, MAX_PAYLOAD_BYTES, MAX_TIMESTAMP,
  type Decoded, type RawValue, type SparkplugMetric, type SparkplugPayload
} from './types.js'

/** A uint64 as protobufjs hands it (a Long-like {low, high}, or a number) → bigint. */
export function u64 (v: unknown): bigint | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
    const { low, high } = v as { low: number, high: number }
    return BigInt.asUintN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0))
  }
  return undefined
}

const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k) && o[k] != null

function timestampOf (v: unknown): number | undefined | 'invalid' {
  const t = u64(v)
  if (t === undefined) return undefined
  return t > BigInt(MAX_TIMESTAMP) ? 'invalid' : Number(t)
}

function rawValue (m: Record<string, unknown>): RawValue {
  if (has(m, 'int_value')) return { kind: 'int', value: (m.int_value as number) >>> 0 }
  if (has(m, 'long_value')) return { kind: 'long', value: u64(m.long_value) ?? 0n }
  if (has(m, 'float_value')) return { kind: 'float', value: m.float_value as number }
  if (has(m, 'double_value')) return { kind: 'double', value: m.double_value as number }
  if (has(m, 'boolean_value')) return { kind: 'boolean', value: m.boolean_value as boolean }
  if (has(m, 'string_value')) return { kind: 'string', value: m.string_value as string }
  if (has(m, 'bytes_value')) return { kind: 'bytes', value: Buffer.from(m.bytes_value as Uint8Array) }
  if (has(m, 'dataset_value') || has(m, 'template_value')) return { kind: 'complex' }
  return { kind: 'none' }
}

function metricOf (m: Record<string, unknown>): SparkplugMetric | 'invalid' {
  const timestamp = has(m, 'timestamp') ? timestampOf(m.timestamp) : undefined
  if (timestamp === 'invalid') return 'invalid'
  const alias = has(m, 'alias') ? u64(m.alias) : undefined
  const out: SparkplugMetric = {
    isNull: m.is_null === true,
    isHistorical: m.is_historical === true,
    isTransient: m.is_transient === true,
    raw: rawValue(m)
  }
  if (has(m, 'name')) out.name = m.name as string
  if (alias !== undefined) out.alias = alias.toString()
  if (timestamp !== undefined) out.timestamp = timestamp
  if (has(m, 'datatype')) out.datatype = m.datatype as number
  return out
}

function decodeOnce (bytes: Uint8Array): Decoded<{ payload: SparkplugPayload, body?: Buffer }> {
  let msg: Record<string, unknown>
  try {
    msg = PayloadType.decode(bytes) as unknown as Record<string, unknown>
  } catch {
    // Truncated, a wrong wire type, or nesting deep enough to exhaust the stack: all of them are garbage here.
    return { ok: false, reason: 'payload.malformed' }
  }
  // Absent fields read the prototype's defaults in protobufjs: only own properties were on the wire.
  const list = Array.isArray(msg.metrics) ? msg.metrics as Array<Record<string, unknown>> : []
  if (list.length > MAX_METRICS) return { ok: false, reason: 'payload.too.many.metrics' }
  const timestamp = has(msg, 'timestamp') ? timestampOf(msg.timestamp) : undefined
  if (timestamp === 'invalid') return { ok: false, reason: 'payload.timestamp.invalid' }
  const seq = has(msg, 'seq') ? u64(msg.seq) : undefined
  if (seq !== undefined && seq > 255n) return { ok: false, reason: 'payload.seq.invalid' }
  const metrics: SparkplugMetric[] = []
  for (const m of list) {
    const metric = metricOf(m)
    if (metric === 'invalid') return { ok: false, reason: 'payload.timestamp.invalid' }
    metrics.push(metric)
  }
  const payload: SparkplugPayload = { metrics }
  if (timestamp !== undefined) payload.timestamp = timestamp
  if (seq !== undefined) payload.seq = Number(seq)
  if (has(msg, 'uuid')) payload.uuid = msg.uuid as string
  const body = has(msg, 'body') ? Buffer.from(msg.body as Uint8Array) : undefined
  return body === undefined ? { ok: true, payload } : { ok: true, payload, body }
}

function inflate (body: Buffer, algorithm: string): Buffer | undefined {
  try {
    const opts = { maxOutputLength: MAX_PAYLOAD_BYTES }
    return algorithm === 'GZIP' ? gunzipSync(body, opts) : inflateSync(body, opts)
  } catch {
    return undefined
  }
}

/** Decodes one Sparkplug B payload; compressed ones are inflated and decoded (once). */
export function decodePayload (bytes: Uint8Array): Decoded<{ payload: SparkplugPayload }> {
  if (bytes.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'payload.too.large' }
  const outer = decodeOnce(bytes)
  if (!outer.ok) return outer
  if (outer.payload.uuid !== COMPRESSED_UUID) return { ok: true, payload: outer.payload }
  if (outer.body === undefined) return { ok: false, reason: 'payload.compressed.no.body' }
  const algorithm = outer.payload.metrics.find((m) => m.name === 'algorithm')
  const name = algorithm?.raw.kind === 'string' ? algorithm.raw.value.toUpperCase() : 'DEFLATE'
  if (name !== 'GZIP' && name !== 'DEFLATE') return { ok: false, reason: 'payload.compressed.algorithm' }
  const inner = inflate(outer.body, name)
  if (inner === undefined) return { ok: false, reason: 'payload.compressed.invalid' }
  const decoded = decodeOnce(inner)
  return decoded.ok ? { ok: true, payload: decoded.payload } : decoded
}
