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
import { handleMqttPublish, ownTopic, type PublishDeps } from '../device-publish.js'
import { topicMatches } from '../../protocols/mqtt/topic.js'

export interface AedesBrokerDeps extends PublishDeps {
  devices: DevicesService
  log: Logger
  /** Tasks waiting for the device, as the JSON payload to publish, or undefined when none. */
  pendingTasks: (session: DeviceSession) => Promise<string | undefined>
}

export interface AedesBroker {
  handle (stream: Connection, remoteAddress: string, req?: IncomingMessage): void
  /** Publishes the tasks to the system's connections here that subscribed to them; false when there is none. */
  publishTasks (systemUid: string, payload: string): Promise<boolean>
  /** Authenticated connections now (the connected devices metric). */
  connected (): number
  close (): Promise<void>
}

// Device publishes end here once stored: '$' topics are matched by no wildcard filter (MQTT 3.1.1 §4.7.2) and no
// device may subscribe outside its own `<username>/`.
const CONSUMED_TOPIC = '$fleet/consumed'

const tasksTopic = (username: string): string => `${username}/tasks/json`

function authError (message: string, code: 2 | 3 | 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError
}

export async function createAedesBroker (deps: AedesBrokerDeps): Promise<AedesBroker> {
  const sessions = new WeakMap<Client, DeviceSession>()
  const addresses = new WeakMap<object, string>()
  /** Connected clients by system, and by client id. */
  const online = new Map<string, Set<Client>>()
  const byClientId = new Map<string, Client>()
  /** The topic filters each client subscribed to (granted ones only). */
  const filters = new WeakMap<Client, Set<string>>()
  const wantsTasks = (client: Client, username: string): boolean =>
    [...(filters.get(client) ?? [])].some((f) => topicMatches(f, tasksTopic(username)))

  const broker: Aedes = await Aedes.createBroker({
    authenticate (client, username, password, done) {
      const ip = addresses.get(client.conn) ?? ''
      if (username === undefined || password === undefined) { done(authError('credentials required', 4), false); return }
      deps.devices.authenticate(username, password.toString('utf8'), 'mqtt', ip).then((r) => {
        if (!r.ok) { done(authError(r.reason, r.reason === 'device.ip.forbidden' ? 5 : 4), false); return }
        // Client ids are free (conventions.md §Devices) but one device must not take another's over: a client id
        // held by another system's connection is refused (MQTT 3.1.1 §3.2.2.3: 2, identifier rejected).
        const holder = byClientId.get(client.id)
        const holderSession = holder === undefined ? undefined : sessions.get(holder)
        if (holderSession !== undefined && holderSession.systemUid !== r.session.systemUid) { done(authError('client id in use', 2), false); return }
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
      handleMqttPublish(deps, session, packet.topic, packet.payload as Buffer).then(() => {
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
      const allowed = session !== undefined && ownTopic(session, sub.topic) !== undefined
      done(null, allowed ? { ...sub, qos: Math.min(sub.qos, 1) as 0 | 1 } : null) // null: SUBACK 0x80 for this topic
    },
    authorizeForward (client, packet) {
      const session = sessions.get(client)
      return session !== undefined && packet.topic === tasksTopic(session.username) ? packet : null
    }
  })

  broker.on('client', (client) => {
    const s = sessions.get(client)
    if (s === undefined) return
    const mine = online.get(s.systemUid) ?? new Set<Client>()
    mine.add(client)
    online.set(s.systemUid, mine)
    byClientId.set(client.id, client)
  })
  broker.on('clientDisconnect', (client) => {
    if (byClientId.get(client.id) === client) byClientId.delete(client.id)
    const s = sessions.get(client)
    const mine = s === undefined ? undefined : online.get(s.systemUid)
    if (s === undefined || mine === undefined) return
    mine.delete(client)
    if (mine.size === 0) online.delete(s.systemUid)
  })
  broker.on('unsubscribe', (topics, client) => {
    for (const t of topics) filters.get(client)?.delete(t)
  })
  broker.on('subscribe', (subs, client) => {
    const mine = filters.get(client) ?? new Set<string>()
    for (const x of subs) mine.add(x.topic)
    filters.set(client, mine)
    const s = sessions.get(client)
    if (s === undefined || !subs.some((x) => topicMatches(x.topic, tasksTopic(s.username)))) return
    deps.pendingTasks(s).then(async (payload) => { if (payload !== undefined) await publishOn(tasksTopic(s.username), payload) },
      (err: unknown) => { deps.log.warn({ err }, 'pending tasks not delivered') })
  })

  async function publishOn (topic: string, payload: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      broker.publish({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 1, retain: false, dup: false },
        (err) => { if (err != null) reject(err); else resolve() })
    })
  }

  /** On each login topic of the system that a connection here subscribed to (serial and IMEI may both be in use). */
  async function publishTasks (systemUid: string, payload: string): Promise<boolean> {
    const usernames = new Set<string>()
    for (const client of online.get(systemUid) ?? []) {
      const s = sessions.get(client)
      if (s !== undefined && wantsTasks(client, s.username)) usernames.add(s.username)
    }
    for (const u of usernames) await publishOn(tasksTopic(u), payload)
    return usernames.size > 0
  }

  return {
    handle (stream, remoteAddress, req) {
      addresses.set(stream, remoteAddress)
      broker.handle(stream, req)
    },
    publishTasks,
    connected: () => { let n = 0; for (const mine of online.values()) n += mine.size; return n },
    async close () { await new Promise<void>((resolve) => { broker.close(() => { resolve() }) }) }
  }
}
