// Sparkplug B edge nodes (issue 13; protocols.md §4; conventions.md §Devices, Sparkplug B) as one device transport
// (ingest/transport.ts). They ride on the embedded MQTT broker of the MQTT transport (TransportDeps.mqtt: the
// `spBv1.0/` namespace), so the transport has no port of its own; it pushes tasks as NCMD / DCMD to an edge node
// that is online (its NBIRTH seen on an open connection), others wait for its next NBIRTH. The service publishes its
// host STATE (retained, `{"online": true, "timestamp": ...}`) on `spBv1.0/STATE/<SPARKPLUG_HOST_ID>` at start.
import type { DeviceTransport, TransportFactory } from '../transport.js'
import { createPipeline } from '../pipeline.js'
import { stateTopic } from '../../protocols/sparkplug/index.js'
import { createSparkplugHost } from './host.js'
import { sparkplugNamespace } from './namespace.js'

export const sparkplugTransport: TransportFactory = async (deps): Promise<DeviceTransport> => {
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'SPARKPLUG' })
  const host = createSparkplugHost({ ingest: deps.ingest, pipeline, publish: deps.mqtt.publish, nodes: deps.sparkplug, log: deps.log, metrics: deps.metrics, now: deps.now })
  deps.mqtt.register(sparkplugNamespace(host))
  const state = JSON.stringify({ online: true, timestamp: deps.now() })
  await deps.mqtt.publish(stateTopic(deps.config.SPARKPLUG_HOST_ID), Buffer.from(state), { qos: 1, retain: true })
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
