// One MQTT connection's state and its write side, whatever its version: MQTT 3.1 (protocol name MQIsdp, level 3),
// 3.1.1 (level 4) and 5 (level 5). The read loop is serve.ts; what each packet does is in its handler file
// (connect.ts, publish.ts, acks.ts, subscribe.ts, unsubscribe.ts, ping.ts, disconnect.ts), where the versions differ.
import mqtt, { type IConnectPacket, type IPublishPacket, type Packet } from 'mqtt-packet'
import type { Duplex } from 'node:stream'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import type { ConnectionPressure } from '../../device-limits.js'
import type { MqttConnection } from '../registry.js'
import type { BusClient } from '../namespaces.js'
import type { BusSubscriber } from '../bus-subscribers.js'
import { turnWriter } from '../turn-writer.js'
import type { MqttSessionDeps } from './deps.js'
import type { PresentedCertificate } from '../../../core/domain/device-certificate.js'
import { RC5 } from './reason-codes.js'

export type ProtocolLevel = 3 | 4 | 5
export type Will = NonNullable<IConnectPacket['will']>

export class MqttSession {
  readonly v5: boolean
  /** The device's login once its CONNACK accepted it. */
  session: DeviceSession | undefined
  /** The connection as the registry sees it, once logged in. */
  self: MqttConnection | undefined
  /** Granted subscription filters and their QoS: the device's own topics, and other protocols' namespaces. */
  readonly filters = new Map<string, 0 | 1>()
  readonly nsFilters = new Map<string, 0 | 1>()
  /** The task uids of each tasks publish waiting for its PUBACK, by packet id. */
  readonly inflightTasks = new Map<number, readonly string[]>()
  /** QoS 2 publishes stored and waiting for their PUBREL (MQTT 3.1.1 §4.3.3), by packet id. */
  readonly awaitingRelease = new Set<number>()
  /** Stored at an accepted CONNECT; published when the connection is lost (will.ts). */
  will: Will | undefined
  /** A DISCONNECT that asks for no Will was read. */
  cleanDisconnect = false
  keepAliveMs = 0
  closed = false
  /** The acknowledgements, in the order of the packets they answer (MQTT 3.1.1 §4.6, MQTT 5.0 §4.6). */
  acks: Promise<void> = Promise.resolve()
  readonly pressure: ConnectionPressure
  readonly busSubscriber: BusSubscriber
  private busClient: BusClient | undefined
  private keepAliveTimer: NodeJS.Timeout | undefined
  private nextId = 1
  private readonly write: (bytes: Buffer) => void
  private readonly generateOpts: { protocolVersion: ProtocolLevel }

  constructor (
    readonly stream: Duplex,
    readonly remoteAddress: string,
    readonly level: ProtocolLevel,
    readonly deps: MqttSessionDeps,
    /** Told when the CONNACK that accepts the connection is sent (the endpoint's login deadline ends there). */
    readonly onLoggedIn: () => void,
    /** The client certificate presented in the TLS handshake (MQTTS, MQTT over wss); absent in clear or without one. */
    readonly certificate?: PresentedCertificate
  ) {
    this.v5 = level === 5
    this.generateOpts = { protocolVersion: level }
    this.write = turnWriter(stream)
    this.pressure = deps.limits.pressure(stream)
    this.busSubscriber = {
      filters: this.nsFilters,
      mayReceive: (topic) => this.session !== undefined && deps.bus?.namespaceOf(topic)?.mayReceive(this.session, topic) === true,
      send: (topic, payload, qos) => { this.publishTo(topic, payload, qos, false) }
    }
  }

  send (p: Packet): void {
    if (!this.closed && this.stream.writable) this.write(mqtt.generate(p, this.generateOpts))
  }

  /** Ends the connection; MQTT 5 tells a logged-in device why (`reasonCode`, MQTT 5.0 §3.14), MQTT 3.1.1 cannot. */
  close (reasonCode?: number): void {
    if (this.closed) return
    if (this.v5 && reasonCode !== undefined && this.session !== undefined) this.send({ cmd: 'disconnect', reasonCode } as Packet)
    this.closed = true
    clearTimeout(this.keepAliveTimer)
    this.stream.end()
    this.stream.destroy()
  }

  /** A packet came: the keep alive starts again (armed from the CONNACK on). */
  touch (): void {
    if (this.keepAliveMs === 0) return
    clearTimeout(this.keepAliveTimer)
    // MQTT 3.1.1 and 5.0 §3.1.2.10: one and a half times the keep alive without a packet closes the connection.
    this.keepAliveTimer = setTimeout(() => { this.close(RC5.keepAliveTimeout) }, this.keepAliveMs * 1.5)
  }

  stopKeepAlive (): void { clearTimeout(this.keepAliveTimer) }

  packetId (): number {
    const id = this.nextId
    this.nextId = id >= 65535 ? 1 : id + 1
    return id
  }

  /** A publish of the service to this device (a namespace's message, a retained one on its subscription). */
  publishTo (topic: string, payload: Buffer, qos: 0 | 1, retain: boolean): void {
    this.send({ cmd: 'publish', topic, payload, qos, retain, dup: false, ...(qos === 1 ? { messageId: this.packetId() } : {}) } as IPublishPacket)
  }

  /** The connection as the namespaces see it: one object for its whole life, made when it first uses one. */
  busClientOf (session: DeviceSession): BusClient {
    this.busClient ??= { session, clientId: this.self?.clientId ?? '', close: () => { this.close() } }
    return this.busClient
  }

  /** The bus client, if a namespace ever saw this connection. */
  knownBusClient (): BusClient | undefined { return this.busClient }
}
