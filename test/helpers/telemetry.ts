// Telemetry rows and usage records written straight into the store (storage/migrations/0005_telemetry.sql), for the
// read endpoints' tests: the value encoding is the one of core/ports/telemetry.ts.
import { randomUUID } from 'node:crypto'
import type { Queryable } from '../../core/ports/store.js'
import type { DataValue } from '../../core/domain/device-message.js'
import { encodeValue } from '../../core/ports/telemetry.js'
import { createTelemetryRepository } from '../../storage/repositories/telemetry.repository.js'
import { createUsageRepository } from '../../storage/repositories/usage.repository.js'

export interface TestPoint { dataId: string, ts: number, value: DataValue }

/**
 * Inserts the points as data_points with their rollups (of one message, `messageUid` or a fresh one) and keeps data_last at the
 * latest point of each data id. Answers the message uid (no device_messages row: see insertMessage).
 */
export async function insertPoints (db: Queryable, systemUid: string, points: TestPoint[], messageUid: string = randomUUID()): Promise<string> {
  if (points.length === 0) return messageUid
  const enc = points.map((p) => encodeValue(p.value))
  const cols = [points.map((p) => p.dataId), points.map((p) => p.ts), enc.map((e) => e.num), enc.map((e) => e.str)]
  // Through the ingest's own write, which keeps the hourly rollups (data_rollups) with the points.
  await createTelemetryRepository(db).insertPoints(points.map((p) => ({ systemUid, dataId: p.dataId, ts: p.ts, value: p.value, messageUid })))
  await db.query(
    `INSERT INTO data_last AS l (system_uid, data_id, ts, num, str)
     SELECT DISTINCT ON (d) $1, d, t, n, s FROM unnest($2::text[], $3::int8[], $4::float8[], $5::text[]) AS x (d, t, n, s)
     ORDER BY d, t DESC
     ON CONFLICT (system_uid, data_id) DO UPDATE SET ts = EXCLUDED.ts, num = EXCLUDED.num, str = EXCLUDED.str
     WHERE EXCLUDED.ts >= l.ts`, [systemUid, ...cols])
  return messageUid
}

export interface TestMessage { uid?: string, ts: number, protocol?: string, points?: TestPoint[], nbDataPoints?: number, receivedAt?: number }

/** A device message and its points; nbDataPoints defaults to the number of points. Answers its uid. */
export async function insertMessage (db: Queryable, systemUid: string, m: TestMessage): Promise<string> {
  const uid = m.uid ?? randomUUID()
  const points = m.points ?? []
  await db.query(
    'INSERT INTO device_messages (uid, system_uid, protocol, ts, received_at, nb_data_points) VALUES ($1, $2, $3, $4, $5, $6)',
    [uid, systemUid, m.protocol ?? 'MQTT', m.ts, m.receivedAt ?? m.ts, m.nbDataPoints ?? points.length])
  await insertPoints(db, systemUid, points, uid)
  return uid
}

export interface TestUsage {
  uid?: string
  type: 'DATA' | 'SMS_SENT' | 'SMS_RECEIVED' | 'VOICE_IN' | 'VOICE_OUT' | 'MSU'
  start: number
  end?: number | null
  processedAt?: number | null
  partial?: boolean
  bytesSent?: number | null
  bytesReceived?: number | null
  bytesTotal?: number | null
  roundedBytesTotal?: number | null
  roundedDuration?: number | null
}

/**
 * One usage record (docs/usage.md), through the import's own write, which keeps the daily usage rollups
 * (usage_rollups) with the records; a record already stored is not stored again. Answers its uid.
 */
export async function insertUsage (db: Queryable, systemUid: string, r: TestUsage): Promise<string> {
  const uid = r.uid ?? randomUUID()
  await createUsageRepository(db).insert([{
    systemUid,
    uid,
    type: r.type,
    start: r.start,
    end: r.end ?? null,
    processedAt: r.processedAt ?? null,
    partial: r.partial ?? false,
    bytesSent: r.bytesSent ?? null,
    bytesReceived: r.bytesReceived ?? null,
    bytesTotal: r.bytesTotal ?? null,
    roundedBytesTotal: r.roundedBytesTotal ?? null,
    roundedDuration: r.roundedDuration ?? null,
    text: {}
  }])
  return uid
}

/** Timestamps in UTC, written without the trailing Z: utc('2024-01-01T10:00:00'). */
export const utc = (s: string): number => Date.parse(s + 'Z')
