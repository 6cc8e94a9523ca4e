// A DTLS client on a connected UDP socket, over ClientConnection: for the simulator and the tests. connectDtls
// resolves once the handshake is established and rejects with a DtlsError (a code, never a key) otherwise.
import { createSocket, type Socket } from 'node:dgram'
import { EventEmitter, once } from 'node:events'
import { ClientConnection, type ClientConnectionOptions } from './client-connection.js'
import type { Output } from './connection.js'

export interface DtlsClientOptions extends ClientConnectionOptions {
  host: string
  port: number
  type?: 'udp4' | 'udp6'
  /** The local address to send from (default: the one the system picks); a second loopback address plays another host. */
  localAddress?: string
  /** The whole handshake's deadline (default 30 s). */
  handshakeTimeoutMs?: number
}

/** Codes: `dtls.handshake.timeout`, `dtls.refused.<reason>` (our side refused), `dtls.alert.<name>`, `dtls.socket`. */
export class DtlsError extends Error {
  readonly code: string
  constructor (code: string, message = code) {
    super(message)
    this.name = 'DtlsError'
    this.code = code
  }
}

/** Events: `message` (data: Buffer), `close` (reason: string), once. */
export class DtlsClient extends EventEmitter {
  readonly identity: string
  readonly #socket: Socket
  readonly #conn: ClientConnection
  #timer: NodeJS.Timeout | undefined
  #timerId: number | undefined
  #closed = false

  constructor (socket: Socket, conn: ClientConnection) {
    super()
    this.#socket = socket
    this.#conn = conn
    this.identity = conn.identity
  }

  get closed (): boolean { return this.#closed }
  /** The identity hint of the server's ServerKeyExchange, if it sent one. */
  get hint (): Buffer | undefined { return this.#conn.hint }

  /** One datagram of application data (at most 16,384 bytes). */
  send (data: Uint8Array): void {
    if (this.#closed) throw new DtlsError('dtls.closed', 'dtls: the session is closed')
    this.#socket.send(this.#conn.send(data))
  }

  /** Sends close_notify and closes the socket. */
  async close (): Promise<void> {
    if (this.#closed) return
    for (const d of this.#conn.close()) this.#socket.send(d)
    await this.#end('local.close')
  }

  toString (): string { return `DtlsClient(${this.identity})` }

  /** @internal the socket's datagrams and timers drive the connection from here on. */
  apply (out: Output): void {
    for (const d of out.datagrams) this.#socket.send(d)
    for (const data of out.data) this.emit('message', data)
    if (out.established) this.emit('established')
    if (out.closed !== undefined) {
      this.#end(out.closed).catch(() => {}) // closing a socket does not fail; the catch is for the linter
      return
    }
    const timer = this.#conn.timer
    if (timer?.id === this.#timerId) return
    clearTimeout(this.#timer)
    this.#timerId = timer?.id
    this.#timer = timer === undefined ? undefined : setTimeout(() => { this.apply(this.#conn.timeout()) }, timer.ms).unref()
  }

  async #end (reason: string): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#timer)
    this.#conn.abort(reason)
    const closed = once(this.#socket, 'close')
    this.#socket.close()
    await closed
    this.emit('close', reason)
  }
}

/** Opens a DTLS session to host:port with a PSK; resolves when established. */
export async function connectDtls (options: DtlsClientOptions): Promise<DtlsClient> {
  const conn = new ClientConnection(options)
  const socket = createSocket({ type: options.type ?? 'udp4' })
  const client = new DtlsClient(socket, conn)
  // receive never rejects; the catch is for the linter's floating promise
  socket.on('message', (msg) => { conn.receive(msg).then((out) => { client.apply(out) }).catch(() => {}) })
  socket.on('error', () => { /* a send to a closed port (ICMP unreachable); the retransmission timer decides */ })
  if (options.localAddress !== undefined) {
    socket.bind(0, options.localAddress)
    // once() rejects on the socket's 'error' (an address not of this machine)
    await once(socket, 'listening').catch((err: unknown) => { socket.close(); throw err })
  }
  socket.connect(options.port, options.host)
  await once(socket, 'connect')
  const established = once(client, 'established')
  const closed = once(client, 'close').then(([reason]: string[]) => {
    throw new DtlsError(`dtls.${reason ?? 'closed'}`)
  })
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new DtlsError('dtls.handshake.timeout')) }, options.handshakeTimeoutMs ?? 30_000)
  })
  client.apply(conn.start())
  try {
    await Promise.race([established, closed, deadline])
    return client
  } catch (err) {
    await client.close()
    throw err
  } finally {
    clearTimeout(timer)
  }
}
