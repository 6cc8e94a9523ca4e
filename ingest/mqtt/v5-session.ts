// MQTT 5 devices (conventions.md §Devices: MQTT 3.1, 3.1.1 and 5). The embedded aedes broker speaks 3.1/3.1.1
// only, so MQTT 5 connections are served here, on mqtt-packet's parser and generator, with the same device rules.
// MQTT 5 has negative acknowledgements, so a refused payload gets PUBACK 0x99 and the connection stays (§3.4.2.1).
import mqtt, { type Packet, type IConnectPacket, type IPublishPacket, type ISubscribePacket } from 'mqtt-packet'
import type { Duplex } from 'node:stream'
import type { Logger } from '../../core/logger.js'
import type { DeviceAuthResult, DevicesService, DeviceSession } from '../../core/services/ingest/devices.service.js'
import { deviceTopic, ownsTopic, wantsTasks } from '../../protocols/mqtt/topic.js'
import type { MqttPublishHandler } from './publish.js'
import type { ConnectionRegistry, MqttConnection } from './registry.js'
import { turnWriter } from './turn-writer.js'
import type { DeviceLimits } from '../device-limits.js'
import { isBufferFull } from '../../core/services/ingest/buffer-bytes.js'

// MQTT 5.0 §2.4 reason codes used here.
const RC = {
  success: 0x00,
  unspecified: 0x80,
  protocolError: 0x82,
  badCredentials: 0x86,
  notAuthorized: 0x87,
  serverUnavailable: 0x88,
  keepAliveTimeout: 0x8d,
  sessionTakenOver: 0x8e,
  serverBusy: 0x89,
  topicAliasInvalid: 0x94,
  messageRateTooHigh: 0x96,
  quotaExceeded: 0x97,
  payloadFormatInvalid: 0x99,
  qosNotSupported: 0x9b
} as const

export interface V5Deps {
  devices: DevicesService
  log: Logger
  publish: MqttPublishHandler
  registry: ConnectionRegistry
  /** A connection subscribed to its tasks topic: its waiting tasks are delivered. */
  onTasksSubscribed: (c: MqttConnection) => void
  /** The device acknowledged (PUBACK) the publish that carried these tasks (received-tasks.ts). */
  onTasksReceived: (systemUid: string, taskUids: readonly string[]) => void
  /** Announced in CONNACK (MQTT 5.0 §3.2.2.3.6); the transport closes a connection that sends a larger packet. */
  maxPacketBytes: number
  /** Each device's budget and each connection's backpressure (ingest/device-limits.ts). */
  limits: DeviceLimits
}

const OPTS = { protocolVersion: 5 }

/**
 * Serves one MQTT 5 connection until it closes; once logged in it is in the registry of connections.
 * `onLoggedIn`: told when the CONNACK that accepts it is sent (the endpoint's login deadline ends there).
 */
export function serveV5 (stream: Duplex, remoteAddress: string, deps: V5Deps, onLoggedIn: () => void = () => {}): void {
  const parser = mqtt.parser(OPTS)
  let session: DeviceSession | undefined
  let self: MqttConnection | undefined
  const filters = new Set<string>()
  /** The task uids of each tasks publish waiting for its PUBACK, by packet id. */
  const inflightTasks = new Map<number, readonly string[]>()
  let nextId = 1
  let keepAliveTimer: NodeJS.Timeout | undefined
  let keepAliveMs = 0
  let closed = false
  let packets: Promise<void> = Promise.resolve()
  let acks: Promise<void> = Promise.resolve()

  const write = turnWriter(stream)
  const send = (p: Packet): void => { if (!closed && stream.writable) write(mqtt.generate(p, OPTS)) }
  const pressure = deps.limits.pressure(stream)
  const close = (reasonCode?: number): void => {
    if (closed) return
    if (reasonCode !== undefined && session !== undefined) send({ cmd: 'disconnect', reasonCode } as Packet)
    closed = true
    clearTimeout(keepAliveTimer)
    stream.end()
    stream.destroy()
  }
  const touch = (): void => {
    if (keepAliveMs === 0) return
    clearTimeout(keepAliveTimer)
    // MQTT 5.0 §3.1.2.10: one and a half times the keep alive without a packet closes the connection.
    keepAliveTimer = setTimeout(() => { close(RC.keepAliveTimeout) }, keepAliveMs * 1.5)
  }

  /** The connection as the registry sees it, once logged in. */
  const connection = (s: DeviceSession, clientId: string): MqttConnection => ({
    session: s,
    version: '5',
    clientId,
    wantsTasks: () => wantsTasks(s.username, filters),
    async sendTasks (payload, taskUids) {
      if (closed) return
      const messageId = nextId
      nextId = nextId >= 65535 ? 1 : nextId + 1
      inflightTasks.set(messageId, taskUids)
      send({ cmd: 'publish', topic: deviceTopic(s.username, 'tasks'), payload: Buffer.from(payload), qos: 1, retain: false, dup: false, messageId } as IPublishPacket)
    },
    close: (opts) => { close(opts?.takenOver === true ? RC.sessionTakenOver : undefined) }
  })

  async function onConnect (p: IConnectPacket): Promise<void> {
    if (session !== undefined) { close(RC.protocolError); return }
    const username = p.username ?? ''
    const password = p.password === undefined ? '' : p.password.toString()
    let auth: DeviceAuthResult | undefined
    try {
      auth = username === '' ? undefined : await deps.devices.authenticate(username, password, 'mqtt', remoteAddress)
    } catch (err) {
      // The login could not be checked (the store is unavailable): CONNACK 0x88, server unavailable (MQTT 5.0
      // §3.2.2.2), which devices retry, rather than a refusal of their credentials.
      deps.log.error({ err }, 'mqtt5 authentication failed')
      send({ cmd: 'connack', reasonCode: RC.serverUnavailable, sessionPresent: false } as Packet)
      close()
      return
    }
    // Closed while the login was checked (its deadline passed, the device left): nothing to register.
    if (closed) return
    if (auth === undefined || !auth.ok) {
      // Throttled after wrong passwords: 0x97 quota exceeded, so that a device backs off (README "Device login throttling").
      const refusal = auth?.ok === false && auth.reason === 'device.throttled' ? RC.quotaExceeded : undefined
      send({ cmd: 'connack', reasonCode: refusal ?? (auth?.ok === false && auth.reason === 'device.ip.forbidden' ? RC.notAuthorized : RC.badCredentials), sessionPresent: false } as Packet)
      close()
      return
    }
    // Client ids are free (conventions.md §Devices), scoped to their system: a connection of the same system with
    // the same id is taken over (MQTT 5.0 §3.1.4, 0x8E); another system's is never touched (registry.ts).
    const claim = deps.registry.claim(auth.session.systemUid, p.clientId)
    if (claim.kind === 'take-over') claim.holder.close({ takenOver: true })
    session = auth.session
    keepAliveMs = (p.keepalive ?? 0) * 1000
    send({ cmd: 'connack', reasonCode: RC.success, sessionPresent: false, properties: { maximumQoS: 1, retainAvailable: false, wildcardSubscriptionAvailable: true, maximumPacketSize: deps.maxPacketBytes } } as Packet)
    // The keep alive runs from the CONNACK: a device silent from then on is closed like one that went silent later.
    touch()
    onLoggedIn()
    self = connection(auth.session, p.clientId)
    deps.registry.add(self)
  }

  /** Starts storing; the PUBACK waits for the commit and keeps the order of the publishes (MQTT 5.0 §4.6). */
  function onPublish (p: IPublishPacket): void {
    if (session === undefined) { close(RC.protocolError); return }
    if (p.qos === 2) { close(RC.qosNotSupported); return }
    // MQTT 5.0 §3.3.2.3.4: CONNACK announces no Topic Alias Maximum (0), so any topic alias is invalid.
    if (p.properties?.topicAlias !== undefined) { close(RC.topicAliasInvalid); return }
    const payload = typeof p.payload === 'string' ? Buffer.from(p.payload) : p.payload
    // The packet (its payload) is not kept until the acknowledgement: only what the PUBACK needs.
    const { qos, messageId } = p
    if (closed) return // the rest of a chunk read before the connection was closed
    const admitted = deps.limits.admit(session.systemUid, payload.length)
    if (!admitted.ok) {
      // Over the device's budget (README "Device limits"): not stored; QoS 1 gets PUBACK 0x97, quota exceeded, in
      // order (0x96, message rate too high, is a DISCONNECT reason only: clients refuse a PUBACK that carries it).
      if (admitted.disconnect) { deps.limits.disconnected(); close(RC.messageRateTooHigh); return }
      if (qos === 1) acks = acks.then(() => { send({ cmd: 'puback', messageId, reasonCode: RC.quotaExceeded } as Packet) })
      return
    }
    const stored = deps.publish(session, p.topic, payload)
    const release = pressure.track(payload.length)
    stored.then(release, release)
    acks = acks.then(async () => {
      try {
        const outcome = await stored
        const reasonCode = outcome.kind === 'stored' ? RC.success : outcome.kind === 'forbidden' ? RC.notAuthorized : RC.payloadFormatInvalid
        if (qos === 1) send({ cmd: 'puback', messageId, reasonCode } as Packet)
      } catch (err) {
        // Not stored: no PUBACK; the device sends it again after reconnecting. A full ingest buffer is "server busy".
        deps.log.warn({ err }, 'mqtt5 message not stored')
        close(isBufferFull(err) ? RC.serverBusy : RC.unspecified)
      }
    })
  }

  function onSubscribe (p: ISubscribePacket): void {
    if (session === undefined) { close(RC.protocolError); return }
    const s = session
    const own = p.subscriptions.filter((sub) => ownsTopic(s.username, sub.topic)).map((sub) => sub.topic)
    const granted = p.subscriptions.map((sub) => ownsTopic(s.username, sub.topic) ? Math.min(sub.qos, 1) : RC.notAuthorized)
    for (const f of own) filters.add(f)
    send({ cmd: 'suback', messageId: p.messageId, granted } as Packet)
    if (self !== undefined && wantsTasks(s.username, own)) deps.onTasksSubscribed(self)
  }

  async function onPacket (p: Packet): Promise<void> {
    touch()
    switch (p.cmd) {
      case 'connect': return await onConnect(p)
      case 'publish': { const room = pressure.room(); if (room !== undefined) await room; onPublish(p); return }
      case 'subscribe': onSubscribe(p); return
      case 'unsubscribe':
        for (const f of p.unsubscriptions) filters.delete(f)
        send({ cmd: 'unsuback', messageId: p.messageId, granted: p.unsubscriptions.map(() => RC.success) } as unknown as Packet)
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
      default: close(RC.protocolError)
    }
  }

  parser.on('packet', (p: Packet) => {
    // Packets are handled in order (a PUBLISH right behind CONNECT waits for the login); publishes only start their
    // write here, so many of one connection are stored together by the group commit.
    packets = packets.then(async () => { await onPacket(p) })
      .catch((err: unknown) => { deps.log.warn({ err }, 'mqtt5 packet failed'); close(RC.unspecified) })
  })
  parser.on('error', () => { close(RC.protocolError) })
  stream.on('data', (chunk: Buffer) => { if (!closed) parser.parse(chunk) })
  stream.on('error', () => { close() })
  // The device ended its side (a WebSocket closed without DISCONNECT): the duplex of a WebSocket emits no 'close'
  // until its writable side ends too, so the connection would linger, registered, until its keep alive ran out.
  stream.on('end', () => { close() })
  stream.on('close', () => {
    closed = true
    clearTimeout(keepAliveTimer)
    if (self !== undefined) deps.registry.remove(self)
  })
}
