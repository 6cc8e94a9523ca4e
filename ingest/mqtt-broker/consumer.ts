// One connection of an ingest process to an external MQTT broker (docs/cluster.md#external-mqtt-broker-ingest): an MQTT
// 5 client in a persistent session that reads the devices' topics through shared subscriptions and acknowledges each
// QoS 1 message only once the handler has committed it. A process killed before its commit never acknowledged: the
// broker keeps the message in the session and delivers it again when a process of the same client id reconnects.
//
// mqtt.js (the client library) acknowledges when its message handler returns and handles one message at a time, so
// holding an acknowledgement until a commit would hold every later message too: one message per commit. This client,
// on mqtt-packet's parser and generator, keeps up to RECEIVE_MAXIMUM messages in flight (MQTT 5.0 §3.3.4: the
// client's Receive Maximum bounds what the broker sends unacknowledged) and so lets the group commit take them
// together. Acknowledgements go out in the order the messages came (MQTT 5.0 §4.6).
//
// Mosquitto 2 does not keep to that bound for this client: with a backlog in the session it was seen to send 18,000
// messages unacknowledged for a Receive Maximum of 2,000 (with `max_inflight_messages` at 0, 20 or 2,000 alike).
// Handed to the store all at once, they made an ingest process twenty times slower than the devices and its memory
// grow with the backlog. So the client bounds itself: at most Receive Maximum messages are being handled; the next
// ones wait in arrival order, reading the socket stops (TCP keeps the rest in the broker) and starts again when half
// of them are committed.
import { connect as tcpConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import mqtt, { type IPublishPacket, type Packet } from 'mqtt-packet'
import type { Logger } from '../../core/logger.js'

const OPTS = { protocolVersion: 5 } as const

export interface ConsumerOptions {
  /** mqtt:// or mqtts:// with the service's account at the broker. */
  url: URL
  clientId: string
  /** Topic filters, subscribed at QoS 1 (shared: `$share/<group>/<filter>`). */
  topics: readonly string[]
  /**
   * Handles one message; the PUBACK goes once it resolves. A rejection (the store did not take it) drops the
   * connection without acknowledging: the broker delivers again after the reconnection.
   */
  handle: (topic: string, payload: Buffer) => Promise<void>
  log: Logger
  /** How long the broker keeps the session of a dead process (s). */
  sessionExpirySeconds?: number
  keepaliveSeconds?: number
  receiveMaximum?: number
  /** Delay before reconnecting, doubled up to maxReconnectMs. */
  reconnectMs?: number
  maxReconnectMs?: number
}

export interface Consumer {
  /** Resolves at the first CONNACK accepted and subscriptions granted; rejects if the first attempt fails. */
  ready: Promise<void>
  connected (): boolean
  /** Messages received and not acknowledged yet. */
  inFlight (): number
  /** Messages being handled now (at most the Receive Maximum). */
  handling (): number
  close (): Promise<void>
}

const RECEIVE_MAXIMUM = 2000
const SESSION_EXPIRY_S = 7 * 24 * 3600
// How long a closing consumer waits for the messages being written before it leaves them to the session.
const CLOSE_WAIT_MS = 5000

interface Pending { messageId: number, done: boolean }

const send = (s: Socket, p: Packet): void => { if (!s.destroyed && s.writable) s.write(mqtt.generate(p, OPTS)) }

/** Sends the acknowledgements of the messages committed at the head of the list: in arrival order, none skipped. */
function flushAcks (s: Socket, list: Pending[]): void {
  while (list.length > 0 && list[0]?.done === true) {
    const p = list.shift() as Pending
    send(s, { cmd: 'puback', messageId: p.messageId, reasonCode: 0 })
  }
}

/** The consumer's state across its connections (the socket, the acknowledgements and the handling of the current one). */
class BrokerConsumer implements Consumer {
  readonly ready: Promise<void>
  private readonly keepalive: number
  private readonly baseDelay: number
  private readonly receiveMaximum: number
  private socket: Socket | undefined
  private closing = false
  private isConnected = false
  private delay: number
  private reconnectTimer: NodeJS.Timeout | undefined
  private pingTimer: NodeJS.Timeout | undefined
  // Acknowledgements of the current connection, in arrival order; a new connection starts a new list (the broker
  // sends again what the old one did not acknowledge).
  private pending: Pending[] = []
  // Messages being handled, and those received beyond receiveMaximum that wait for a turn (this connection's).
  private active = 0
  private waiting: Array<() => void> = []
  private settleReady: { resolve: () => void, reject: (err: Error) => void } | undefined
  /** Whether the current connection's subscriptions were granted. */
  private subscribed = false

  constructor (private readonly o: ConsumerOptions) {
    this.keepalive = o.keepaliveSeconds ?? 30
    this.baseDelay = o.reconnectMs ?? 500
    this.delay = this.baseDelay
    this.receiveMaximum = o.receiveMaximum ?? RECEIVE_MAXIMUM
    this.ready = new Promise<void>((resolve, reject) => { this.settleReady = { resolve, reject } })
    this.ready.catch(() => {}) // a caller that does not wait is told nothing; the log says it
  }

  connected (): boolean { return this.isConnected }
  inFlight (): number { return this.pending.filter((p) => !p.done).length }
  handling (): number { return this.active }

  private fail (err: Error): void {
    if (this.settleReady !== undefined) { this.settleReady.reject(err); this.settleReady = undefined }
  }

  private onPublish (s: Socket, packet: IPublishPacket): void {
    const { o } = this
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload
    if (packet.qos === 0) {
      o.handle(packet.topic, payload).catch((err: unknown) => { o.log.warn({ err, topic: packet.topic }, 'QoS 0 message from the broker not stored') })
      return
    }
    // Subscriptions are QoS 1: the broker sends at most QoS 1 (MQTT 5.0 §3.8.3.1).
    const entry: Pending = { messageId: packet.messageId ?? 0, done: false }
    const list = this.pending
    list.push(entry)
    const run = (): void => {
      this.active++
      o.handle(packet.topic, payload).then(() => {
        entry.done = true
        if (list !== this.pending) return
        flushAcks(s, list)
        this.active--
        this.waiting.shift()?.()
        if (this.waiting.length === 0 && s.isPaused() && this.active <= this.receiveMaximum / 2) s.resume()
      }, (err: unknown) => {
        // Not acknowledged: the session keeps it; a new connection receives it again.
        o.log.warn({ err, topic: packet.topic }, 'message from the broker not stored; reconnecting so that the broker sends it again')
        if (list === this.pending) s.destroy()
      })
    }
    if (this.active < this.receiveMaximum) { run(); return }
    this.waiting.push(run)
    s.pause()
  }

  private onConnack (s: Socket, code: number): void {
    if (code !== 0) {
      const err = new Error(`the broker refused the connection (reason code ${code})`)
      this.o.log.error({ clientId: this.o.clientId, code }, 'external MQTT broker refused the connection')
      this.fail(err)
      s.destroy()
      return
    }
    this.isConnected = true
    this.delay = this.baseDelay
    send(s, { cmd: 'subscribe', messageId: 1, subscriptions: this.o.topics.map((topic) => ({ topic, qos: 1 as const, nl: false, rap: false, rh: 0 })) })
    clearInterval(this.pingTimer)
    this.pingTimer = setInterval(() => { send(s, { cmd: 'pingreq' }) }, this.keepalive * 500)
    this.pingTimer.unref()
  }

  private onSuback (granted: number[]): void {
    const { o } = this
    const refused = granted.filter((g) => g >= 0x80)
    if (refused.length > 0) {
      const err = new Error(`the broker refused ${refused.length} of the ingest subscriptions (reason ${refused[0] ?? ''}): the service's MQTT_URL account needs them`)
      o.log.error({ clientId: o.clientId, topics: o.topics }, err.message)
      this.fail(err)
      return
    }
    if (this.subscribed) return
    this.subscribed = true
    o.log.info({ clientId: o.clientId }, 'consuming device topics from the external MQTT broker')
    if (this.settleReady !== undefined) { this.settleReady.resolve(); this.settleReady = undefined }
  }

  private onPacket (s: Socket, packet: Packet): void {
    switch (packet.cmd) {
      case 'connack': this.onConnack(s, packet.reasonCode ?? packet.returnCode ?? 0); return
      case 'suback': this.onSuback(packet.granted as number[]); return
      case 'publish': this.onPublish(s, packet); return
      case 'disconnect': s.destroy(); break
      default: // pingresp, and the acknowledgements of nothing this client sends
    }
  }

  private sendConnect (s: Socket): void {
    const { o } = this
    send(s, {
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clientId: o.clientId,
      clean: false,
      keepalive: this.keepalive,
      username: decodeURIComponent(o.url.username),
      password: o.url.password === '' ? undefined : Buffer.from(decodeURIComponent(o.url.password)),
      properties: { sessionExpiryInterval: o.sessionExpirySeconds ?? SESSION_EXPIRY_S, receiveMaximum: this.receiveMaximum }
    })
  }

  private onClose (s: Socket): void {
    this.isConnected = false
    clearInterval(this.pingTimer)
    if (this.socket === s) this.socket = undefined
    if (this.closing) return
    // A first connection that never subscribed tells the caller; later ones keep trying.
    if (this.settleReady !== undefined && !this.subscribed) this.fail(new Error('the external MQTT broker closed the connection before the subscriptions were granted'))
    this.reconnectTimer = setTimeout(() => { this.open() }, this.delay)
    this.delay = Math.min(this.delay * 2, this.o.maxReconnectMs ?? 10_000)
  }

  open (): void {
    if (this.closing) return
    const { o } = this
    const port = Number(o.url.port === '' ? (o.url.protocol === 'mqtts:' ? 8883 : 1883) : o.url.port)
    const host = o.url.hostname
    const s = o.url.protocol === 'mqtts:' ? tlsConnect({ host, port, servername: host }) : tcpConnect({ host, port })
    this.socket = s
    this.pending = []
    this.active = 0
    this.waiting = []
    this.subscribed = false
    const parser = mqtt.parser(OPTS)
    s.on('connect', () => { this.sendConnect(s) })
    s.on('secureConnect', () => { s.emit('connect') })
    parser.on('packet', (packet: Packet) => { this.onPacket(s, packet) })
    parser.on('error', (err) => { o.log.warn({ err }, 'unreadable packet from the external MQTT broker'); s.destroy() })
    s.on('data', (chunk: Buffer) => { parser.parse(chunk) })
    s.on('error', (err) => { if (!this.closing) o.log.warn({ err: { message: err.message } }, 'external MQTT broker connection error') })
    s.on('close', () => { this.onClose(s) })
  }

  async close (): Promise<void> {
    this.closing = true
    clearTimeout(this.reconnectTimer)
    clearInterval(this.pingTimer)
    const s = this.socket
    if (s === undefined || s.destroyed) return
    // Let the messages being written finish (bounded), acknowledge what is committed, then leave: the session
    // keeps the rest for the next process of this id.
    const deadline = Date.now() + CLOSE_WAIT_MS
    while (this.pending.some((p) => !p.done) && Date.now() < deadline && !s.destroyed) await new Promise((resolve) => setTimeout(resolve, 20))
    flushAcks(s, this.pending)
    send(s, { cmd: 'disconnect', reasonCode: 0 })
    await new Promise<void>((resolve) => { s.once('close', () => { resolve() }); s.end(); setTimeout(() => { s.destroy() }, 2000).unref() })
  }
}

export function startConsumer (o: ConsumerOptions): Consumer {
  const consumer = new BrokerConsumer(o)
  consumer.open()
  return consumer
}
