// One connection of an ingest process to an external MQTT broker (issue 14, "An external MQTT broker"): an MQTT 5
// client in a persistent session that reads the devices' topics through shared subscriptions and acknowledges each
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

export function startConsumer (o: ConsumerOptions): Consumer {
  const keepalive = o.keepaliveSeconds ?? 30
  const baseDelay = o.reconnectMs ?? 500
  const maxDelay = o.maxReconnectMs ?? 10_000
  let socket: Socket | undefined
  let closing = false
  let isConnected = false
  let delay = baseDelay
  let reconnectTimer: NodeJS.Timeout | undefined
  let pingTimer: NodeJS.Timeout | undefined
  // Acknowledgements of the current connection, in arrival order; a new connection starts a new list (the broker
  // sends again what the old one did not acknowledge).
  let pending: Pending[] = []
  const receiveMaximum = o.receiveMaximum ?? RECEIVE_MAXIMUM
  // Messages being handled, and those received beyond receiveMaximum that wait for a turn (this connection's).
  let active = 0
  let waiting: Array<() => void> = []
  let settleReady: { resolve: () => void, reject: (err: Error) => void } | undefined
  const ready = new Promise<void>((resolve, reject) => { settleReady = { resolve, reject } })
  ready.catch(() => {}) // a caller that does not wait is told nothing; the log says it

  const send = (s: Socket, p: Packet): void => { if (!s.destroyed && s.writable) s.write(mqtt.generate(p, OPTS)) }

  function fail (err: Error): void {
    if (settleReady !== undefined) { settleReady.reject(err); settleReady = undefined }
  }

  function flushAcks (s: Socket, list: Pending[]): void {
    while (list.length > 0 && list[0]?.done === true) {
      const p = list.shift() as Pending
      send(s, { cmd: 'puback', messageId: p.messageId, reasonCode: 0 })
    }
  }

  function onPublish (s: Socket, packet: IPublishPacket): void {
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload
    if (packet.qos === 0) {
      o.handle(packet.topic, payload).catch((err: unknown) => { o.log.warn({ err, topic: packet.topic }, 'QoS 0 message from the broker not stored') })
      return
    }
    // Subscriptions are QoS 1: the broker sends at most QoS 1 (MQTT 5.0 §3.8.3.1).
    const entry: Pending = { messageId: packet.messageId ?? 0, done: false }
    const list = pending
    list.push(entry)
    const run = (): void => {
      active++
      o.handle(packet.topic, payload).then(() => {
        entry.done = true
        if (list !== pending) return
        flushAcks(s, list)
        active--
        waiting.shift()?.()
        if (waiting.length === 0 && s.isPaused() && active <= receiveMaximum / 2) s.resume()
      }, (err: unknown) => {
        // Not acknowledged: the session keeps it; a new connection receives it again.
        o.log.warn({ err, topic: packet.topic }, 'message from the broker not stored; reconnecting so that the broker sends it again')
        if (list === pending) s.destroy()
      })
    }
    if (active < receiveMaximum) { run(); return }
    waiting.push(run)
    s.pause()
  }

  function open (): void {
    if (closing) return
    const port = Number(o.url.port === '' ? (o.url.protocol === 'mqtts:' ? 8883 : 1883) : o.url.port)
    const host = o.url.hostname
    const s = o.url.protocol === 'mqtts:' ? tlsConnect({ host, port, servername: host }) : tcpConnect({ host, port })
    socket = s
    pending = []
    active = 0
    waiting = []
    const parser = mqtt.parser(OPTS)
    let subscribed = false
    s.on('connect', () => {
      send(s, {
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 5,
        clientId: o.clientId,
        clean: false,
        keepalive,
        username: decodeURIComponent(o.url.username),
        password: o.url.password === '' ? undefined : Buffer.from(decodeURIComponent(o.url.password)),
        properties: { sessionExpiryInterval: o.sessionExpirySeconds ?? SESSION_EXPIRY_S, receiveMaximum }
      })
    })
    s.on('secureConnect', () => { s.emit('connect') })
    parser.on('packet', (packet: Packet) => {
      switch (packet.cmd) {
        case 'connack': {
          const code = packet.reasonCode ?? packet.returnCode ?? 0
          if (code !== 0) {
            const err = new Error(`the broker refused the connection (reason code ${code})`)
            o.log.error({ clientId: o.clientId, code }, 'external MQTT broker refused the connection')
            fail(err)
            s.destroy()
            return
          }
          isConnected = true
          delay = baseDelay
          send(s, { cmd: 'subscribe', messageId: 1, subscriptions: o.topics.map((topic) => ({ topic, qos: 1 as const, nl: false, rap: false, rh: 0 })) })
          clearInterval(pingTimer)
          pingTimer = setInterval(() => { send(s, { cmd: 'pingreq' }) }, keepalive * 500)
          pingTimer.unref()
          return
        }
        case 'suback': {
          const refused = (packet.granted as number[]).filter((g) => g >= 0x80)
          if (refused.length > 0) {
            const err = new Error(`the broker refused ${refused.length} of the ingest subscriptions (reason ${refused[0] ?? ''}): the service's MQTT_URL account needs them`)
            o.log.error({ clientId: o.clientId, topics: o.topics }, err.message)
            fail(err)
            return
          }
          if (!subscribed) {
            subscribed = true
            o.log.info({ clientId: o.clientId }, 'consuming device topics from the external MQTT broker')
            if (settleReady !== undefined) { settleReady.resolve(); settleReady = undefined }
          }
          return
        }
        case 'publish': onPublish(s, packet); return
        case 'disconnect': s.destroy(); break
        default: // pingresp, and the acknowledgements of nothing this client sends
      }
    })
    parser.on('error', (err) => { o.log.warn({ err }, 'unreadable packet from the external MQTT broker'); s.destroy() })
    s.on('data', (chunk: Buffer) => { parser.parse(chunk) })
    s.on('error', (err) => { if (!closing) o.log.warn({ err: { message: err.message } }, 'external MQTT broker connection error') })
    s.on('close', () => {
      isConnected = false
      clearInterval(pingTimer)
      if (socket === s) socket = undefined
      if (closing) return
      // A first connection that never subscribed tells the caller; later ones keep trying.
      if (settleReady !== undefined && !subscribed) fail(new Error('the external MQTT broker closed the connection before the subscriptions were granted'))
      reconnectTimer = setTimeout(open, delay)
      delay = Math.min(delay * 2, maxDelay)
    })
  }

  open()
  return {
    ready,
    connected: () => isConnected,
    inFlight: () => pending.filter((p) => !p.done).length,
    handling: () => active,
    async close () {
      closing = true
      clearTimeout(reconnectTimer)
      clearInterval(pingTimer)
      const s = socket
      if (s === undefined || s.destroyed) return
      // Let the messages being written finish (bounded), acknowledge what is committed, then leave: the session
      // keeps the rest for the next process of this id.
      const deadline = Date.now() + CLOSE_WAIT_MS
      while (pending.some((p) => !p.done) && Date.now() < deadline && !s.destroyed) await new Promise((resolve) => setTimeout(resolve, 20))
      flushAcks(s, pending)
      send(s, { cmd: 'disconnect', reasonCode: 0 })
      await new Promise<void>((resolve) => { s.once('close', () => { resolve() }); s.end(); setTimeout(() => { s.destroy() }, 2000).unref() })
    }
  }
}
