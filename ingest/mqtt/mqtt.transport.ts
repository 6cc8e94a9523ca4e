// MQTT devices (docs/devices.md: MQTT 3.1, 3.1.1 and 5, over TCP on MQTT_PORT, over TLS on MQTTS_PORT and over
// WebSocket at /mqtt) as one device transport (ingest/transport.ts). It pushes tasks: to a connected device at once, and at each
// subscription to the tasks topic, what waits for it.
import type { DeviceTask } from '../../core/domain/device-task.js'
import { encodeTasks } from '../../protocols/airvantage/index.js'
import type { DeviceTransport, TransportDeps, TransportListener } from '../transport.js'
import type { MqttBus } from './namespaces.js'
import { createPipeline } from '../pipeline.js'
import { createMqttEndpoint } from './endpoint.js'
import { mqttPublishHandler } from './publish.js'
import { createConnectionRegistry, type MqttConnection } from './registry.js'
import { createReceivedTasks } from './received-tasks.js'
import mqttWebSocketRoutes from './ws.routes.js'
import { brokerTransport } from '../mqtt-broker/broker.transport.js'
import { createLoginGate } from '../login-gate.js'
import { proxyProtocolOptions } from '../proxy-protocol.js'
import { createDeviceLimits } from '../device-limits.js'
import { createMqttsListener } from './mqtts-listener.js'

/** `mqtt`: the embedded broker's topic namespaces, which the MQTT module offers to others (bin/transports.ts). */
export const mqttTransport = async (deps: TransportDeps & { mqtt: MqttBus }): Promise<DeviceTransport> => {
  // With an external broker (MQTT_URL) the devices connect there and this process reads their topics from it.
  if (deps.config.MQTT_URL !== undefined) return await brokerTransport(deps, new URL(deps.config.MQTT_URL))
  const registry = createConnectionRegistry()
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'MQTT' })

  const received = createReceivedTasks()
  const send = async (c: MqttConnection, tasks: readonly DeviceTask[]): Promise<void> => { await c.sendTasks(encodeTasks(tasks), tasks.map((t) => t.uid)) }

  /**
   * A subscription to the tasks topic: the tasks waiting, and those sent before and not answered (a device that
   * reconnects may have lost them; it ignores one it already ran by its uid, docs/devices.md), but not
   * those it acknowledged receiving (received-tasks.ts).
   */
  function deliverWaiting (c: MqttConnection): void {
    deps.ingest.takeTasks(c.session.systemUid, 'MQTT', { again: true, received: received.of(c.session.systemUid) })
      .then(async (tasks) => { if (tasks.length > 0) await send(c, tasks) })
      .catch((err: unknown) => { deps.log.warn({ err, systemUid: c.session.systemUid }, 'waiting tasks not delivered') })
  }

  const loginGate = createLoginGate({ transport: 'mqtt', perAddress: deps.config.UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS, timeoutMs: deps.config.MQTT_CONNECT_TIMEOUT_MS, metrics: deps.metrics })
  const endpoint = await createMqttEndpoint({
    devices: deps.devices,
    log: deps.log,
    publish: mqttPublishHandler(pipeline),
    registry,
    onTasksSubscribed: deliverWaiting,
    onTasksReceived: received.add,
    loginGate,
    proxyProtocol: proxyProtocolOptions(deps.config, 'mqtt', deps.metrics, deps.log),
    bus: deps.mqtt,
    limits: createDeviceLimits({ config: deps.config, metrics: deps.metrics, now: deps.now, protocol: 'MQTT' })
  })

  const mqtts = deps.tls === undefined
    ? undefined
    : createMqttsListener({ tls: deps.tls, loginGate, connectTimeoutMs: deps.config.MQTT_CONNECT_TIMEOUT_MS, serve: endpoint.handle })
  const listeners: TransportListener[] = []
  if (deps.config.MQTT_PORT !== 'off') listeners.push({ name: 'mqtt', variable: 'MQTT_PORT', listen: endpoint.listen, listening: endpoint.listening })
  if (mqtts !== undefined) listeners.push({ name: 'mqtts', variable: 'MQTTS_PORT', listen: mqtts.listen, listening: mqtts.listening })

  return {
    name: 'mqtt',
    protocols: ['MQTT'],
    http: async (app) => { await app.register(mqttWebSocketRoutes, { mqtt: endpoint }) },
    listeners,
    connected: (systemUid) => registry.connected(systemUid),
    /** QoS 1 on the tasks topic of the latest connection that subscribed to it. */
    async push (systemUid: string, tasks: readonly DeviceTask[]) {
      const c = registry.subscribed(systemUid)
      if (c === undefined) return false
      await send(c, tasks)
      return true
    },
    connections: () => registry.counts().map((c) => ({ kind: c.version, count: c.count })),
    revoked (fingerprint) {
      const gone = registry.all().filter((c) => c.certificate !== undefined && (c.certificate.fingerprint === fingerprint || c.certificate.issuers.includes(fingerprint)))
      for (const c of gone) c.close()
      return gone.length
    },
    async close () {
      await mqtts?.close()
      await endpoint.close()
    }
  }
}
