// The message layer (RFC 7252 §4): message ids, sending, our CONs' retransmission, and the answers (ACK, RST) to
// the peer's CONs, remembered for their duplicates.
import { DedupCache } from './dedup.js'
import { encodeMessage } from './encode.js'
import type { CoapCounters } from './counters.js'
import { derivedTimes, type DerivedTimes, type EndpointLimits, type TransmissionParams } from './params.js'
import type { Timers } from './timers.js'
import { Transmitter, type ConCallbacks } from './transmitter.js'
import { MessageType, type CoapMessage } from './types.js'

export type SendFn = (peer: string, datagram: Buffer) => void | Promise<void>

export interface MessageLayerDeps {
  send: SendFn
  timers: Timers
  params: TransmissionParams
  limits: EndpointLimits
  random: () => number
  counters: CoapCounters
}

const EMPTY = Buffer.alloc(0)

export class MessageLayer {
  readonly transmitter: Transmitter
  readonly dedup: DedupCache
  readonly times: DerivedTimes
  private readonly nextIds = new Map<string, number>()

  constructor (private readonly d: MessageLayerDeps) {
    this.times = derivedTimes(d.params)
    this.transmitter = new Transmitter({ send: (peer, buf) => { this.sendRaw(peer, buf) }, timers: d.timers, params: d.params, random: d.random, counters: d.counters })
    this.dedup = new DedupCache({ lifetimeMs: this.times.exchangeLifetimeMs, maxPerPeer: d.limits.maxDedupPerPeer, maxPeers: d.limits.maxPeers, now: () => d.timers.now() })
  }

  /**
   * §4.4: a counter per peer, from a random start, so a peer sees an id again only after 65,536 of our messages to
   * it. The map is bounded like the dedup cache; a forgotten peer starts again at random.
   */
  nextMessageId (peer: string): number {
    const current = this.nextIds.get(peer)
    const id = current ?? Math.floor(this.d.random() * 0x10000) & 0xffff
    if (current !== undefined) this.nextIds.delete(peer)
    else if (this.nextIds.size >= this.d.limits.maxPeers) this.nextIds.delete(this.nextIds.keys().next().value as string)
    this.nextIds.set(peer, (id + 1) & 0xffff)
    return id
  }

  /** §9.1: ids and tokens belong to a security session; a new one with the same peer key starts afresh. */
  forget (peer: string): void {
    this.transmitter.clear(peer)
    this.dedup.forget(peer)
    this.nextIds.delete(peer)
  }

  /** Hands a datagram to the transport; its failures are counted, never thrown (UDP may lose it anyway). */
  sendRaw (peer: string, datagram: Buffer): void {
    this.d.counters.sent++
    try {
      const r = this.d.send(peer, datagram)
      if (r instanceof Promise) r.catch(() => { this.d.counters.sendErrors++ })
    } catch {
      this.d.counters.sendErrors++
    }
  }

  send (peer: string, msg: CoapMessage): void {
    this.sendRaw(peer, encodeMessage(msg))
  }

  /** A CON of ours, retransmitted until settled. */
  sendConfirmable (peer: string, msg: CoapMessage, cb: ConCallbacks): void {
    this.transmitter.start(peer, msg.messageId, encodeMessage(msg), cb)
  }

  /** An ACK (piggybacked response, or empty) or RST answering the peer's CON: cached for its duplicates (§4.5). */
  answer (peer: string, msg: CoapMessage): void {
    const buf = encodeMessage(msg)
    this.dedup.setReply(peer, msg.messageId, buf)
    this.sendRaw(peer, buf)
  }

  emptyAck (peer: string, messageId: number): void {
    this.answer(peer, emptyMessage(MessageType.ACK, messageId))
  }

  reset (peer: string, messageId: number): void {
    this.answer(peer, emptyMessage(MessageType.RST, messageId))
  }
}

export const emptyMessage = (type: MessageType, messageId: number): CoapMessage =>
  ({ type, code: 0, messageId, token: EMPTY, options: [], payload: EMPTY })
