// PUBLISH from a device: stored through the ingest pipeline, acknowledged only after the commit, in the order the
// publishes came (MQTT 3.1.1 and 5.0 §4.6). The versions differ in what they can say back: MQTT 5 has negative
// acknowledgements (a refused payload gets PUBACK 0x99 and the connection stays, §3.4.2.1); MQTT 3.1.1 has none, so
// a payload refused or a topic forbidden is acknowledged and dropped (as Mosquitto does), and a message that cannot
// be taken (over the device's budget, not stored) is left unacknowledged with the connection closed, so that the
// device sends it again rather than losing it acknowledged.
import type { IPublishPacket, Packet } from 'mqtt-packet'
import { isBufferFull } from '../../../core/services/ingest/buffer-bytes.js'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import type { PipelineOutcome } from '../../pipeline.js'
import type { MqttSession } from './session.js'
import { routePublish } from './route.js'
import { RC5 } from './reason-codes.js'

/** What is wrong with the packet itself, whatever the device's budget: true when the connection was closed for it. */
function malformed (s: MqttSession, p: IPublishPacket): boolean {
  if (s.v5) {
    if (p.qos === 2) { s.close(RC5.qosNotSupported); return true } // CONNACK announced Maximum QoS 1
    // MQTT 5.0 §3.3.2.3.4: CONNACK announces no Topic Alias Maximum (0), so any topic alias is invalid.
    if (p.properties?.topicAlias !== undefined) { s.close(RC5.topicAliasInvalid); return true }
    return false
  }
  // MQTT 3.1.1 §4.7.1: no wildcard in a topic name; §4.7.3: not empty.
  if (p.topic === '' || p.topic.includes('+') || p.topic.includes('#')) { s.close(); return true }
  return false
}

/** Over the device's budget (docs/security.md#device-limits): not stored, refused in the version's way. */
function overBudget (s: MqttSession, qos: number, messageId: number, disconnect: boolean): void {
  if (disconnect) s.deps.limits.disconnected()
  if (s.v5) {
    // QoS 1 gets PUBACK 0x97, quota exceeded, in order (0x96, message rate too high, is a DISCONNECT reason only:
    // clients refuse a PUBACK that carries it).
    if (disconnect) { s.close(RC5.messageRateTooHigh); return }
    if (qos === 1) s.acks = s.acks.then(() => { s.send({ cmd: 'puback', messageId, reasonCode: RC5.quotaExceeded } as Packet) })
    return
  }
  // QoS 0 is dropped; QoS 1 and 2 are not acknowledged and the connection closes, as when the store is unavailable.
  if (disconnect || qos > 0) s.close()
}

function acknowledge (s: MqttSession, qos: number, messageId: number, outcome: PipelineOutcome): void {
  if (s.v5) {
    const reasonCode = outcome.kind === 'stored' ? RC5.success : outcome.kind === 'forbidden' ? RC5.notAuthorized : RC5.payloadFormatInvalid
    if (qos === 1) s.send({ cmd: 'puback', messageId, reasonCode } as Packet)
    return
  }
  if (qos === 1) s.send({ cmd: 'puback', messageId })
  if (qos === 2) { s.awaitingRelease.add(messageId); s.send({ cmd: 'pubrec', messageId }) }
}

function store (s: MqttSession, session: DeviceSession, p: IPublishPacket, payload: Buffer): void {
  // The packet (its payload) is not kept until the acknowledgement: only what the acknowledgement needs.
  const { qos } = p
  const messageId = p.messageId ?? 0
  const stored = routePublish(s, session, p.topic, payload)
  const release = s.pressure.track(payload.length)
  stored.then(release, release)
  s.acks = s.acks.then(async () => {
    try {
      acknowledge(s, qos, messageId, await stored)
    } catch (err) {
      // Not stored: no acknowledgement; the device sends it again after reconnecting. A full ingest buffer is
      // "server busy" to an MQTT 5 device.
      s.deps.log.warn({ err }, s.v5 ? 'mqtt5 message not stored' : 'mqtt message not stored')
      s.close(isBufferFull(err) ? RC5.serverBusy : RC5.unspecified)
    }
  })
}

/** Starts storing; a publish only starts its write here, so many of one connection are stored by one group commit. */
export function onPublish (s: MqttSession, session: DeviceSession, p: IPublishPacket): void {
  if (malformed(s, p)) return
  const messageId = p.messageId ?? 0
  // A QoS 2 publish sent again before its PUBREL (MQTT 3.1.1 §4.3.3) is stored once: its PUBREC is sent again.
  if (p.qos === 2 && s.awaitingRelease.has(messageId)) { s.acks = s.acks.then(() => { s.send({ cmd: 'pubrec', messageId }) }); return }
  const payload = typeof p.payload === 'string' ? Buffer.from(p.payload) : p.payload
  if (s.closed) return // the rest of a chunk read before the connection was closed
  const admitted = s.deps.limits.admit(session.systemUid, payload.length)
  if (!admitted.ok) { overBudget(s, p.qos, messageId, admitted.disconnect); return }
  store(s, session, p, payload)
}
