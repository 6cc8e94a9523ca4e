// Device limits (docs/security.md#device-limits): one device must not take the service from the others. One
// authenticated device sending as fast as it could once queued hundreds of thousands of messages in front of
// everyone's, so:
// - each device has a budget of messages and of bytes per second on a transport (token buckets, with a burst of
//   DEVICE_RATE_BURST_S seconds); a message over it is refused and not stored, in each protocol's way;
// - a device that keeps at it (DEVICE_RATE_DISCONNECT_AFTER refusals within 10 s) has its connection closed;
// - a connection's socket is no longer read while its messages waiting for their commit pass a small bound.
// The budget is the device's (its system), not one connection's: a connection closed for exceeding it would
// otherwise come back with a full budget, and an MQTT 5 device may hold several connections.
import type { Duplex } from 'node:stream'
import type { Config } from '../core/config.js'
import type { MetricsRegistry } from '../core/metrics.js'
import { createTokenBucket, type TokenBucket } from '../core/domain/token-bucket.js'

export type Admission =
  | { ok: true }
  /** retryAfterS: when the budget has room again; disconnect: the device keeps at it, close its connection. */
  | { ok: false, retryAfterS: number, disconnect: boolean }

/** The backpressure of one connection: its messages on their way to the store. */
export interface ConnectionPressure {
  /** Notes a message on its way to the store; answers what to call once it is committed or failed. */
  track (bytes: number): () => void
  /** Resolves once the connection is under its bound again; undefined when it already is. */
  room (): Promise<void> | undefined
}

export interface DeviceLimits {
  /** Takes one message of `bytes` from the device's budget, or refuses it (counted). */
  admit (systemUid: string, bytes: number): Admission
  /** Counts a connection closed because its device kept exceeding its budget. */
  disconnected (): void
  /** The backpressure of a connection reading `stream`. */
  pressure (stream: Duplex): ConnectionPressure
}

export type DeviceLimitsConfig = Pick<Config, 'DEVICE_RATE_MESSAGES_PER_S' | 'DEVICE_RATE_BYTES_PER_S' | 'DEVICE_RATE_BURST_S' | 'DEVICE_RATE_DISCONNECT_AFTER' | 'DEVICE_PENDING_MESSAGES'>

/** Refusals are counted against DEVICE_RATE_DISCONNECT_AFTER over windows of this length. */
export const STRIKE_WINDOW_MS = 10_000
/** A connection is not read while its messages waiting for their commit hold more than this (a few 1 MiB payloads). */
const PENDING_BYTES = 4 * 1024 * 1024
/** Budgets kept at most; full ones (the same as new) are forgotten first. */
const MAX_BUDGETS = 100_000

interface Budget { messages?: TokenBucket, bytes?: TokenBucket, strikes: number, windowAt: number }

function limitsMetrics (metrics: MetricsRegistry) {
  return {
    messages: metrics.counter<'protocol'>({ name: 'fleet_device_rate_limited_messages_total', help: 'Device messages refused for exceeding their device\'s rate (not stored)', labels: ['protocol'] }),
    bytes: metrics.counter<'protocol'>({ name: 'fleet_device_rate_limited_bytes_total', help: 'Payload bytes of the device messages refused for rate', labels: ['protocol'] }),
    disconnects: metrics.counter<'protocol'>({ name: 'fleet_device_rate_disconnects_total', help: 'Device connections closed for exceeding their rate again and again', labels: ['protocol'] }),
    paused: metrics.counter<'protocol'>({ name: 'fleet_device_sockets_paused_total', help: 'Times a device connection was no longer read while its messages waited for their commit', labels: ['protocol'] })
  }
}

export function createDeviceLimits (deps: { config: DeviceLimitsConfig, metrics: MetricsRegistry, now: () => number, protocol: string }): DeviceLimits {
  const { config, protocol } = deps
  const m = limitsMetrics(deps.metrics)
  const labels = { protocol }
  const budgets = new Map<string, Budget>()
  const burst = config.DEVICE_RATE_BURST_S
  const rated = config.DEVICE_RATE_MESSAGES_PER_S > 0 || config.DEVICE_RATE_BYTES_PER_S > 0

  function forget (now: number): void {
    for (const [k, b] of budgets) {
      if ((b.messages?.full(now) ?? true) && (b.bytes?.full(now) ?? true) && now - b.windowAt >= STRIKE_WINDOW_MS) budgets.delete(k)
    }
    // Every device busy: the oldest budgets go (a device forgotten gets a full budget again, nothing worse).
    for (const k of budgets.keys()) { if (budgets.size < MAX_BUDGETS * 0.9) break; budgets.delete(k) }
  }

  function budgetOf (systemUid: string, now: number): Budget {
    let b = budgets.get(systemUid)
    if (b !== undefined) return b
    if (budgets.size >= MAX_BUDGETS) forget(now)
    const bucket = (perS: number): TokenBucket | undefined => perS > 0 ? createTokenBucket({ perS, capacity: perS * burst }, now) : undefined
    b = { messages: bucket(config.DEVICE_RATE_MESSAGES_PER_S), bytes: bucket(config.DEVICE_RATE_BYTES_PER_S), strikes: 0, windowAt: now }
    budgets.set(systemUid, b)
    return b
  }

  return {
    admit (systemUid, bytes) {
      if (!rated) return { ok: true }
      const now = deps.now()
      const b = budgetOf(systemUid, now)
      const wait = Math.max(b.messages?.waitMs(1, now) ?? 0, b.bytes?.waitMs(bytes, now) ?? 0)
      if (wait === 0) {
        b.messages?.take(1, now)
        b.bytes?.take(bytes, now)
        return { ok: true }
      }
      m.messages.inc(labels)
      m.bytes.inc(labels, bytes)
      if (now - b.windowAt >= STRIKE_WINDOW_MS) { b.windowAt = now; b.strikes = 0 }
      b.strikes++
      const disconnect = config.DEVICE_RATE_DISCONNECT_AFTER > 0 && b.strikes >= config.DEVICE_RATE_DISCONNECT_AFTER
      return { ok: false, retryAfterS: Math.max(1, Math.ceil(wait / 1000)), disconnect }
    },
    disconnected () { m.disconnects.inc(labels) },
    pressure: (stream) => connectionPressure(stream, { messages: config.DEVICE_PENDING_MESSAGES, bytes: PENDING_BYTES }, () => { m.paused.inc(labels) })
  }
}

/**
 * Pauses `stream` while more than `bound` messages (or bytes) of its connection wait for their commit, and resumes
 * it once they are back under: the device's packets then wait in its socket and the kernel's buffers, and its TCP
 * window closes, instead of piling up in the service's memory and in front of other devices' messages.
 */
export function connectionPressure (stream: Duplex, bound: { messages: number, bytes: number }, onPause: () => void): ConnectionPressure {
  let messages = 0
  let bytes = 0
  let paused = false
  let waiters: Array<() => void> = []
  const over = (): boolean => messages >= bound.messages || bytes >= bound.bytes
  return {
    track (n) {
      messages++
      bytes += n
      if (!paused && over()) {
        paused = true
        stream.pause()
        onPause()
      }
      let released = false
      return () => {
        if (released) return
        released = true
        messages--
        bytes -= n
        if (!paused || over()) return
        paused = false
        const ready = waiters
        waiters = []
        for (const w of ready) w()
        if (!stream.destroyed) stream.resume()
      }
    },
    room: () => paused ? new Promise<void>((resolve) => waiters.push(resolve)) : undefined
  }
}

/** Limits that admit everything and never pause (tests of a transport's other rules). */
export const noDeviceLimits: DeviceLimits = {
  admit: () => ({ ok: true }),
  disconnected () {},
  pressure: () => ({ track: () => () => {}, room: () => undefined })
}
