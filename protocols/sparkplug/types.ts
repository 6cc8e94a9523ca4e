// What the Sparkplug B codecs produce and take (docs/protocols/sparkplug.md). Pure: this folder imports nothing of
// ours.

/** The DataType enum of §4.2 (22–34 are the array types). */
export const DataType = {
  Unknown: 0,
  Int8: 1,
  Int16: 2,
  Int32: 3,
  Int64: 4,
  UInt8: 5,
  UInt16: 6,
  UInt32: 7,
  UInt64: 8,
  Float: 9,
  Double: 10,
  Boolean: 11,
  String: 12,
  DateTime: 13,
  Text: 14,
  UUID: 15,
  DataSet: 16,
  Bytes: 17,
  File: 18,
  Template: 19,
  PropertySet: 20,
  PropertySetList: 21
} as const

/** The value a metric carried, by the oneof member that was set (none: no member, e.g. a null metric). */
export type RawValue =
  | { kind: 'none' }
  | { kind: 'int', value: number }
  | { kind: 'long', value: bigint }
  | { kind: 'float', value: number }
  | { kind: 'double', value: number }
  | { kind: 'boolean', value: boolean }
  | { kind: 'string', value: string }
  | { kind: 'bytes', value: Buffer }
  /** A DataSet or a Template: kept out of the time series (docs/protocols/sparkplug.md). */
  | { kind: 'complex' }

export interface SparkplugMetric {
  name?: string
  /** uint64 in decimal, the key of the alias map of a BIRTH. */
  alias?: string
  /** ms since epoch. */
  timestamp?: number
  datatype?: number
  isNull: boolean
  isHistorical: boolean
  isTransient: boolean
  raw: RawValue
}

export interface SparkplugPayload {
  /** ms since epoch, at send time. */
  timestamp?: number
  /** 0–255 (§4.3); absent in NDEATH and in host commands. */
  seq?: number
  uuid?: string
  metrics: SparkplugMetric[]
}

/** A decoder's answer instead of throwing: a dotted reason for logs and metrics. */
export type Decoded<T> = ({ ok: true } & T) | { ok: false, reason: string }

/** A payload bigger than this is refused undecoded, compressed or not (the MQTT payload bound of the service). */
export const MAX_PAYLOAD_BYTES = 1024 * 1024
/** Metrics per payload. */
export const MAX_METRICS = 10_000
/** Metric names, device and node ids: the bound of data ids. */
export const MAX_NAME_LENGTH = 255
/** The latest timestamp a JavaScript Date holds (ms); later ones are refused. */
export const MAX_TIMESTAMP = 8.64e15
/** The uuid of a compressed payload (Tahu's extension, §4.2). */
export const COMPRESSED_UUID = 'SPBV1.0_COMPRESSED'
