import type { Logger } from '../../../core/logger.js'
import type { DevicesService } from '../../../core/services/ingest/devices.service.js'
import type { MqttPublishHandler } from '../publish.js'
import type { ConnectionRegistry, MqttConnection } from '../registry.js'
import type { MqttBus } from '../namespaces.js'
import type { BusSubscribers } from '../bus-subscribers.js'
import type { DeviceLimits } from '../../device-limits.js'

/** What every MQTT session (3.1, 3.1.1 and 5) is served with; the registry of connections is shared by them. */
export interface MqttSessionDeps {
  devices: DevicesService
  log: Logger
  publish: MqttPublishHandler
  registry: ConnectionRegistry
  /** A connection subscribed to its tasks topic: its waiting tasks are delivered. */
  onTasksSubscribed: (c: MqttConnection) => void
  /** The device acknowledged (PUBACK) the publish that carried these tasks (received-tasks.ts). */
  onTasksReceived: (systemUid: string, taskUids: readonly string[]) => void
  /** Each device's budget and each connection's backpressure (ingest/device-limits.ts). */
  limits: DeviceLimits
  /** Announced in an MQTT 5 CONNACK (MQTT 5.0 §3.2.2.3.6); the endpoint closes a connection that sends a larger packet. */
  maxPacketBytes: number
  /** Other protocols' topic namespaces (Sparkplug B); absent: only the device's own topics. */
  bus?: MqttBus
  /** Where the sessions' namespace subscriptions are served from (the service's publishes, retained ones). */
  busSubscribers: BusSubscribers
}
