// Sparkplug B edge nodes (docs/protocols/sparkplug.md) as one device transport
// (ingest/transport.ts). They ride on the embedded MQTT broker the MQTT module offers (capabilities.ts MQTT_BUS: the
// `spBv1.0/` namespace), so the transport has no port of its own; it pushes tasks as NCMD / DCMD to an edge node
// that is online (its NBIRTH seen on an open connection), others wait for its next NBIRTH. The service publishes its
// host STATE (retained, `{"online": true, "timestamp": ...}`) on `spBv1.0/STATE/<SPARKPLUG_HOST_ID>` at start.
import type { DeviceTransport, TransportDeps } from '../transport.js'
import type { MqttBus } from '../mqtt/namespaces.js'
import type { SparkplugNodes } from './sparkplug-nodes.js'
import { createPipeline } from '../pipeline.js'
import { stateTopic } from '../../protocols/sparkplug/index.js'
import { createSparkplugHost } from './host.js'
import { sparkplugNamespace } from './namespace.js'

/** `bus`: the embedded broker's namespaces; `nodes`: the module's service (index.ts). */
export async function sparkplugTransport (deps: TransportDeps, bus: MqttBus, nodes: SparkplugNodes): Promise<DeviceTransport> {
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'SPARKPLUG' })
  const host = createSparkplugHost({ ingest: deps.ingest, pipeline, publish: bus.publish, nodes, log: deps.log, metrics: deps.metrics, now: deps.now })
  bus.register(sparkplugNamespace(host))
  const state = JSON.stringify({ online: true, timestamp: deps.now() })
  await bus.publish(stateTopic(deps.config.SPARKPLUG_HOST_ID), Buffer.from(state), { qos: 1, retain: true })
    .catch((err: unknown) => { deps.log.warn({ err }, 'sparkplug host STATE not published (no MQTT broker in this service)') })
  return {
    name: 'sparkplug',
    protocols: ['SPARKPLUG'],
    connected: host.connected,
    push: host.push,
    connections: () => [{ kind: 'edge-node', count: host.online() }],
    // The broker is the MQTT transport's: it ends the connections. The STATE goes with the broker, which keeps it
    // in memory only: edge nodes lose the host and the broker at once.
    async close () {}
  }
}
