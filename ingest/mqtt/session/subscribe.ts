// SUBSCRIBE: the device's own topics (`<username>/...`, docs/protocols/mqtt.md), or what a namespace allows in its
// own (Sparkplug B: the host's STATE, the edge node's commands). QoS 1 at most is granted. A subscription to the
// tasks topic delivers the tasks waiting; one in a namespace gets the retained messages it matches.
import type { ISubscribePacket, Packet } from 'mqtt-packet'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import { ownsTopic, wantsTasks } from '../../../protocols/mqtt/topic.js'
import type { MqttSession } from './session.js'
import { RC4_SUBSCRIPTION_FAILURE, RC5 } from './reason-codes.js'

export function onSubscribe (s: MqttSession, session: DeviceSession, p: ISubscribePacket): void {
  const own: string[] = []
  const inNamespaces: string[] = []
  const refused = s.v5 ? RC5.notAuthorized : RC4_SUBSCRIPTION_FAILURE
  const granted = p.subscriptions.map((sub) => {
    const ns = s.deps.bus?.namespaceOf(sub.topic)
    if (!(ns === undefined ? ownsTopic(session.username, sub.topic) : ns.maySubscribe(session, sub.topic))) return refused
    const qos = Math.min(sub.qos, 1) as 0 | 1
    if (ns === undefined) { s.filters.set(sub.topic, qos); own.push(sub.topic) } else { s.nsFilters.set(sub.topic, qos); inNamespaces.push(sub.topic) }
    return qos
  })
  s.send({ cmd: 'suback', messageId: p.messageId, granted } as Packet)
  if (inNamespaces.length > 0) {
    s.deps.busSubscribers.add(s.busSubscriber)
    // MQTT 3.1.1 and 5.0 §3.3.1.3: the retained messages a new subscription matches, sent with their retain flag.
    for (const f of inNamespaces) {
      for (const r of s.deps.busSubscribers.retained(f)) {
        if (s.busSubscriber.mayReceive(r.topic)) s.publishTo(r.topic, r.payload, s.nsFilters.get(f) ?? 0, true)
      }
    }
  }
  if (s.self !== undefined && wantsTasks(session.username, own)) s.deps.onTasksSubscribed(s.self)
}
