// Device connections that have not logged in yet (MQTT until its CONNACK, M3DA over TCP until its first authentic
// envelope). Such a connection costs the service a socket, buffers and, for some, a password check, without any
// device to answer for it: each gets a deadline to log in, and one remote address may hold only so many at once,
// so that one host opening sockets and sending nothing (or a few bytes of a CONNECT) cannot exhaust the process.
// Logged-in connections are not counted: a fleet behind one NAT address is bounded only while it logs in.
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
   * A new connection from `address`: its deadline starts, and it counts against the address until it logs in or
   * closes. Undefined when the address already holds the most allowed: the caller closes it at once.
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

export function createLoginGate (opts: LoginGateOptions): LoginGate {
  const byAddress = new Map<string, number>()
  let total = 0
  const closed = opts.metrics.counter<'transport' | 'reason'>({
    name: 'fleet_device_connections_closed_before_login_total',
    help: 'Device connections closed before they logged in, by transport and reason (per_address_cap: their address held too many connections not logged in; login_timeout: no login in time)',
    labels: ['transport', 'reason']
  })

  return {
    admit (address, conn) {
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
