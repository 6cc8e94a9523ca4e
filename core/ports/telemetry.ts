// The write side of telemetry (docs/devices.md): what the ingest service needs from the store.
import type { DataValue } from '../domain/device-message.js'
import type { AnswerStatus } from '../domain/device-task.js'

export interface IngestSystemState {
  uid: string
  companyUid: string
  /** As stored before this transaction's update: the live stream tells when it changes (core/ports/events.ts). */
  commStatus: string
  lastCommDate: number | null
  data: Record<string, unknown>
  /** When each System data field was last set (ms), so a late message never overwrites a newer value. */
  dataTs: Record<string, number>
}

export interface MessageRow { uid: string, systemUid: string, protocol: string, ts: number, receivedAt: number, nbDataPoints: number }
export interface PointRow { systemUid: string, dataId: string, ts: number, value: DataValue, messageUid: string }
export interface LastRow { systemUid: string, dataId: string, ts: number, value: DataValue }
export interface SystemIngestUpdate { uid: string, data: Record<string, unknown>, dataTs: Record<string, number>, lastCommDate: number }

/** A system whose commStatus the sweep changed. */
export interface CommStatusChange { uid: string, companyUid: string, status: string, lastCommDate: number | null }

export interface AckRow { systemUid: string, taskUid: string, status: AnswerStatus, message: string | null, protocol: string, receivedAt: number }

export interface TelemetryRepository {
  /** Locks and reads the systems (in uid order, so concurrent batches never deadlock); missing systems are absent. */
  lockSystems (uids: string[]): Promise<IngestSystemState[]>
  /**
   * Inserts the messages of the systems that exist (the message transaction refuses deleted systems) and answers the
   * company of each of those systems and the uids inserted now. With `again` (the batch is written again: an attempt
   * whose COMMIT answer was lost may have stored it), messages already stored are skipped, by uid; without it, a
   * stored uid fails the statement (message uids are the service's own, new for each message).
   */
  insertMessages (rows: MessageRow[], opts: { again: boolean }): Promise<{ known: Map<string, string>, inserted: string[] }>
  /**
   * Inserts the points and appends their hourly stats to the rollup increments (data_rollup_deltas), in the caller's
   * transaction: aggregations count them at once, foldRollups merges them into the hourly and daily rollups.
   */
  insertPoints (rows: PointRow[]): Promise<void>
  /** Merges up to `limit` rollup increments into the hourly and daily rollups, deleting them; answers how many. */
  foldRollups (limit: number): Promise<number>
  /** Reclaims the space of folded increments (not in a transaction). */
  vacuumRollupDeltas (): Promise<void>
  /** Keeps, per (system, data id), the point with the latest timestamp. Rows must be unique per key. */
  upsertLast (rows: LastRow[]): Promise<void>
  /** Sets data, data_ts and lastCommDate (never backwards); commStatus becomes OK (docs/devices.md). */
  updateSystems (rows: SystemIngestUpdate[]): Promise<void>
  insertAcks (rows: AckRow[]): Promise<void>
  /** Which of these data ids the system sent in device messages received at or after `since` (a retrieve's values). */
  receivedIds (systemUid: string, dataIds: readonly string[], since: number): Promise<string[]>
  /** The subscription mobile numbers of these systems, by system uid (the connection request, core/services/ingest/task-dispatch.ts). */
  mobileNumbers (systemUids: readonly string[]): Promise<Map<string, string>>
  /**
   * Gives every communicating system whose status changes at `now` the status core/domain/comm-status.ts decides
   * (sweptCommStatus, `defaultPeriodMs` the period of systems without an ON heartbeat), unless it was heard from or
   * changed meanwhile; answers the changes (docs/devices.md).
   */
  sweepCommStatus (now: number, defaultPeriodMs: number): Promise<CommStatusChange[]>
}

/** Value encoding of data_points and data_last (storage/migrations/0005_telemetry.sql). */
export function encodeValue (v: DataValue): { num: number | null, str: string | null } {
  if (typeof v === 'number') return { num: v, str: null }
  if (typeof v === 'boolean') return { num: v ? 1 : 0, str: v ? 'true' : 'false' }
  if (typeof v === 'string') return { num: null, str: v }
  return { num: null, str: null }
}

export function decodeValue (num: number | null, str: string | null): DataValue {
  if (num !== null && str !== null) return str === 'true'
  // JSON has no NaN or infinity: such a number (stored before the ingest turned them into null) reads as null.
  if (num !== null) return Number.isFinite(num) ? num : null
  return str
}
