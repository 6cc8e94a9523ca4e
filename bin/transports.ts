// The device protocols the service runs: a protocol is a folder under ingest/ plus one line here
// (ingest/protocol-module.ts; docs/decisions/0013-protocol-modules.md). The service, readiness, the connected-devices
// metric and the test stack iterate this list; none names a protocol. Modules are built in this order: one that
// offers a capability (the MQTT module's embedded broker) comes before those that ask for it (Sparkplug B).
import type { DeviceProtocolModule, ProtocolEntry } from '../ingest/protocol-module.js'
import { MQTT_BUS } from '../ingest/capabilities.js'
import { createMqttBus } from '../ingest/mqtt/namespaces.js'
import { mqttTransport } from '../ingest/mqtt/mqtt.transport.js'
import { restTransport } from '../ingest/rest/rest.transport.js'
import { m3daModule } from '../ingest/m3da/index.js'
import { msciModule } from '../ingest/msci/index.js'
import { sparkplugModule } from '../ingest/sparkplug/index.js'
import { ddiModule } from '../ingest/ddi/index.js'
import { lwm2mModule } from '../ingest/lwm2m/index.js'
import { brokerAuthTransport } from '../ingest/broker-auth/broker-auth.transport.js'

/** MQTT devices, and the embedded broker's topic namespaces offered to the protocols that ride on it. */
export const mqttModule: DeviceProtocolModule = {
  name: 'mqtt',
  async transport (deps) {
    const mqtt = createMqttBus()
    deps.capabilities.offer(MQTT_BUS, mqtt)
    return await mqttTransport({ ...deps, mqtt })
  }
}

export const transports: readonly ProtocolEntry[] = [mqttModule, restTransport, m3daModule, msciModule, sparkplugModule, ddiModule, lwm2mModule, brokerAuthTransport]
