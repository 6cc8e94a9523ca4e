// The one ingest pipeline of every device transport (docs/architecture.md#how-data-flows; the seams):
// decode (the transport's decoder) → normalise → accept (stored, resolves after commit) or refuse (counted) → the
// outcome the transport turns into its acknowledgement (a PUBACK, an HTTP status, an M3DA reply). Acks take the same
// road to ingest.acceptAcks. A transport only knows its wire; what is stored and counted is decided here.
import type { DataPoint, DeviceMessage, DeviceProtocol } from '../core/domain/device-message.js'
import type { DeviceSession } from '../core/services/ingest/devices.service.js'
import type { IngestService } from '../core/services/ingest/ingest.service.js'
import { newTimeOrderedUid } from '../core/security/secrets.js'
import { normaliseAirVantage, type DeviceRef } from './normalise/airvantage.normaliser.js'

/** stored: committed (acknowledge); refused: malformed or unsupported, counted, nothing stored; forbidden: not the device's to send. */
export type PipelineOutcome =
  | { kind: 'stored' }
  | { kind: 'refused', reason: string }
  | { kind: 'forbidden' }

/** What a decoder answers: never throws on input (docs/architecture.md#how-data-flows). */
export type Decoded<T> = ({ ok: true } & T) | { ok: false, reason: string }

/** Turns a payload into data points; `receivedAt` stamps the points the device did not stamp. */
export type DataDecoder = (payload: Buffer, receivedAt: number) => Decoded<{ points: readonly DataPoint[] }>

export interface DecodedAck { uid: string, status: 'OK' | 'ERROR', message: string | null }
export type AckDecoder = (payload: Buffer) => Decoded<{ acks: readonly DecodedAck[] }>

/** Decoded points → the one DeviceMessage of a payload. */
export type Normaliser = (points: readonly DataPoint[], device: DeviceRef, protocol: DeviceProtocol, receivedAt: number, newUid: () => string) => DeviceMessage

export interface PipelineDeps {
  ingest: Pick<IngestService, 'accept' | 'acceptAcks' | 'refuse'>
  now: () => number
  /** The device protocol the messages are stored under (docs/devices.md). */
  protocol: DeviceProtocol
  /** Default: the AirVantage normaliser, which keeps every point as it came (ingest/normalise). */
  normalise?: Normaliser
}

export interface Pipeline {
  /** Stores a data payload; resolves after commit. @throws when the store did not take it (no acknowledgement: the device sends again) */
  data (session: DeviceSession, payload: Buffer, decode: DataDecoder): Promise<PipelineOutcome>
  /** Records task acknowledgements; resolves after commit. */
  acks (session: DeviceSession, payload: Buffer, decode: AckDecoder): Promise<PipelineOutcome>
  /** Counts a payload refused before decoding (a forbidden topic, a body too large). */
  refuse (reason: string): PipelineOutcome
}

export function createPipeline ({ ingest, now, protocol, normalise = normaliseAirVantage }: PipelineDeps): Pipeline {
  const refuse = (reason: string): PipelineOutcome => {
    ingest.refuse(protocol, reason)
    return reason === 'topic.forbidden' ? { kind: 'forbidden' } : { kind: 'refused', reason }
  }
  return {
    async data (session, payload, decode) {
      const receivedAt = now()
      const decoded = decode(payload, receivedAt)
      if (!decoded.ok) return refuse(decoded.reason)
      await ingest.accept(normalise(decoded.points, session, protocol, receivedAt, () => newTimeOrderedUid(receivedAt)))
      return { kind: 'stored' }
    },
    async acks (session, payload, decode) {
      const decoded = decode(payload)
      if (!decoded.ok) return refuse(decoded.reason)
      await ingest.acceptAcks(session.systemUid, protocol, [...decoded.acks])
      return { kind: 'stored' }
    },
    refuse
  }
}
