// An established DTLS session as the application sees it: who (the PSK identity), where (address and port), send,
// close, and the 'message' and 'close' events. It holds no key: the connection behind it is the endpoint's.
import { EventEmitter } from 'node:events'
import { inspect } from 'node:util'

export interface Remote { address: string, port: number }

interface SessionOps {
  send: (data: Uint8Array) => boolean
  close: () => void
}

/**
 * Events: `message` (data: Buffer), once per application data record; `close` (reason: string), once:
 * `peer.close_notify`, `local.close`, `idle.timeout`, `alert.<name>`, `replaced` (the peer started a new handshake
 * from the same address and port), `server.closed`, `internal.error`.
 */
export class DtlsSession extends EventEmitter {
  readonly identity: string
  readonly remote: Readonly<Remote>
  readonly #ops: SessionOps
  #closed = false

  constructor (identity: string, remote: Remote, ops: SessionOps) {
    super()
    this.identity = identity
    this.remote = Object.freeze({ address: remote.address, port: remote.port })
    this.#ops = ops
  }

  get closed (): boolean { return this.#closed }

  /** Sends one datagram of application data (at most 16,384 bytes); false once the session is closed. */
  send (data: Uint8Array): boolean {
    return this.#closed ? false : this.#ops.send(data)
  }

  /** Sends close_notify and ends the session; 'close' is emitted with `local.close`. */
  close (): void {
    if (!this.#closed) this.#ops.close()
  }

  /** Called by the endpoint, once. */
  ended (reason: string): void {
    if (this.#closed) return
    this.#closed = true
    this.emit('close', reason)
  }

  toString (): string { return `DtlsSession(${this.identity}@${this.remote.address}:${this.remote.port})` }
  [inspect.custom] (): string { return this.toString() }
}
