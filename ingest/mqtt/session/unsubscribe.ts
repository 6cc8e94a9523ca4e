import type { IUnsubscribePacket, Packet } from 'mqtt-packet'
import type { MqttSession } from './session.js'
import { RC5 } from './reason-codes.js'

/** UNSUBSCRIBE: the filters go, of the device's topics and of namespaces alike; MQTT 5 gets a reason code for each. */
export function onUnsubscribe (s: MqttSession, p: IUnsubscribePacket): void {
  for (const f of p.unsubscriptions) { s.filters.delete(f); s.nsFilters.delete(f) }
  const granted = s.v5 ? { granted: p.unsubscriptions.map(() => RC5.success) } : {}
  s.send({ cmd: 'unsuback', messageId: p.messageId, ...granted } as unknown as Packet)
}
