// MQTT 3.1 and 3.1.1 devices (conventions.md §Devices) served on mqtt-packet's parser and generator, as MQTT 5 ones
// are (v5-session.ts), rather than by the aedes broker: a device only publishes its data and acks and receives its
// tasks, and an aedes client (streams, persistence, subscription trees, $SYS publishes) cost about 0.7 ms of CPU per
// connection, most of what a fleet reconnecting after a reboot cost the service (bench reboot: 10,000 devices back
// within seconds). Connections with a Will stay with aedes (endpoint.ts), which publishes it when they are lost
// (Sparkplug B edge nodes: their NDEATH, protocols.md §4). Other protocols' namespaces work here too: publishes go to
// their namespace, subscriptions get the service's publishes and retained messages (bus-subscribers.ts).
//
// The device rules are those of the aedes path: the login of conventions.md §Devices (CONNACK 4 for bad credentials,
// 5 for a filtered address, 3 when the store is unavailable, 2 for an empty client id without a clean session),
// publishes and subscriptions under the device's own `<username>/` only, a QoS 1 PUBACK (QoS 2 PUBREC) only after the
// commit, a payload refused or a topic forbidden acknowledged and dropped (MQTT 3.1.1 has no negative
// acknowledgement), nothing retained.
import mqtt, { type Packet, type IConnectPacket, type IPublishPacket, type ISubscribePacket } from 'mqtt-packet'
import type { Duplex } from 'node:stream'
import type { DeviceAuthResult, DeviceSession } from '../../core/services/ingest/devices.service.js'
import { deviceTopic, ownsTopic, topicMatches, wantsTasks } from '../../protocols/mqtt/topic.js'
import type { MqttConnection } from './registry.js'
import type { V5Deps } from './v5-session.js'
import type { BusClient, MqttBus } from './namespaces.js'
import type { BusSubscriber, BusSubscribers } from './bus-subscribers.js'
import { turnWriter } from './turn-writer.js'

/** MQTT 3.1.1 §3.2.2.3 CONNACK return codes. */
const RC = { accepted: 0, identifierRejected: 2, serverUnavailable: 3, badCredentials: 4, notAuthorized: 5 } as const
/** MQTT 3.1.1 §3.9.3: a refused subscription. */
const SUBSCRIPTION_FAILURE = 0x80

export type V4Deps = Omit<V5Deps, 'maxPacketBytes'> & {
  /** Other protocols' topic namespaces (Sparkplug B); absent: only the device's own topics. */
  bus?: MqttBus
  /** Where this session's namespace subscriptions are served from (the service's publishes, retained ones). */
  busSubscribers: BusSubscribers
}

/**
 * Serves one MQTT 3.1 or 3.1.1 connection without a Will until it closes; once logged in it is in the registry.
 * `onLoggedIn`: told when the CONNACK that accepts it is sent (the endpoint's login deadline ends there).
 */
export function serveV4 (stream: Duplex, remoteAddress: string, deps: V4Deps, onLoggedIn: () => void = () => {}): void {
  const parser = mqtt.parser()
  let protocolVersion: 3 | 4 = 4
  let session: DeviceSession | undefined
  let self: MqttConnection | undefined
  /** Granted subscription filters and their QoS: the device's own topics, and other protocols' namespaces. */
  const filters = new Map<string, 0 | 1>()
  const nsFilters = new Map<string, 0 | 1>()
  /** The connection as the namespaces see it, once it used one. */
  let busClient: BusClient | undefined
  /** The task uids of each tasks publish waiting for its PUBACK, by packet id. */
  const inflightTasks = new Map<number, readonly string[]>()
  /** QoS 2 publishes stored and waiting for their PUBREL (MQTT 3.1.1 §4.3.3), by packet id. */
  const awaitingRelease = new Set<number>()
  let nextId = 1
  let keepAliveTimer: NodeJS.Timeout | undefined
  let keepAliveMs = 0
  let closed = false
  let packets: Promise<void> = Promise.resolve()
  let acks: Promise<void> = Promise.resolve()

  const write = turnWriter(stream)
  const send = (p: Packet): void => { if (!closed && stream.writable) write(mqtt.generate(p, { protocolVersion })) }
  const pressure = deps.limits.pressure(stream)
  const packetId = (): number => { const id = nextId; nextId = nextId >= 65535 ? 1 : nextId + 1; return id }
  const busSubscriber: BusSubscriber = {
    filters: nsFilters,
    mayReceive: (topic) => session !== undefined && deps.bus?.namespaceOf(topic)?.mayReceive(session, topic) === true,
    send: (topic, payload, qos) => { publishTo(topic, payload, qos, false) }
  }
  /** A publish of the service to this device (a namespace's message, a retained one on its subscription). */
  const publishTo = (topic: string, payload: Buffer, qos: 0 | 1, retain: boolean): void => {
    send({ cmd: 'publish', topic, payload, qos, retain, dup: false, ...(qos === 1 ? { messageId: packetId() } : {}) } as IPublishPacket)
  }
  const close = (): void => {
    if (closed) return
    closed = true
    clearTimeout(keepAliveTimer)
    stream.end()
    stream.destroy()
  }
  const touch = (): void => {
    if (keepAliveMs === 0) return
    clearTimeout(keepAliveTimer)
    // MQTT 3.1.1 §3.1.2.10: one and a half times the keep alive without a packet closes the connection.
    keepAliveTimer = setTimeout(close, keepAliveMs * 1.5)
  }

  /** The QoS tasks are sent at: the highest granted to a filter matching the tasks topic (MQTT 3.1.1 §3.3.5). */
  const tasksQos = (username: string): 0 | 1 => {
    const topic = deviceTopic(username, 'tasks')
    let qos: 0 | 1 = 0
    for (const [f, q] of filters) if (q === 1 && topicMatches(f, topic)) qos = 1
    return qos
  }

  const connection = (s: DeviceSession, clientId: string): MqttConnection => ({
    session: s,
    version: '3.1.1',
    clientId,
    wantsTasks: () => wantsTasks(s.username, filters.keys()),
    async sendTasks (payload, taskUids) {
      if (closed) return
      const qos = tasksQos(s.username)
      if (qos === 0) {
        send({ cmd: 'publish', topic: deviceTopic(s.username, 'tasks'), payload: Buffer.from(payload), qos: 0, retain: false, dup: false } as IPublishPacket)
        return
      }
      const messageId = packetId()
      inflightTasks.set(messageId, taskUids)
      send({ cmd: 'publish', topic: deviceTopic(s.username, 'tasks'), payload: Buffer.from(payload), qos: 1, retain: false, dup: false, messageId } as IPublishPacket)
    },
    close
  })

  async function onConnect (p: IConnectPacket): Promise<void> {
    if (session !== undefined) { close(); return } // MQTT 3.1.1 §3.1.0-2: a second CONNECT is a protocol violation
    protocolVersion = p.protocolVersion === 3 ? 3 : 4
    const connack = (returnCode: number): void => { send({ cmd: 'connack', returnCode, sessionPresent: false } as Packet) }
    // MQTT 3.1.1 §3.1.3.1: an empty client id needs a clean session.
    if (p.clientId === '' && p.clean === false) { connack(RC.identifierRejected); close(); return }
    const username = p.username ?? ''
    if (username === '' || p.password === undefined) { connack(RC.badCredentials); close(); return }
    let auth: DeviceAuthResult
    try {
      auth = await deps.devices.authenticate(username, p.password.toString('utf8'), 'mqtt', remoteAddress)
    } catch (err) {
      // The login could not be checked (the store is unavailable): return code 3, which devices retry.
      deps.log.error({ err }, 'mqtt authentication failed')
      connack(RC.serverUnavailable)
      close()
      return
    }
    if (closed) return
    if (!auth.ok) { connack(auth.reason === 'device.ip.forbidden' ? RC.notAuthorized : RC.badCredentials); close(); return }
    // Client ids are free (conventions.md §Devices), scoped to their system: a connection of the same system with
    // the same id is taken over (MQTT 3.1.1 §3.1.4); another system's is never touched (registry.ts).
    const claim = deps.registry.claim(auth.session.systemUid, p.clientId)
    if (claim.kind === 'take-over') claim.holder.close({ takenOver: true })
    session = auth.session
    keepAliveMs = (p.keepalive ?? 0) * 1000
    connack(RC.accepted)
    // The keep alive runs from the CONNACK: a device silent from then on is closed like one that went silent later.
    touch()
    onLoggedIn()
    self = connection(auth.session, p.clientId)
    deps.registry.add(self)
  }

  /** Starts storing; the acknowledgement waits for the commit and keeps the order of the publishes (§4.6). */
  function onPublish (p: IPublishPacket): void {
    if (session === undefined) { close(); return }
    // MQTT 3.1.1 §4.7.1: no wildcard in a topic name; §4.7.3: not empty.
    if (p.topic === '' || p.topic.includes('+') || p.topic.includes('#')) { close(); return }
    const id = p.messageId ?? 0
    // A QoS 2 publish sent again before its PUBREL (§4.3.3) is stored once: its PUBREC is sent again.
    if (p.qos === 2 && awaitingRelease.has(id)) { acks = acks.then(() => { send({ cmd: 'pubrec', messageId: id }) }); return }
    const payload = typeof p.payload === 'string' ? Buffer.from(p.payload) : p.payload
    // The packet (its payload) is not kept until the acknowledgement: only what it needs.
    const { qos } = p
    if (closed) return // the rest of a chunk read before the connection was closed
    const admitted = deps.limits.admit(session.systemUid, payload.length)
    if (!admitted.ok) {
      // Over the device's budget (README "Device limits"), not stored. MQTT 3.1.1 has no negative acknowledgement:
      // QoS 0 is dropped; QoS 1 and 2 are not acknowledged and the connection closes, as when the store is
      // unavailable, so the device sends them again once reconnected rather than losing them acknowledged.
      if (admitted.disconnect) deps.limits.disconnected()
      if (admitted.disconnect || qos > 0) close()
      return
    }
    // A topic of another protocol's namespace (Sparkplug B) goes to it.
    const ns = deps.bus?.namespaceOf(p.topic)
    const s = session
    busClient ??= ns === undefined ? undefined : { session: s, clientId: self?.clientId ?? '', close }
    const stored = ns === undefined || busClient === undefined ? deps.publish(s, p.topic, payload) : ns.publish(busClient, p.topic, payload)
    const release = pressure.track(payload.length)
    stored.then(release, release)
    acks = acks.then(async () => {
      try {
        await stored // refused or forbidden: acknowledged and dropped, the connection stays
        if (qos === 1) send({ cmd: 'puback', messageId: id })
        if (qos === 2) { awaitingRelease.add(id); send({ cmd: 'pubrec', messageId: id }) }
      } catch (err) {
        // Not stored: no acknowledgement; the device sends it again after reconnecting.
        deps.log.warn({ err }, 'mqtt message not stored')
        close()
      }
    })
  }

  function onSubscribe (p: ISubscribePacket): void {
    if (session === undefined) { close(); return }
    const s = session
    // The device's own topics (conventions.md §Devices), or what a namespace allows in its own (Sparkplug B).
    const own: string[] = []
    const inNamespaces: string[] = []
    const granted = p.subscriptions.map((sub) => {
      const ns = deps.bus?.namespaceOf(sub.topic)
      if (!(ns === undefined ? ownsTopic(s.username, sub.topic) : ns.maySubscribe(s, sub.topic))) return SUBSCRIPTION_FAILURE
      const qos = Math.min(sub.qos, 1) as 0 | 1
      if (ns === undefined) { filters.set(sub.topic, qos); own.push(sub.topic) } else { nsFilters.set(sub.topic, qos); inNamespaces.push(sub.topic) }
      return qos
    })
    send({ cmd: 'suback', messageId: p.messageId, granted } as Packet)
    if (inNamespaces.length > 0) {
      deps.busSubscribers.add(busSubscriber)
      // MQTT 3.1.1 §3.3.1.3: the retained messages a new subscription matches, sent with their retain flag.
      for (const f of inNamespaces) {
        for (const r of deps.busSubscribers.retained(f)) if (busSubscriber.mayReceive(r.topic)) publishTo(r.topic, r.payload, nsFilters.get(f) ?? 0, true)
      }
    }
    if (self !== undefined && wantsTasks(s.username, own)) deps.onTasksSubscribed(self)
  }

  async function onPacket (p: Packet): Promise<void> {
    touch()
    if (session === undefined && p.cmd !== 'connect') { close(); return } // §3.1.0-1: CONNECT comes first
    switch (p.cmd) {
      case 'connect': return await onConnect(p)
      case 'publish': { const room = pressure.room(); if (room !== undefined) await room; onPublish(p); return }
      case 'pubrel': {
        const id = p.messageId ?? 0
        acks = acks.then(() => { awaitingRelease.delete(id); send({ cmd: 'pubcomp', messageId: id }) })
        return
      }
      case 'subscribe': onSubscribe(p); return
      case 'unsubscribe':
        for (const f of p.unsubscriptions) { filters.delete(f); nsFilters.delete(f) }
        send({ cmd: 'unsuback', messageId: p.messageId } as Packet)
        return
      case 'pingreq': send({ cmd: 'pingresp' }); return
      case 'disconnect': close(); return
      case 'puback': {
        const uids = inflightTasks.get(p.messageId ?? 0)
        if (uids === undefined || session === undefined) return
        inflightTasks.delete(p.messageId ?? 0)
        deps.onTasksReceived(session.systemUid, uids)
        return
      }
      default: close()
    }
  }

  parser.on('packet', (p: Packet) => {
    // Packets are handled in order (a PUBLISH right behind CONNECT waits for the login); publishes only start their
    // write here, so many of one connection are stored together by the group commit.
    packets = packets.then(async () => { await onPacket(p) })
      .catch((err: unknown) => { deps.log.warn({ err }, 'mqtt packet failed'); close() })
  })
  parser.on('error', () => { close() })
  stream.on('data', (chunk: Buffer) => { if (!closed) parser.parse(chunk) })
  stream.on('error', () => { close() })
  stream.on('end', () => { close() })
  stream.on('close', () => {
    closed = true
    clearTimeout(keepAliveTimer)
    if (self !== undefined) deps.registry.remove(self)
    deps.busSubscribers.remove(busSubscriber)
    const b = busClient
    if (b !== undefined) for (const ns of deps.bus?.all() ?? []) ns.disconnected(b)
  })
}
