// Reliable transmission of our CONs (RFC 7252 §4.2): retransmit with exponential back-off until an ACK or a RST
// with the same message id, or give up after MAX_RETRANSMIT.
import type { CoapCounters } from './counters.js'
import type { TransmissionParams } from './params.js'
import type { Timers, TimerHandle } from './timers.js'
import type { CoapMessage } from './types.js'

export interface ConCallbacks {
  /** An ACK (empty, or carrying a piggybacked response). */
  onAck: (ack: CoapMessage) => void
  onReset: () => void
  /** No ACK after MAX_RETRANSMIT retransmissions and the last timeout. */
  onTimeout: () => void
}

interface InFlight { peer: string, buf: Buffer, retransmits: number, timeoutMs: number, timer: TimerHandle, cb: ConCallbacks }

export interface TransmitterDeps {
  send: (peer: string, buf: Buffer) => void
  timers: Timers
  params: TransmissionParams
  random: () => number
  counters: CoapCounters
}

const keyOf = (peer: string, messageId: number): string => `${messageId} ${peer}`

export class Transmitter {
  private readonly inFlight = new Map<string, InFlight>()

  constructor (private readonly d: TransmitterDeps) {}

  get size (): number { return this.inFlight.size }

  /** Sends now; §4.2: the first timeout is random in [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR], then doubles. */
  start (peer: string, messageId: number, buf: Buffer, cb: ConCallbacks): void {
    const key = keyOf(peer, messageId)
    const p = this.d.params
    const timeoutMs = p.ackTimeoutMs * (1 + this.d.random() * (p.ackRandomFactor - 1))
    const entry: InFlight = { peer, buf, retransmits: 0, timeoutMs, timer: undefined, cb }
    this.inFlight.set(key, entry)
    entry.timer = this.d.timers.setTimeout(() => { this.expire(key) }, timeoutMs)
    this.d.send(peer, buf)
  }

  /** An ACK or RST from `peer`: settles our CON with the same id. False when none is in flight. */
  settle (peer: string, msg: CoapMessage): boolean {
    const key = keyOf(peer, msg.messageId)
    const entry = this.inFlight.get(key)
    if (entry === undefined) return false
    this.drop(key, entry)
    if (msg.type === 3) entry.cb.onReset()
    else entry.cb.onAck(msg)
    return true
  }

  /** Stops retransmitting, without callback (e.g. a separate response arrived: our request got through). */
  cancel (peer: string, messageId: number): void {
    const key = keyOf(peer, messageId)
    const entry = this.inFlight.get(key)
    if (entry !== undefined) this.drop(key, entry)
  }

  /** Stops retransmitting to one peer (or to all); each CON is settled as timed out, so nothing waits forever. */
  clear (peer?: string): void {
    const stopped = [...this.inFlight].filter(([, entry]) => peer === undefined || entry.peer === peer)
    for (const [key, entry] of stopped) this.drop(key, entry)
    for (const [, entry] of stopped) entry.cb.onTimeout()
  }

  private drop (key: string, entry: InFlight): void {
    this.d.timers.clearTimeout(entry.timer)
    this.inFlight.delete(key)
  }

  private expire (key: string): void {
    const entry = this.inFlight.get(key)
    if (entry === undefined) return
    if (entry.retransmits >= this.d.params.maxRetransmit) {
      this.inFlight.delete(key)
      this.d.counters.timeouts++
      entry.cb.onTimeout()
      return
    }
    entry.retransmits++
    entry.timeoutMs *= 2
    this.d.counters.retransmissions++
    entry.timer = this.d.timers.setTimeout(() => { this.expire(key) }, entry.timeoutMs)
    this.d.send(entry.peer, entry.buf)
  }
}
