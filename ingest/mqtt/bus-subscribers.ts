// The MQTT sessions (session/) that subscribed to a topic of another protocol's namespace (Sparkplug B: the host's
// STATE, an edge node's own commands, ingest/mqtt/namespaces.ts): what the service publishes there reaches them, and
// a retained publish (the host STATE) is kept for those that subscribe later (MQTT 3.1.1 §3.3.1.3).
import { topicMatches } from '../../protocols/mqtt/topic.js'

/** A session's side: the filters it holds in namespaces, and how to send it a publish. */
export interface BusSubscriber {
  /** Granted namespace filters and their QoS. */
  readonly filters: ReadonlyMap<string, 0 | 1>
  /** Whether the namespace lets this message reach this session (MqttNamespace.mayReceive). */
  mayReceive (topic: string): boolean
  send (topic: string, payload: Buffer, qos: 0 | 1): void
}

export interface BusSubscribers {
  add (s: BusSubscriber): void
  remove (s: BusSubscriber): void
  /** A publish of the service on a namespace topic: to every subscriber it matches; kept when retained. */
  deliver (topic: string, payload: Buffer, opts: { qos: 0 | 1, retain: boolean }): void
  /** The retained messages a new filter matches (sent on its subscription). */
  retained (filter: string): Array<{ topic: string, payload: Buffer }>
}

export function createBusSubscribers (): BusSubscribers {
  const subscribers = new Set<BusSubscriber>()
  const retained = new Map<string, Buffer>()
  return {
    add (s) { subscribers.add(s) },
    remove (s) { subscribers.delete(s) },
    deliver (topic, payload, { qos, retain }) {
      // MQTT 3.1.1 §3.3.1.3: an empty retained payload removes what the topic kept.
      if (retain) { if (payload.length === 0) retained.delete(topic); else retained.set(topic, payload) }
      for (const s of subscribers) {
        let granted: 0 | 1 | undefined
        for (const [f, q] of s.filters) if (topicMatches(f, topic)) granted = Math.max(granted ?? 0, q) as 0 | 1
        if (granted !== undefined && s.mayReceive(topic)) s.send(topic, payload, Math.min(granted, qos) as 0 | 1)
      }
    },
    retained: (filter) => [...retained].filter(([topic]) => topicMatches(filter, topic)).map(([topic, payload]) => ({ topic, payload }))
  }
}
