// The DTLS server on a UDP socket (CoAP over DTLS: port 5684, RFC 7252 §12.7): a dgram socket in front of a
// DtlsEndpoint, which does everything else. Built unstarted; listen() binds (port 0 in tests).
import { createSocket, type Socket } from 'node:dgram'
import { once } from 'node:events'
import { EventEmitter } from 'node:events'
import type { AddressInfo } from 'node:net'
import { DtlsEndpoint, type DtlsServerOptions } from './endpoint.js'
import type { DtlsCounters, RefusalReason } from './refusals.js'
import type { DtlsSession, Remote } from './session.js'

export interface ListenOptions {
  /** Default 5684, the coaps port. */
  port?: number
  /** Default '0.0.0.0' (udp4) or '::' (udp6). */
  host?: string
  type?: 'udp4' | 'udp6'
}

/** Events: `session` (DtlsSession), `refused` (reason, remote), `error` (a socket error). */
export class DtlsServer extends EventEmitter {
  readonly endpoint: DtlsEndpoint
  #socket: Socket | undefined

  constructor (options: DtlsServerOptions) {
    super()
    this.endpoint = new DtlsEndpoint(options, (datagram, remote) => { this.#write(datagram, remote) })
    this.endpoint.on('session', (session: DtlsSession) => this.emit('session', session))
    this.endpoint.on('refused', (reason: RefusalReason, remote: Remote) => this.emit('refused', reason, remote))
  }

  get counters (): DtlsCounters { return this.endpoint.counters }
  get sessionCount (): number { return this.endpoint.sessionCount }
  get handshakeCount (): number { return this.endpoint.handshakeCount }

  async listen (options: ListenOptions = {}): Promise<AddressInfo> {
    if (this.#socket !== undefined) throw new Error('dtls: the server is already listening')
    const type = options.type ?? 'udp4'
    const socket = createSocket({ type })
    this.#socket = socket
    // handle never rejects; the catch is for the linter's floating promise
    socket.on('message', (msg, rinfo) => { this.endpoint.handle(msg, { address: rinfo.address, port: rinfo.port }).catch(() => {}) })
    socket.on('error', (err) => { if (this.listenerCount('error') > 0) this.emit('error', err) })
    socket.bind(options.port ?? 5684, options.host ?? (type === 'udp6' ? '::' : '0.0.0.0'))
    await Promise.race([once(socket, 'listening'), once(socket, 'error').then(([err]) => { throw err })])
    return socket.address()
  }

  address (): AddressInfo {
    if (this.#socket === undefined) throw new Error('dtls: the server is not listening')
    return this.#socket.address()
  }

  /** close_notify to every session, then the socket closes. */
  async close (): Promise<void> {
    this.endpoint.close()
    const socket = this.#socket
    this.#socket = undefined
    if (socket === undefined) return
    const closed = once(socket, 'close')
    socket.close()
    await closed
  }

  #write (datagram: Buffer, remote: Remote): void {
    // A send on a closing socket throws synchronously; a datagram that cannot go is a lost datagram, which DTLS
    // recovers from by retransmission.
    try {
      this.#socket?.send(datagram, remote.port, remote.address)
    } catch {}
  }
}

/** A DTLS server, not listening yet: `await server.listen({ port })`. */
export function createDtlsServer (options: DtlsServerOptions): DtlsServer {
  return new DtlsServer(options)
}
