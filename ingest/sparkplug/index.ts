// The Sparkplug B protocol module (ingest/protocol-module.ts): edge nodes riding on the embedded MQTT broker, which it
// asks of the MQTT module (capabilities.ts MQTT_BUS). Its transport (the host: host.ts), its service (node deaths and
// the systems' actions: sparkplug-nodes.ts) and its repository (sparkplug.repository.ts: no table of its own, so no
// migrations).
import type { DeviceProtocolModule } from '../protocol-module.js'
import { MQTT_BUS } from '../capabilities.js'
import { createMqttBus } from '../mqtt/namespaces.js'
import type { SparkplugRepository } from './sparkplug.port.js'
import { createSparkplugRepository } from './sparkplug.repository.js'
import { createSparkplugNodes } from './sparkplug-nodes.js'
import { sparkplugTransport } from './sparkplug.transport.js'

export const sparkplugModule: DeviceProtocolModule<SparkplugRepository> = {
  name: 'sparkplug',
  createStore: createSparkplugRepository,
  async transport (deps) {
    // Without the MQTT module in the list, a bus with no broker: the host's STATE is not published (a warning) and
    // no edge node can connect, as before the modules.
    const bus = deps.capabilities.get(MQTT_BUS) ?? createMqttBus()
    return await sparkplugTransport(deps, bus, createSparkplugNodes({ sparkplug: createSparkplugRepository(deps.db), applications: deps.repos.applications }))
  }
}
