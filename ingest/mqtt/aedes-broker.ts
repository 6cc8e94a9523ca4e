// MQTT 3.1 and 3.1.1 devices on the embedded aedes broker (conventions.md §Devices).
// Acknowledge after commit: aedes writes a QoS 1 PUBACK only after authorizePublish has called back (aedes
// lib/handlers/publish.js), so the durable write happens there and the device's message is acknowledged only once
// it is stored. A malformed payload is refused and counted but the connection stays: authorizePublish lets it
// through, retargeted to a topic no device can subscribe to and never retained, so that aedes neither routes a
// device's publish (not even back to the device as a task) nor keeps it in memory.
import { Aedes, type Client, type AuthenticateError, type Connection } from 'aedes'
import type { IncomingMessage } from 'node:http'
import type { Logger } from '../../core/logger.js'
import type { DevicesService, DeviceSession } from '../../core/services/ingest/devices.service.js'
import { deviceTopic, ownsTopic, wantsTasks } from '../../protocols/mqtt/topic.js'
import type { MqttPublishHandler } from './publish.js'
import type { ConnectionRegistry, MqttConnection } from './registry.js'
import type { BusClient, MqttBus } from './namespaces.js'
import type { BusSubscribers } from './bus-subscribers.js'
import type { DeviceLimits } from '../device-limits.js'

export interface AedesBrokerDeps {
  devices: DevicesService
  log: Logger
  publish: MqttPublishHandler
  registry: ConnectionRegistry
  /** A connection subscribed to its tasks topic: its waiting tasks are delivered. */
  onTasksSubscribed: (c: MqttConnection) => void
  /** The device acknowledged (PUBACK) the publish that carried these tasks (received-tasks.ts). */
  onTasksReceived: (systemUid: string, taskUids: readonly string[]) => void
  /** Other protocols' topic namespaces on this broker (Sparkplug B); the broker publishes for them through it. */
  bus?: MqttBus
  /** The namespace subscriptions of the connections aedes does not serve (v4-session.ts): they get the same publishes. */
  busSubscribers?: BusSubscribers
  /** Each device's budget (ingest/device-limits.ts); aedes reads a connection's next packets only once its last are handled. */
  limits: DeviceLimits
}

export interface AedesBroker {
  /** `onLoggedIn`: told when the CONNACK that accepts the connection is sent. */
  handle (stream: Connection, remoteAddress: string, req?: IncomingMessage, onLoggedIn?: () => void): void
  close (): Promise<void>
}

// Device publishes end here once stored: '$' topics are matched by no wildcard filter (MQTT 3.1.1 §4.7.2) and no
// device may subscribe outside its own `<username>/`.
const CONSUMED_TOPIC = '$fleet/consumed'

function authError (message: string, code: 2 | 3 | 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError
}

export async function createAedesBroker (deps: AedesBrokerDeps): Promise<AedesBroker> {
  const sessions = new WeakMap<Client, DeviceSession>()
  const addresses = new WeakMap<object, string>()
  const loggedIn = new WeakMap<object, () => void>()
  /** The client id each client gave (aedes knows it prefixed with its system, see authenticate). */
  const clientIds = new WeakMap<Client, string>()
  /** The registry's view of the connections aedes serves: aedes takes those over itself. */
  const own = new WeakSet<MqttConnection>()
  const connections = new WeakMap<Client, MqttConnection>()
  /** The topic filters each client subscribed to (granted ones only). */
  const filters = new WeakMap<Client, Set<string>>()
  /** Those of them granted at QoS 0. */
  const qos0 = new WeakMap<Client, Set<string>>()
  /** The task uids of each tasks publish sent to a client and not acknowledged yet, oldest first. */
  const awaitingAck = new WeakMap<Client, Array<readonly string[]>>()
  /** Each connection as the bus's namespaces see it. */
  const busClients = new WeakMap<Client, BusClient>()
  const busClient = (client: Client, session: DeviceSession): BusClient => {
    let c = busClients.get(client)
    if (c === undefined) {
      c = { session, clientId: clientIds.get(client) ?? client.id, close: () => { client.close() } }
      busClients.set(client, c)
    }
    return c
  }

  const broker: Aedes = await Aedes.createBroker({
    authenticate (client, username, password, done) {
      const ip = addresses.get(client.conn) ?? ''
      if (username === undefined || password === undefined) { done(authError('credentials required', 4), false); return }
      deps.devices.authenticate(username, password.toString('utf8'), 'mqtt', ip).then((r) => {
        if (!r.ok) { done(authError(r.reason, r.reason === 'device.ip.forbidden' ? 5 : 4), false); return }
        // Client ids are free (README, "Connections and client ids") and scoped to their system (registry.ts). Aedes keys its
        // sessions (take-over, Will, subscriptions) by client id across the broker, so from here on it knows this
        // client as `<systemUid>/<clientId>`: another system's connection with the same id is never taken over, nor
        // refused because of it. A connection of the same system that a session of ours serves is taken over here;
        // aedes takes over its own (the connect sequence registers the client after this callback).
        const id = client.id
        const claim = deps.registry.claim(r.session.systemUid, id)
        if (claim.kind === 'take-over' && !own.has(claim.holder)) claim.holder.close({ takenOver: true })
        clientIds.set(client, id)
        client.id = `${r.session.systemUid}/${id}`
        sessions.set(client, r.session)
        done(null, true)
      }, (err: unknown) => {
        // The login could not be checked (the store is unavailable): MQTT 3.1.1 §3.2.2.3 return code 3, server
        // unavailable, which devices retry, rather than 5, not authorized, which says the credentials are wrong.
        deps.log.error({ err }, 'mqtt authentication failed')
        done(authError('server unavailable', 3), false)
      })
    },
    authorizePublish (client, packet, done) {
      const session = client === null ? undefined : sessions.get(client)
      if (session === undefined) { done(new Error('not authenticated')); return }
      const admitted = deps.limits.admit(session.systemUid, (packet.payload as Buffer).length)
      if (!admitted.ok) {
        // Over the device's budget (README "Device limits"), as on v4-session.ts: QoS 0 dropped (consumed below),
        // QoS 1 not acknowledged and the connection closed (aedes closes it on an error), so the device sends again.
        if (admitted.disconnect) deps.limits.disconnected()
        if (admitted.disconnect || packet.qos > 0) { done(new Error('message rate too high')); return }
        packet.topic = CONSUMED_TOPIC
        packet.retain = false
        done(null)
        return
      }
      // A topic of another protocol's namespace (Sparkplug B) goes to it, the Will of the connection included.
      const ns = deps.bus?.namespaceOf(packet.topic)
      const handled = ns === undefined
        ? deps.publish(session, packet.topic, packet.payload as Buffer)
        : ns.publish(busClient(client as Client, session), packet.topic, packet.payload as Buffer)
      handled.then(() => {
        // A publish outside the device's own topics was counted (topic.forbidden) and is dropped here like any
        // consumed one. MQTT 3.1.1 has no negative PUBACK; closing the connection instead made the device send it
        // again after every reconnect, forever. Acknowledged and dropped, as Mosquitto does (conventions.md §Devices).
        packet.topic = CONSUMED_TOPIC
        packet.retain = false
        done(null)
      }, (err: unknown) => {
        // Not stored: no PUBACK; the connection closes and the device sends the message again.
        deps.log.warn({ err }, 'mqtt message not stored')
        done(err as Error)
      })
    },
    authorizeSubscribe (client, sub, done) {
      const session = sessions.get(client)
      const ns = deps.bus?.namespaceOf(sub.topic)
      const allowed = session !== undefined && (ns === undefined ? ownsTopic(session.username, sub.topic) : ns.maySubscribe(session, sub.topic))
      done(null, allowed ? { ...sub, qos: Math.min(sub.qos, 1) as 0 | 1 } : null) // null: SUBACK 0x80 for this topic
    },
    authorizeForward (client, packet) {
      const session = sessions.get(client)
      if (session === undefined) return null
      const ns = deps.bus?.namespaceOf(packet.topic)
      if (ns !== undefined) return ns.mayReceive(session, packet.topic) ? packet : null
      return packet.topic === deviceTopic(session.username, 'tasks') ? packet : null
    }
  })

  /** Publishes through aedes, which routes to the 3.1.1 connections of that login subscribed to it. */
  async function publishOn (topic: string, payload: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      broker.publish({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 1, retain: false, dup: false },
        (err) => { if (err != null) reject(err); else resolve() })
    })
  }

  broker.on('client', (client) => {
    const session = sessions.get(client)
    if (session === undefined) return
    const c: MqttConnection = {
      session,
      version: '3.1.1',
      clientId: clientIds.get(client) ?? client.id,
      wantsTasks: () => wantsTasks(session.username, filters.get(client) ?? []),
      sendTasks: async (payload, taskUids) => {
        const topic = deviceTopic(session.username, 'tasks')
        // aedes sends it at QoS 0, unacknowledged, to a subscription of that very topic at QoS 0 (lib/client.js).
        if (qos0.get(client)?.has(topic) !== true) {
          const queue = awaitingAck.get(client) ?? []
          queue.push(taskUids) // before it leaves: its PUBACK may be read before the publish's own callback
          awaitingAck.set(client, queue)
        }
        await publishOn(topic, payload)
      },
      close: () => { client.close() }
    }
    connections.set(client, c)
    own.add(c)
    deps.registry.add(c)
  })
  // The accepting CONNACK ends the endpoint's login deadline (aedes arms the keep alive before it, at the CONNECT).
  broker.on('connackSent', (packet, client) => {
    if (packet.returnCode === 0) loggedIn.get(client.conn)?.()
  })
  // A device's PUBACK: aedes tells which client sent it but, for a clean session (it stores no outgoing copy), not
  // which publish it acknowledges. The only QoS 1 publishes an MQTT device is sent are its tasks (authorizeForward),
  // and a client acknowledges QoS 1 publishes in the order it received them (MQTT 3.1.1 §4.6): the oldest task
  // publish waiting is the one acknowledged.
  broker.on('ack', (_packet, client) => {
    const session = client === null ? undefined : sessions.get(client)
    const uids = client === null ? undefined : awaitingAck.get(client)?.shift()
    if (session !== undefined && uids !== undefined) deps.onTasksReceived(session.systemUid, uids)
  })
  broker.on('clientDisconnect', (client) => {
    const c = connections.get(client)
    if (c !== undefined) deps.registry.remove(c)
    const b = busClients.get(client)
    if (b !== undefined) for (const ns of deps.bus?.all() ?? []) ns.disconnected(b)
  })
  broker.on('unsubscribe', (topics, client) => {
    for (const t of topics) filters.get(client)?.delete(t)
  })
  broker.on('subscribe', (subs, client) => {
    const mine = filters.get(client) ?? new Set<string>()
    const low = qos0.get(client) ?? new Set<string>()
    for (const x of subs) {
      mine.add(x.topic)
      if (x.qos === 0) low.add(x.topic)
      else low.delete(x.topic)
    }
    qos0.set(client, low)
    filters.set(client, mine)
    const c = connections.get(client)
    if (c !== undefined && wantsTasks(c.session.username, subs.map((x) => x.topic))) deps.onTasksSubscribed(c)
  })

  deps.bus?.attach(async (topic, payload, { qos, retain }) => {
    deps.busSubscribers?.deliver(topic, payload, { qos, retain })
    await new Promise<void>((resolve, reject) => {
      broker.publish({ cmd: 'publish', topic, payload, qos, retain, dup: false }, (err) => { if (err != null) reject(err); else resolve() })
    })
  })

  return {
    handle (stream, remoteAddress, req, onLoggedIn) {
      addresses.set(stream, remoteAddress)
      if (onLoggedIn !== undefined) loggedIn.set(stream, onLoggedIn)
      broker.handle(stream, req)
    },
    async close () { await new Promise<void>((resolve) => { broker.close(() => { resolve() }) }) }
  }
}
