// Device connections that have not logged in yet (MQTT until its CONNACK, M3DA over TCP until its first authentic
// envelope). Such a connection costs the service a socket, buffers and, for some, a password check, without any
// device to answer for it: each gets a deadline to log in, and one remote address may hold only so many at once,
// so that one host opening sockets and sending nothing (or a few bytes of a CONNECT) cannot exhaust the process.
// Logged-in connections are not counted: a fleet behind one NAT address is bounded only while it logs in.
import { isIP } from 'node:net'
import type { MetricsRegistry } from '../core/metrics.js'

/** A connection as the gate sees it: a TCP socket or a WebSocket's stream. */
export interface GatedConnection {
  destroy (): void
  once (event: 'close', listener: () => void): unknown
}

/** One admitted connection not logged in yet. */
export interface PendingLogin {
  /** It logged in: its deadline ends and it no longer counts against its address. Safe to call more than once. */
  loggedIn (): void
}

export interface LoginGate {
  /**
   * A new connection from `address`: its deadline starts, and it counts against the address (an IPv6 one's /64)
   * until it logs in or closes. Undefined when the address already holds the most allowed: the caller closes it.
   */
  admit (address: string, conn: GatedConnection): PendingLogin | undefined
  /** Connections admitted and not logged in yet, every address together. */
  pending (): number
}

export interface LoginGateOptions {
  /** The transport's name in the metric (`mqtt`, `m3da`). */
  transport: string
  /** Connections not logged in that one address may hold at once. */
  perAddress: number
  /** How long a connection has to log in (ms). */
  timeoutMs: number
  metrics: MetricsRegistry
}

/**
 * What the cap counts by: an IPv4 address (also written as IPv4-mapped IPv6), or the /64 of an IPv6 address, since
 * one host commonly holds a whole /64 and could otherwise take a new address for every connection.
 */
export function addressBlock (address: string): string {
  const mapped = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address
  if (isIP(mapped) === 4) return mapped
  const plain = address.split('%')[0] ?? '' // a zone index (fe80::1%eth0) names the interface, not the host
  if (isIP(plain) !== 6) return address
  const [head = '', tail] = plain.split('::')
  const groups = (part: string | undefined): string[] =>
    part === undefined || part === '' ? [] : part.split(':').flatMap((g) => g.includes('.') ? ['0', '0'] : [g]) // a dotted IPv4 tail is two groups
  const before = groups(head)
  const after = groups(tail)
  const all = tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after]
  return all.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':') + '::/64'
}

export function createLoginGate (opts: LoginGateOptions): LoginGate {
  const byAddress = new Map<string, number>()
  let total = 0
  const closed = opts.metrics.counter<'transport' | 'reason'>({
    name: 'fleet_device_connections_closed_before_login_total',
    help: 'Device connections closed before they logged in, by transport and reason (per_address_cap: their address held too many connections not logged in; login_timeout: no login in time)',
    labels: ['transport', 'reason']
  })

  return {
    admit (remoteAddress, conn) {
      const address = addressBlock(remoteAddress)
      const held = byAddress.get(address) ?? 0
      if (held >= opts.perAddress) {
        closed.inc({ transport: opts.transport, reason: 'per_address_cap' })
        return undefined
      }
      byAddress.set(address, held + 1)
      total++
      let done = false
      const release = (): void => {
        if (done) return
        done = true
        clearTimeout(timer)
        total--
        const left = (byAddress.get(address) ?? 1) - 1
        if (left > 0) byAddress.set(address, left)
        else byAddress.delete(address)
      }
      const timer = setTimeout(() => {
        closed.inc({ transport: opts.transport, reason: 'login_timeout' })
        release()
        conn.destroy()
      }, opts.timeoutMs)
      conn.once('close', release)
      return { loggedIn: release }
    },
    pending: () => total
  }
}
