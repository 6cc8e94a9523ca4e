// What a device publishes, whatever the transport (MQTT 3.1.1, MQTT 5, REST): topic rules of conventions.md §Devices
// and payload handling through decoder → normaliser → ingest service (shared/style.md §2.6).
import { decodeAcks, decodeData } from '../protocols/airvantage/index.js'
import type { DeviceProtocol } from '../core/domain/device-message.js'
import type { DeviceSession } from '../core/services/ingest/devices.service.js'
import type { IngestService } from '../core/services/ingest/ingest.service.js'
import { newUid } from '../core/security/secrets.js'
import { normaliseAirVantage } from './normalise/airvantage.normaliser.js'

export type PublishOutcome =
  | { kind: 'stored' }
  | { kind: 'refused', reason: string }
  | { kind: 'forbidden' }

export interface PublishDeps { ingest: IngestService, now: () => number }

/** `<username>/<rest>` → rest, or undefined when the topic is not the device's own. */
export function ownTopic (session: DeviceSession, topic: string): string | undefined {
  const prefix = session.username + '/'
  return topic.startsWith(prefix) ? topic.slice(prefix.length) : undefined
}

/** Stores a data payload; resolves after commit. Malformed payloads are refused, counted and store nothing. */
export async function storeData (deps: PublishDeps, session: DeviceSession, protocol: DeviceProtocol, payload: Buffer, opts: { timestampKeyed?: boolean } = {}): Promise<PublishOutcome> {
  const receivedAt = deps.now()
  const decoded = decodeData(payload, { receivedAt, ...(opts.timestampKeyed === true ? { timestampKeyed: true } : {}) })
  if (!decoded.ok) {
    deps.ingest.refuse(protocol, decoded.reason)
    return { kind: 'refused', reason: decoded.reason }
  }
  await deps.ingest.accept(normaliseAirVantage(decoded.points, session, protocol, receivedAt, newUid))
  return { kind: 'stored' }
}

/** Records task acknowledgements (`[{uid, status, message}]`). */
export async function storeAcks (deps: PublishDeps, session: DeviceSession, protocol: DeviceProtocol, payload: Buffer): Promise<PublishOutcome> {
  const decoded = decodeAcks(payload)
  if (!decoded.ok) {
    deps.ingest.refuse(protocol, decoded.reason)
    return { kind: 'refused', reason: decoded.reason }
  }
  await deps.ingest.acceptAcks(session.systemUid, protocol, decoded.acks)
  return { kind: 'stored' }
}

/** An MQTT publish from a device: only under its own `<username>/` (conventions.md §Devices). */
export async function handleMqttPublish (deps: PublishDeps, session: DeviceSession, topic: string, payload: Buffer): Promise<PublishOutcome> {
  const rest = ownTopic(session, topic)
  if (rest === undefined) {
    deps.ingest.refuse('MQTT', 'topic.forbidden')
    return { kind: 'forbidden' }
  }
  if (rest === 'messages/json') return await storeData(deps, session, 'MQTT', payload)
  if (rest === 'acks/json') return await storeAcks(deps, session, 'MQTT', payload)
  deps.ingest.refuse('MQTT', 'topic.unsupported')
  return { kind: 'refused', reason: 'topic.unsupported' }
}
