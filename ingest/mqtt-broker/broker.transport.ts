// MQTT devices behind an external broker (docs/cluster.md#external-mqtt-broker-ingest; docs/architecture.md: "ingest
// workers read with shared subscriptions"). The devices connect to the broker, which checks their logins
// (ingest/broker-sync keeps them there); this process reads `<login>/messages/json` and `<login>/acks/json` through
// shared subscriptions, so that every ingest process of the cluster takes a share, and acknowledges each message to the
// broker once committed (consumer.ts). Tasks are published to the broker, QoS 1, on `<login>/tasks/json`.
import mqtt, { type MqttClient } from 'mqtt'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { encodeTasks } from '../../protocols/airvantage/index.js'
import { deviceTopic } from '../../protocols/mqtt/topic.js'
import type { DeviceTransport, TransportDeps } from '../transport.js'
import { createPipeline } from '../pipeline.js'
import { mqttPublishHandler } from '../mqtt/publish.js'
import { startConsumer, type Consumer } from './consumer.js'
import { ensureServiceRole } from './service-role.js'
import { createDynsecClient } from '../broker-sync/dynsec-client.js'

/** The shared subscription group of the ingest processes (MQTT 5.0 §4.8.2). */
export const SHARE_GROUP = 'fleet-ingest'
/** What the ingest processes read: every device's data and acks (the first level is the device's login). */
export const INGEST_TOPICS = [`$share/${SHARE_GROUP}/+/messages/json`, `$share/${SHARE_GROUP}/+/acks/json`] as const
// Connections per process: the broker spreads the shared subscriptions over them, and each holds up to its Receive
// Maximum in flight; two keep the commits fed while one waits for its acknowledgements to go out.
const CONSUMERS = 2
// The broker tells nobody when a device (re)connects, so tasks sent and not answered are sent again this long after
// (a process killed between taking tasks and publishing them, a device that connected with a clean session meanwhile):
// a device acknowledges again, without running it twice, a task uid it already ran (docs/devices.md).
const RESEND_AFTER_MS = 60_000
const RESEND_EVERY_MS = 30_000
const RESEND_SYSTEMS = 1000

/** The device's login: the first level of a device topic. */
const loginOf = (topic: string): string => topic.slice(0, Math.max(0, topic.indexOf('/')))

type DeviceHandler = (topic: string, payload: Buffer) => Promise<void>

/** What a message read from the broker goes through: its login identified, then the MQTT device topics' handler. */
function deviceHandler (deps: TransportDeps, lastLogin: Map<string, string>): DeviceHandler {
  const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'MQTT' })
  const publishOf = mqttPublishHandler(pipeline)
  return async (topic, payload) => {
    const login = loginOf(topic)
    const session = login === '' ? undefined : await deps.devices.identify(login)
    if (session === undefined) {
      // The broker admitted a login the store does not know (deleted since, or a broker account of someone else):
      // acknowledged and counted (fleet_ingest_messages_refused_total), never stored.
      pipeline.refuse('device.unknown')
      return
    }
    lastLogin.set(session.systemUid, login)
    // Refusals are counted by the pipeline; a refused message is acknowledged too (sent again, it would be refused again).
    await publishOf(session, topic, payload)
  }
}

/** The consumers of the device topics and the publisher of tasks, connected (or closed again when one fails). */
async function connectClients (deps: TransportDeps, url: URL, handle: DeviceHandler): Promise<{ consumers: Consumer[], publisher: MqttClient }> {
  const { log } = deps
  // A process without the ingest role only publishes tasks.
  const consumers: Consumer[] = Array.from({ length: deps.accept === false ? 0 : CONSUMERS }, (_, i) => startConsumer({
    url,
    // Stable across restarts of this node: a restarted process resumes its sessions and what they kept.
    clientId: `fleet-${deps.config.FLEET_NODE_ID}-ingest-${i}`,
    topics: INGEST_TOPICS,
    handle,
    log
  }))
  // The publisher of tasks: mqtt.js, which keeps unacknowledged QoS 1 publishes and sends them again on reconnection.
  const publisher: MqttClient = mqtt.connect(url.toString(), {
    clientId: `fleet-${deps.config.FLEET_NODE_ID}-tasks`,
    protocolVersion: 5,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000
  })
  publisher.on('error', (err) => { log.warn({ err: { message: err.message } }, 'external MQTT broker: task publisher error') })
  try {
    await Promise.all([...consumers.map(async (c) => { await c.ready }), new Promise<void>((resolve, reject) => {
      publisher.once('connect', () => { resolve() })
      publisher.once('error', reject)
    })])
  } catch (err) {
    await Promise.all(consumers.map(async (c) => { await c.close() }))
    await publisher.endAsync(true)
    throw err
  }
  return { consumers, publisher }
}

export async function brokerTransport (deps: TransportDeps, url: URL): Promise<DeviceTransport> {
  const { log } = deps
  // The login each system last published with (its tasks go there); a system not seen yet gets them on each login.
  const lastLogin = new Map<string, string>()

  // Mosquitto with dynamic security: the service's account is given what it needs before its first subscription.
  if (deps.config.MQTT_DYNSEC) {
    await ensureServiceRole((timeoutMs) => createDynsecClient(url.toString(), { timeoutMs }), url.toString(), INGEST_TOPICS)
  }
  const { consumers, publisher } = await connectClients(deps, url, deviceHandler(deps, lastLogin))

  async function publishTasks (systemUid: string, tasks: readonly DeviceTask[]): Promise<boolean> {
    const known = lastLogin.get(systemUid)
    const logins = known !== undefined ? [known] : ((await deps.devices.loginsOf([systemUid])).get(systemUid) ?? [])
    if (logins.length === 0) return false
    const body = encodeTasks(tasks)
    await Promise.all(logins.map(async (login) => { await publisher.publishAsync(deviceTopic(login, 'tasks'), body, { qos: 1 }) }))
    return true
  }

  /** The repeatable job: tasks left unanswered RESEND_AFTER_MS after they were sent go out again. */
  async function resend (): Promise<void> {
    const stale = await deps.devices.staleTasks('MQTT', RESEND_AFTER_MS, RESEND_SYSTEMS)
    await Promise.all(stale.map(async ({ systemUid, tasks }) => {
      await publishTasks(systemUid, tasks).catch((err: unknown) => { log.warn({ err, systemUid }, 'device tasks not sent again; the next resend tries') })
    }))
  }

  return {
    name: 'mqtt',
    protocols: ['MQTT'],
    // The broker holds the devices' connections and keeps QoS 1 messages for those in persistent sessions: a task is
    // handed to the broker for every system, whichever process the device's traffic reaches.
    connected: () => true,
    push: publishTasks,
    jobs: { 'mqtt.resend': { everyMs: RESEND_EVERY_MS, run: resend } },
    // The devices' connections are the broker's to count.
    connections: () => [],
    async close () {
      await Promise.all(consumers.map(async (c) => { await c.close() }))
      await publisher.endAsync()
    }
  }
}
