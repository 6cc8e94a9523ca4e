// The server over any datagram transport: address:port → connection, the stateless cookie exchange for strangers,
// the limits (sessions, handshakes in progress, handshakes started per address, handshake deadline, idle timeout),
// the retransmission timers, the counters of refusals, and a DtlsSession per established connection. No socket:
// `send` is given (server.ts gives a dgram socket's; unit tests give an array), so everything here runs without a
// network.
import { EventEmitter } from 'node:events'
import { asBuffer } from './bytes.js'
import type { Output } from './connection.js'
import { CookieIssuer } from './cookie.js'
import { HandshakeBudget } from './handshake-budget.js'
import { checkCookie, readClientHello } from './hello-gate.js'
import { newCounters, type DtlsCounters, type RefusalReason } from './refusals.js'
import { ServerConnection, type AcceptedHello, type ServerConnectionOptions } from './server-connection.js'
import { DtlsSession, type Remote } from './session.js'

export interface DtlsServerOptions extends ServerConnectionOptions {
  /** Sessions at once, established or in handshake (default 10,000). */
  maxSessions?: number
  /** Handshakes in progress at once (default 1,000). */
  maxHandshakes?: number
  /** Handshakes one address may start per second once its burst is spent (default 10; 0: no limit). */
  handshakesPerS?: number
  /** Handshakes one address that was quiet may start at once (default 50). */
  handshakeBurst?: number
  /** What the per-address budget counts by (default: the address itself; the LwM2M server gives an IPv6 one's /64). */
  addressKey?: (address: string) => string
  /** A handshake not established by then is dropped (default 30 s). */
  handshakeTimeoutMs?: number
  /** A session that authenticates nothing from its peer for this long is closed (default 10 minutes). */
  idleTimeoutMs?: number
  /** How often the cookie secret rotates (default 5 minutes). */
  cookieRotateMs?: number
  now?: () => number
}

export type SendDatagram = (datagram: Buffer, remote: Remote) => void

interface Entry {
  key: string
  remote: Remote
  conn: ServerConnection
  session: DtlsSession | undefined
  lastActivity: number
  retransmitId: number | undefined
  retransmit: NodeJS.Timeout | undefined
  deadline: NodeJS.Timeout | undefined
  idle: NodeJS.Timeout | undefined
}

const keyOf = (r: Remote): string => `${r.address}|${r.port}`

function later (ms: number, fn: () => void): NodeJS.Timeout {
  return setTimeout(fn, ms).unref()
}

/** Events: `session` (DtlsSession), `refused` (reason: RefusalReason, remote: Remote). */
export class DtlsEndpoint extends EventEmitter {
  readonly counters: DtlsCounters = newCounters()
  readonly #options: DtlsServerOptions
  readonly #send: SendDatagram
  readonly #cookies: CookieIssuer
  readonly #now: () => number
  readonly #peers = new Map<string, Entry>()
  readonly #budget: HandshakeBudget
  #handshakes = 0
  #closed = false

  constructor (options: DtlsServerOptions, send: SendDatagram) {
    super()
    this.#options = options
    this.#send = send
    this.#now = options.now ?? Date.now
    this.#cookies = new CookieIssuer({ rotateMs: options.cookieRotateMs, now: this.#now })
    this.#budget = new HandshakeBudget({ perS: options.handshakesPerS ?? 10, burst: options.handshakeBurst ?? 50 }, options.addressKey)
  }

  /** Connections held: established and in handshake. */
  get sessionCount (): number { return this.#peers.size }
  get handshakeCount (): number { return this.#handshakes }

  /** Feeds one datagram from `remote`. Never rejects: whatever is wrong with it is counted and dropped. */
  async handle (datagram: Uint8Array, remote: Remote): Promise<void> {
    if (this.#closed) return
    try {
      await this.#handle(asBuffer(datagram), remote)
    } catch {
      this.#refuse('internal.error', remote) // a fault of ours on odd input: counted, and the server goes on
    }
  }

  /** Sends close_notify to every established session and drops every connection and timer. */
  close (): void {
    this.#closed = true
    for (const entry of [...this.#peers.values()]) {
      if (entry.session !== undefined) this.#sendAll(entry.conn.close(), entry.remote)
      else entry.conn.abort('server.closed')
      this.#remove(entry, 'server.closed')
    }
  }

  toString (): string { return `DtlsEndpoint(${this.#peers.size} sessions)` }

  async #handle (datagram: Buffer, remote: Remote): Promise<void> {
    const entry = this.#peers.get(keyOf(remote))
    const hello = readClientHello(datagram)
    // A ClientHello with the random of the entry's own handshake is a retransmission, which the connection answers;
    // one with another random is the peer starting over (a reboot behind the same NAT mapping, RFC 6347 §4.2.8).
    const fresh = hello.ok && (entry === undefined || !entry.conn.clientRandom.equals(hello.value.hello.random))
    if (entry !== undefined && !fresh) return await this.#feed(entry, datagram)
    if (!hello.ok) return this.#refuse(hello.reason, remote)
    const gate = checkCookie(this.#cookies, remote, hello.value)
    if (gate.kind === 'verify') {
      if (gate.refused !== undefined) this.#refuse(gate.refused, remote)
      this.#send(gate.reply, remote)
      return
    }
    this.#open(remote, hello.value, entry)
  }

  /**
   * Why a ClientHello with a good cookie starts no handshake, or undefined when it does (its address's budget is then
   * spent). The address's own budget is asked first, so that an address over it is counted as such, and spent last,
   * so that a handshake refused for the server's limits costs the address nothing. Dropped with no answer: the
   * client's retransmission of its hello, with the same cookie, tries again later (RFC 6347 §4.2.4).
   */
  #admission (remote: Remote, replaced: Entry | undefined): RefusalReason | undefined {
    const now = this.#now()
    if (!this.#budget.allows(remote.address, now)) return 'handshake.rate.limited'
    if (this.#handshakes >= (this.#options.maxHandshakes ?? 1000)) return 'too.many.handshakes'
    if (replaced === undefined && this.#peers.size >= (this.#options.maxSessions ?? 10_000)) return 'too.many.sessions'
    this.#budget.spend(remote.address, now)
    return undefined
  }

  #open (remote: Remote, accepted: AcceptedHello, replaced: Entry | undefined): void {
    const refused = this.#admission(remote, replaced)
    if (refused !== undefined) return this.#refuse(refused, remote)
    if (replaced !== undefined) {
      replaced.conn.abort('replaced')
      this.#remove(replaced, 'replaced')
    }
    const conn = new ServerConnection(this.#options, accepted)
    const entry: Entry = {
      key: keyOf(remote),
      remote: { address: remote.address, port: remote.port },
      conn,
      session: undefined,
      lastActivity: this.#now(),
      retransmitId: undefined,
      retransmit: undefined,
      deadline: undefined,
      idle: undefined
    }
    this.#peers.set(entry.key, entry)
    this.#handshakes += 1
    entry.deadline = later(this.#options.handshakeTimeoutMs ?? 30_000, () => {
      if (entry.session !== undefined || entry.conn.closed) return
      this.#refuse('handshake.timeout', entry.remote)
      entry.conn.abort('handshake.timeout')
      this.#remove(entry, 'handshake.timeout')
    })
    this.#apply(entry, conn.start())
  }

  async #feed (entry: Entry, datagram: Buffer): Promise<void> {
    this.#apply(entry, await entry.conn.receive(datagram))
  }

  #apply (entry: Entry, out: Output): void {
    this.#sendAll(out.datagrams, entry.remote)
    for (const reason of out.refused) this.#refuse(reason, entry.remote)
    if (out.accepted > 0) entry.lastActivity = this.#now()
    if (out.established) this.#established(entry)
    for (const data of out.data) entry.session?.emit('message', data)
    if (out.closed !== undefined) this.#remove(entry, out.closed)
    else this.#armRetransmit(entry)
  }

  #established (entry: Entry): void {
    this.#handshakes -= 1
    clearTimeout(entry.deadline)
    const { conn, remote } = entry
    entry.session = new DtlsSession(conn.identity ?? '', remote, {
      send: (data) => {
        if (conn.closed) return false
        this.#send(conn.send(data), remote)
        return true
      },
      close: () => {
        this.#sendAll(conn.close(), remote)
        this.#remove(entry, 'local.close')
      }
    })
    this.#armIdle(entry, this.#options.idleTimeoutMs ?? 600_000)
    this.emit('session', entry.session)
  }

  #armRetransmit (entry: Entry): void {
    const timer = entry.conn.timer
    if (timer?.id === entry.retransmitId) return
    clearTimeout(entry.retransmit)
    entry.retransmitId = timer?.id
    entry.retransmit = timer === undefined ? undefined : later(timer.ms, () => this.#apply(entry, entry.conn.timeout()))
  }

  /** One timer per session, re-armed for what is left when it fires early (no timer reset per datagram). */
  #armIdle (entry: Entry, ms: number): void {
    entry.idle = later(ms, () => {
      const idleFor = this.#now() - entry.lastActivity
      const limit = this.#options.idleTimeoutMs ?? 600_000
      if (idleFor < limit) return this.#armIdle(entry, limit - idleFor)
      this.#sendAll(entry.conn.close(), entry.remote)
      this.#remove(entry, 'idle.timeout')
    })
  }

  #remove (entry: Entry, reason: string): void {
    if (this.#peers.get(entry.key) !== entry) return
    this.#peers.delete(entry.key)
    if (entry.session === undefined) this.#handshakes -= 1
    for (const t of [entry.retransmit, entry.deadline, entry.idle]) clearTimeout(t)
    entry.session?.ended(reason)
  }

  #sendAll (datagrams: Buffer[], remote: Remote): void {
    for (const d of datagrams) this.#send(d, remote)
  }

  #refuse (reason: RefusalReason, remote: Remote): void {
    this.counters[reason] += 1
    if (this.listenerCount('refused') > 0) this.emit('refused', reason, { address: remote.address, port: remote.port })
  }
}
