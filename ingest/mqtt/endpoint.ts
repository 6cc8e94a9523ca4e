// The MQTT endpoint of the service: TCP on MQTT_PORT, WebSocket at /mqtt on the HTTP and HTTPS ports, and TLS on
// MQTTS_PORT (mqtts-listener.ts, which hands its connections to `handle`). Each connection's
// CONNECT is peeked for its protocol level, refused when no version this edge speaks, and handed to one session
// (ingest/mqtt/session/) that serves MQTT 3.1, 3.1.1 and 5 alike, Wills and the bus of other protocols' namespaces
// (Sparkplug B) included.
import { createServer, type Server, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { peekProtocolLevel } from '../../protocols/mqtt/peek.js'
import { createFrameLimit } from '../../protocols/mqtt/frame-limit.js'
import { serveMqtt } from './session/serve.js'
import type { MqttSessionDeps } from './session/deps.js'
import { createBusSubscribers } from './bus-subscribers.js'
import { listenOn } from '../transport.js'
import type { LoginGate, PendingLogin } from '../login-gate.js'
import type { PresentedCertificate } from '../../core/domain/device-certificate.js'
import { acceptProxied, type ProxyProtocolOptions } from '../proxy-protocol.js'

/** What every MQTT version is served with (the registry of connections is shared by them). */
export type MqttEndpointDeps = Omit<MqttSessionDeps, 'maxPacketBytes' | 'busSubscribers'> & {
  /** The deadline until CONNACK (MQTT_CONNECT_TIMEOUT_MS) and the cap of connections not logged in per address. */
  loginGate: LoginGate
  /** MQTT_PROXY_PROTOCOL on the TCP listener (ingest/proxy-protocol.ts); absent: off. */
  proxyProtocol?: ProxyProtocolOptions
}

/** What a connection brings beside its stream and address. */
export interface ConnectionOrigin {
  /** The client certificate of its TLS handshake (MQTTS, wss). */
  certificate?: PresentedCertificate
  /** Its place in the login gate, taken when its TCP connection was accepted (MQTTS: before the handshake). */
  login?: PendingLogin
}

export interface MqttEndpoint {
  /** Serves one connection from any transport (TCP socket, TLS socket, WebSocket stream). */
  handle (stream: Duplex, remoteAddress: string, origin?: ConnectionOrigin): void
  listen (port: number, host: string): Promise<number>
  /** True while the TCP listener accepts connections (GET /ready). */
  listening (): boolean
  close (): Promise<void>
}

// A CONNECT must come small: a connection that sends garbage is closed; one that sends nothing, or only part of a
// CONNECT, or whose login is still pending, is closed by the login gate's deadline (until its CONNACK is sent).
const MAX_PEEK_BYTES = 1024
const UNACCEPTABLE_PROTOCOL_LEVEL = Buffer.from([0x20, 0x02, 0x00, 0x01])
// Packet size bounds, checked before any parser buffers a packet (protocols/mqtt/frame-limit.ts): a CONNECT holds
// a client id, a will, a login of at most 255 + 255 characters (docs/protocols/mqtt.md); a later packet a payload of at
// most 1 MiB (protocols/airvantage README) plus its topic and properties. A payload a little over 1 MiB is still
// read, refused and counted with the connection kept; one announced beyond MAX_PACKET_BYTES closes the connection.
const MAX_CONNECT_BYTES = 64 * 1024
const MAX_PACKET_BYTES = 2 * 1024 * 1024

/** The MQTT endpoint, not listening yet. */
export async function createMqttEndpoint (endpointDeps: MqttEndpointDeps): Promise<MqttEndpoint> {
  const deps: MqttEndpointDeps & MqttSessionDeps = { ...endpointDeps, busSubscribers: createBusSubscribers(), maxPacketBytes: MAX_PACKET_BYTES }
  // What the service publishes in a namespace (the Sparkplug B host's STATE and commands) reaches the sessions
  // subscribed to it; a retained one is kept for those that subscribe later.
  deps.bus?.attach(async (topic, payload, opts) => { deps.busSubscribers.deliver(topic, payload, opts) })
  const open = new Set<Duplex>()
  let server: Server | undefined

  function route (stream: Duplex, remoteAddress: string, origin: ConnectionOrigin = {}): void {
    const login = origin.login ?? deps.loginGate.admit(remoteAddress, stream)
    if (login === undefined) { stream.destroy(); return }
    open.add(stream)
    stream.once('close', () => { open.delete(stream) })
    let seen = Buffer.alloc(0)
    // The bound of a CONNECT holds while it is peeked at too: one announced too large is closed at its header.
    const peekLimit = createFrameLimit({ first: MAX_CONNECT_BYTES, next: MAX_PACKET_BYTES })
    const onData = (chunk: Buffer): void => {
      if (peekLimit.feed(chunk) !== 'ok') { stream.destroy(); return }
      seen = Buffer.concat([seen, chunk])
      const peek = peekProtocolLevel(seen)
      if (peek.kind === 'need-more' && seen.length < MAX_PEEK_BYTES) return
      stream.off('data', onData)
      if (peek.kind !== 'level') { stream.destroy(); return }
      if (peek.level < 3 || peek.level > 5) {
        // MQTT 3.1.1 §3.1.2.2: an unsupported level gets CONNACK 0x01 (unacceptable protocol level), then the close.
        // The 3.1.1 form is the one every client version reads (MQTT 5.0 §3.1.2.2 allows it).
        stream.end(UNACCEPTABLE_PROTOCOL_LEVEL)
        setTimeout(() => { stream.destroy() }, 1000).unref()
        return
      }
      stream.pause()
      stream.unshift(seen)
      const limit = createFrameLimit({ first: MAX_CONNECT_BYTES, next: MAX_PACKET_BYTES })
      stream.on('data', (chunk: Buffer) => { if (limit.feed(chunk) !== 'ok') stream.destroy() })
      serveMqtt(stream, remoteAddress, peek.level as 3 | 4 | 5, deps, login.loggedIn, origin.certificate)
      stream.resume()
    }
    stream.on('data', onData)
    stream.on('error', () => { stream.destroy() })
  }

  return {
    handle: route,
    async listen (port, host) {
      server = createServer(acceptProxied(deps.proxyProtocol, (socket: Socket, address) => { route(socket, address) }))
      return await listenOn(server, port, host)
    },
    listening: () => server?.listening === true,
    async close () {
      // Stop accepting, then end the open connections (server.close waits for them).
      const s = server
      const closed = s === undefined ? Promise.resolve() : new Promise<void>((resolve) => { s.close(() => { resolve() }) })
      for (const c of deps.registry.all()) c.close()
      for (const stream of open) stream.destroy()
      await closed
    }
  }
}
