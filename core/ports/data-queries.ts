// The read side of telemetry (docs/devices.md): what the data and message endpoints need from the store
// (docs/devices.md).
import type { AggregateFn, UsageSeries } from '../domain/aggregation.js'
import type { DataValue } from '../domain/device-message.js'

/** A time range [from, to) in ms; from null: no lower bound. */
export interface TimeRange { from: number | null, to: number }

export interface StoredPoint { dataId: string, ts: number, value: DataValue }
export interface SeriesPoint extends StoredPoint { systemUid: string }

export interface MessageRecord { uid: string, timestamp: number, protocol: string, nbDataPoints: number }

/** Where a list of messages continues: after the message (ts, uid) in the list order. */
export interface MessageCursor { ts: number, uid: string }

/** Which last points: the listed ids, the ids starting with a prefix, or all. */
export type LastSelection = { ids: string[] } | { prefix: string } | { all: true }

export interface AggregateQuery {
  /** The systems to read, or every system of these companies (fleet). */
  targets: { systems: string[] } | { companies: string[] }
  /** Data ids read from the data points. */
  dataIds: string[]
  /** Usage data ids (docs/usage.md), computed from the usage records. */
  usage: Record<string, UsageSeries>
  /** Bucket starts, oldest first; a point belongs to the last bucket starting at or before it. */
  buckets: number[]
  /** Only points in [from, to) count. */
  from: number
  to: number
  fn: AggregateFn
  /** With companies: the function folding the systems' values of one bucket into the company's value. */
  fleetFn?: AggregateFn
}

/** One (system, data id) pair's points as JSON text (DataQueriesRepository.rawJson). */
export interface SeriesJson { systemUid: string, dataId: string, json: string }

/** One aggregated value: key is the system uid, or the company uid for a fleet query; bucket indexes `buckets`. */
export interface AggregateRow { key: string, dataId: string, bucket: number, v: number | null }

export interface DataQueriesRepository {
  /** The uids among `uids` of systems of the company. */
  systemsOf (companyUid: string, uids: string[]): Promise<string[]>
  /** The last point of each selected data id of the system (table data_last). */
  last (systemUid: string, selection: LastSelection): Promise<StoredPoint[]>
  /** The `size` most recent points in the range of each (system, data id) pair, most recent first. */
  raw (systemUids: string[], dataIds: string[], range: { from: number, to: number }, size: number): Promise<SeriesPoint[]>
  /**
   * raw's points as the API writes them (docs/devices.md): per pair, the JSON text of its array
   * `[{"ts":…,"v":…},…]` (a boolean as 1 or 0, a non-finite number as null), absent for a pair without points. The
   * store writes it: 5 systems × 10 ids × 500 points cost more in rows parsed, objects built and serialized again
   * than in the read itself (bench query).
   */
  rawJson (systemUids: string[], dataIds: string[], range: { from: number, to: number }, size: number): Promise<SeriesJson[]>
  /** fn per system and bucket; with companies, then fleetFn over each company's systems. Empty buckets are absent. */
  aggregate (q: AggregateQuery): Promise<AggregateRow[]>
  /** Messages of the system in [from, to), most recent first (ties by uid), after the cursor, at most `limit`. */
  messages (systemUid: string, range: { from: number, to: number }, after: MessageCursor | null, limit: number): Promise<MessageRecord[]>
  message (systemUid: string, uid: string): Promise<MessageRecord | undefined>
  /** The points the message carried, by data id then most recent first. */
  messagePoints (systemUid: string, messageUid: string): Promise<StoredPoint[]>
}
