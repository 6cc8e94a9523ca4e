// What one protocol module offers the others of the same service, by name: today the MQTT module's embedded broker
// (its topic namespaces), on which Sparkplug B rides. A module asks for what it needs instead of every transport
// being given it (docs/decisions/0013-protocol-modules.md); the modules are built in the order of their list, so an
// offer comes before the asks of the modules after it.
import type { MqttBus } from './mqtt/namespaces.js'

/** The key of a capability; its type parameter is the type of what is offered under it. */
export interface Capability<T> {
  readonly name: string
  /** Never set: carries T for the type checker. */
  readonly type?: T
}

export interface Capabilities {
  offer: <T>(key: Capability<T>, value: T) => void
  /** What a module earlier in the list offered under the key, undefined when none did. */
  get: <T>(key: Capability<T>) => T | undefined
}

export function createCapabilities (): Capabilities {
  const offered = new Map<string, unknown>()
  return {
    offer (key, value) {
      if (offered.has(key.name)) throw new Error(`capability ${key.name} offered twice`)
      offered.set(key.name, value)
    },
    get: <T>(key: Capability<T>) => offered.get(key.name) as T | undefined
  }
}

/** The embedded MQTT broker's topic namespaces (ingest/mqtt/namespaces.ts), offered by the MQTT module. */
export const MQTT_BUS: Capability<MqttBus> = { name: 'mqtt.bus' }
