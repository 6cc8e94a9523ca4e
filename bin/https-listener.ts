// HTTPS on HTTPS_PORT (docs/security.md#tls): the same Fastify instance as the HTTP port, behind a second server. Its
// requests go through the instance's router (app.routing) and its upgrades to the instance's WebSocket handler, so
// the API, the console, the device routes, the downloads, DDI, the live stream and MQTT over wss answer on both ports
// with one set of routes, hooks and limits (docs/decisions/0029-tls-listeners.md).
import { createServer, type Server } from 'node:https'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { TlsListeners } from '../ingest/tls/tls-listeners.js'
import { serverListener } from '../ingest/transport.js'
import { peerKey } from '../ingest/tls/peer-key.js'

// A client has this long to finish its handshake (Node's default, 2 minutes, would let idle sockets pile up); the
// HTTP server's own timeouts take over from the request on.
const HANDSHAKE_TIMEOUT_MS = 10_000

export interface HttpsListener {
  /** Binds the port; the instance must be ready (its router built). */
  listen (port: number, host: string): Promise<number>
  listening (): boolean
  /** Stops accepting; requests in flight end, idle, handshaking and upgraded connections are closed. */
  close (): Promise<void>
}

export function createHttpsListener (app: FastifyInstance, tls: TlsListeners): HttpsListener {
  const handshaking = new Map<string, Socket>()
  const upgraded = new Set<Socket>()

  function build (): Server {
    const s = createServer({ ...tls.serverOptions(), handshakeTimeout: HANDSHAKE_TIMEOUT_MS })
    tls.track(s)
    // The HTTP server's limits (fastify's requestTimeout, keep-alive) hold on this port too.
    s.requestTimeout = app.server.requestTimeout
    s.headersTimeout = app.server.headersTimeout
    s.keepAliveTimeout = app.server.keepAliveTimeout
    for (const listener of app.server.listeners('clientError')) s.on('clientError', listener as (...args: unknown[]) => void)
    s.on('request', (req, res) => { app.routing(req, res) })
    s.on('upgrade', (req, socket: Socket, head: Buffer) => {
      upgraded.add(socket)
      socket.once('close', () => { upgraded.delete(socket) })
      app.server.emit('upgrade', req, socket, head)
    })
    s.on('connection', (socket: Socket) => {
      const key = peerKey(socket)
      handshaking.set(key, socket)
      socket.once('close', () => { if (handshaking.get(key) === socket) handshaking.delete(key) })
    })
    s.on('secureConnection', (socket: Socket) => { handshaking.delete(peerKey(socket)) })
    s.on('tlsClientError', () => {})
    return s
  }

  return serverListener(build, (s) => {
    s.closeIdleConnections()
    // The WebSockets (the instance's close has ended them already) and the handshakes that never completed.
    for (const socket of upgraded) socket.destroy()
    for (const socket of handshaking.values()) socket.destroy()
  })
}
