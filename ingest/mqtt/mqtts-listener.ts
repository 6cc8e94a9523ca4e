// MQTT over TLS on MQTTS_PORT (docs/security.md#tls): the MQTT endpoint behind a TLS server, each connection's client
// certificate handed to its session. A connection enters the login gate when its TCP connection is accepted, before
// the handshake (docs/decisions/0029-tls-listeners.md): a handshake costs the service more than a plain CONNECT, so
// one left half open is closed by the same deadline as a CONNECT that never comes, and an address past its cap of
// connections not logged in is closed before any handshake starts.
import { createServer, type Server, type TLSSocket } from 'node:tls'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { LoginGate, PendingLogin } from '../login-gate.js'
import type { TlsListeners } from '../tls/tls-listeners.js'
import { presentedCertificate } from '../tls/presented.js'
import { peerKey } from '../tls/peer-key.js'
import { serverListener } from '../transport.js'
import type { ConnectionOrigin } from './endpoint.js'

export interface MqttsListenerDeps {
  tls: TlsListeners
  /** The MQTT endpoint's gate (one count per address for MQTT over TCP, WebSocket and TLS). */
  loginGate: LoginGate
  /** MQTT_CONNECT_TIMEOUT_MS: the handshake's own timeout too, so that it never outlives the gate's deadline. */
  connectTimeoutMs: number
  /** The endpoint's handle(). */
  serve: (stream: Duplex, remoteAddress: string, origin: ConnectionOrigin) => void
}

export interface MqttsListener {
  listen (port: number, host: string): Promise<number>
  listening (): boolean
  /** Stops accepting and ends every connection, handshaking or not. */
  close (): Promise<void>
}

export function createMqttsListener (deps: MqttsListenerDeps): MqttsListener {
  const sockets = new Set<Socket>()
  const admitted = new Map<string, PendingLogin>()

  function build (): Server {
    const s = createServer({ ...deps.tls.serverOptions(), handshakeTimeout: deps.connectTimeoutMs })
    deps.tls.track(s)
    // Emitted with the TCP socket once Node has wrapped it for the handshake (its own listener comes first).
    s.on('connection', (socket: Socket) => {
      const login = deps.loginGate.admit(socket.remoteAddress ?? '', socket)
      if (login === undefined) { socket.destroy(); return }
      const key = peerKey(socket)
      admitted.set(key, login)
      sockets.add(socket)
      socket.once('close', () => {
        sockets.delete(socket)
        if (admitted.get(key) === login) admitted.delete(key)
      })
    })
    s.on('secureConnection', (socket: TLSSocket) => {
      const key = peerKey(socket)
      const login = admitted.get(key)
      admitted.delete(key)
      if (login === undefined) { socket.destroy(); return }
      const certificate = presentedCertificate(socket)
      deps.serve(socket, socket.remoteAddress ?? '', { login, ...(certificate === undefined ? {} : { certificate }) })
    })
    // A failed handshake (TLS 1.1, garbage, a plain MQTT CONNECT): Node has destroyed the socket already.
    s.on('tlsClientError', () => {})
    return s
  }

  return serverListener(build, () => { for (const socket of sockets) socket.destroy() })
}
