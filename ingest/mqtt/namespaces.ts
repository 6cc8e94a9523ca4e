// Other device protocols carried by the embedded broker under a topic namespace of their own (Sparkplug B under
// `spBv1.0/`, docs/protocols/sparkplug.md). The MQTT transport owns the broker (its sessions, session/); the transport of such a protocol
// registers its namespace on the service's bus (one per assembled service: TransportDeps.mqtt) and publishes through it. The broker
// asks the namespace of a topic about every publish, subscription and delivery on it, so the AirVantage topic rules
// (`<username>/...`, docs/devices.md) and the namespace's own rules never mix.
import type { DeviceSession } from '../../core/services/ingest/device-session.js'
import type { PipelineOutcome } from '../pipeline.js'

/** One MQTT connection, as a namespace sees it (the same object for the connection's whole life). */
export interface BusClient {
  readonly session: DeviceSession
  readonly clientId: string
  /** Ends the connection (its Will is published, as for any connection lost). */
  close (): void
}

export interface MqttNamespace {
  /** Whether the topic or the subscription filter is this namespace's. */
  owns (topicOrFilter: string): boolean
  /** A publish of an authenticated client on one of its topics, the client's Will included; resolves after commit. */
  publish (client: BusClient, topic: string, payload: Buffer): Promise<PipelineOutcome>
  maySubscribe (session: DeviceSession, filter: string): boolean
  /** Whether a message the service published on the topic may reach the client. */
  mayReceive (session: DeviceSession, topic: string): boolean
  /** The connection ended (after its Will, if any, was handed to `publish`). */
  disconnected (client: BusClient): void
}

export type BusPublish = (topic: string, payload: Buffer, opts: { qos: 0 | 1, retain: boolean }) => Promise<void>

export interface MqttBus {
  register (ns: MqttNamespace): void
  /** The namespace of a topic or filter, if one owns it. */
  namespaceOf (topicOrFilter: string): MqttNamespace | undefined
  all (): readonly MqttNamespace[]
  /** The broker's side, set by the MQTT transport once its broker exists. */
  attach (publish: BusPublish): void
  /** Publishes through the embedded broker. @throws when no broker is attached (no MQTT transport in the service) */
  publish: BusPublish
}

export function createMqttBus (): MqttBus {
  const namespaces: MqttNamespace[] = []
  let broker: BusPublish | undefined
  return {
    register (ns) { namespaces.push(ns) },
    namespaceOf: (topic) => namespaces.find((ns) => ns.owns(topic)),
    all: () => namespaces,
    attach (publish) { broker = publish },
    async publish (topic, payload, opts) {
      if (broker === undefined) throw new Error('no MQTT broker in this service')
      await broker(topic, payload, opts)
    }
  }
}
