// M3DA over TCP (docs/protocols/m3da.md): envelopes written back to back with no length prefix, read as they arrive
// (one EnvelopeReader per connection), handled one package at a time (§2.5: one package outstanding between two peers),
// the connection kept across packages. Bytes that are no envelope are answered 400 and end the connection (the
// stream cannot be resynchronised); a socket error ends only that socket; nothing thrown escapes a handler.
import { once } from 'node:events'
import { createServer, type Server, type Socket } from 'node:net'
import type { Logger } from '../../core/logger.js'
import { EnvelopeReader } from '../../protocols/m3da/index.js'
import type { DeviceTask } from '../../core/domain/device-task.js'
import { IDLE_MS, MAX_ENVELOPE_BYTES, SESSION_MS } from './limits.js'
import type { Peer, SessionHandler } from './session.js'
import { createTurnGate } from './turn-gate.js'
import { LISTEN_BACKLOG } from '../transport.js'
import type { LoginGate } from '../login-gate.js'
import { acceptProxied, type ProxyProtocolOptions } from '../proxy-protocol.js'

export interface M3daTcpServer {
  listen (port: number, host: string): Promise<number>
  listening (): boolean
  /** Systems in session on a connection here (an authentic package within SESSION_MS). */
  connected (systemUid: string): boolean
  /** Hands tasks to the system's connection in session, for its next reply; false when it has none. */
  push (systemUid: string, tasks: readonly DeviceTask[]): boolean
  /** Connections that carried an authentic package (the connected-devices gauge). */
  connections (): number
  close (): Promise<void>
}

/** What the connections of one server share. */
interface Connections {
  handler: SessionHandler
  log: Logger
  gate: LoginGate
  /** Every open socket (closed with the server). */
  open: Set<Socket>
  /** The connections of each system that carried an authentic package. */
  systems: Map<string, Set<Peer>>
  turn: () => Promise<void>
}

/** One connection: its envelopes read and answered one at a time, its system counted once one is authentic. */
function serveConnection (c: Connections, socket: Socket, ip: string): void {
  const { handler, log, gate, open, systems, turn } = c
  open.add(socket)
  const reader = new EnvelopeReader({ maxBytes: MAX_ENVELOPE_BYTES })
  const peer: Peer = { ip, challenged: false, packages: 0 }
  const admitted = gate.admit(peer.ip, socket)
  if (admitted === undefined) { socket.destroy(); return }
  const login = admitted
  let running = false
  let counted: string | undefined
  // In session (a push target) from the moment a package is authentic, before its reply is built (session-types.ts).
  peer.joined = (systemUid) => {
    if (counted !== undefined) return
    login.loggedIn()
    counted = systemUid
    systems.set(counted, (systems.get(counted) ?? new Set()).add(peer))
  }

  const write = (reply: Buffer | null, close: boolean): void => {
    if (socket.destroyed) return
    if (reply !== null) socket.write(reply)
    if (close) socket.end()
  }

  async function pump (): Promise<void> {
    if (running) return
    running = true
    socket.pause()
    try {
      while (!socket.destroyed && !socket.writableEnded) {
        if (reader.buffered > MAX_ENVELOPE_BYTES) { const a = handler.malformed('payload.too.large'); write(a.reply, a.close); break }
        const r = reader.next()
        if (r === 'more') break
        await turn() // with the other connections' envelopes of this turn (turn-gate.ts)
        const answer = r.ok ? await handler.handle(peer, r.envelope) : handler.malformed(r.reason)
        write(answer.reply, answer.close)
        if (answer.close) break
      }
    } catch (err) {
      log.error({ err }, 'M3DA connection failed')
      socket.destroy()
    } finally {
      running = false
      if (!socket.destroyed) socket.resume()
    }
  }

  socket.setTimeout(IDLE_MS, () => { socket.destroy() })
  socket.on('data', (chunk: Buffer) => { reader.push(chunk); pump().catch(() => {}) })
  socket.on('error', () => { socket.destroy() })
  socket.once('close', () => {
    open.delete(socket)
    if (counted === undefined) return
    const peers = systems.get(counted)
    peers?.delete(peer)
    if (peers?.size === 0) systems.delete(counted)
  })
}

/**
 * `gate`: a connection gets M3DA_LOGIN_TIMEOUT_MS to send an authentic envelope (then IDLE_MS of silence closes it),
 * and one address holds at most UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS connections without one.
 */
export function createM3daTcpServer (handler: SessionHandler, log: Logger, gate: LoginGate, proxy?: ProxyProtocolOptions): M3daTcpServer {
  const open = new Set<Socket>()
  const systems = new Map<string, Set<Peer>>()
  const turn = createTurnGate()
  let server: Server | undefined

  /** The system's connection with the latest authentic package, if it is in session. */
  function inSession (systemUid: string): Peer | undefined {
    let latest: Peer | undefined
    for (const p of systems.get(systemUid) ?? []) if ((p.lastAt ?? 0) > (latest?.lastAt ?? 0)) latest = p
    return latest !== undefined && Date.now() - (latest.lastAt ?? 0) < SESSION_MS ? latest : undefined
  }

  const conns: Connections = { handler, log, gate, open, systems, turn }
  const serve = (socket: Socket, ip: string): void => { serveConnection(conns, socket, ip) }

  return {
    async listen (port, host) {
      const s = createServer(acceptProxied(proxy, serve))
      server = s
      // once() rejects on 'error' (a busy port), which bin/serve.ts names with M3DA_PORT.
      await once(s.listen({ port, host, backlog: LISTEN_BACKLOG }), 'listening')
      const address = s.address()
      return typeof address === 'object' && address !== null ? address.port : port
    },
    listening: () => server?.listening === true,
    connected: (systemUid) => inSession(systemUid) !== undefined,
    push (systemUid, tasks) {
      const peer = inSession(systemUid)
      if (peer === undefined) return false
      peer.outbox = [...(peer.outbox ?? []), ...tasks]
      return true
    },
    connections: () => { let n = 0; for (const c of systems.values()) n += c.size; return n },
    async close () {
      const s = server
      const closed = s === undefined || !s.listening ? Promise.resolve() : new Promise<void>((resolve) => { s.close(() => { resolve() }) })
      for (const socket of open) socket.destroy()
      await closed
    }
  }
}
