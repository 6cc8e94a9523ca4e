// The Will of a connection (MQTT 3.1.1 §3.1.2.5, MQTT 5.0 §3.1.2.5): stored at an accepted CONNECT, published when
// the connection ends in any way other than a DISCONNECT asking for none (disconnect.ts): lost, timed out, closed
// by the service, taken over by a newer connection of the same device. It is taken as a publish of the device
// itself, with the rules of its publishes: from the device's budget (none over it), to a namespace (Sparkplug B's
// NDEATH) or to the device's own topics (stored as its message or acks; anything else refused and counted), and
// never retained or passed to another client. The Will Delay Interval of MQTT 5 is not kept: it goes out at once.
import type { MqttSession } from './session.js'
import { routePublish } from './route.js'

export function publishWill (s: MqttSession): void {
  const { will, session } = s
  s.will = undefined
  if (will === undefined || session === undefined || s.cleanDisconnect) return
  const payload = typeof will.payload === 'string' ? Buffer.from(will.payload) : will.payload
  const admitted = s.deps.limits.admit(session.systemUid, payload.length)
  if (!admitted.ok) {
    if (admitted.disconnect) s.deps.limits.disconnected()
    return
  }
  routePublish(s, session, will.topic, payload).catch((err: unknown) => { s.deps.log.warn({ err }, 'mqtt will not stored') })
}
