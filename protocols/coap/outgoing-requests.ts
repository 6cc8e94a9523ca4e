// Our requests to peers (RFC 7252 §5.3, §4.7): tokens, matching responses by peer and token (piggybacked in the ACK,
// matched by message id first, or separate), timeouts, and NSTART: one interaction at a time per peer, the others
// queued, bounded.
import type { CoapCounters } from './counters.js'
import { CoapError } from './errors.js'
import type { SendParts } from './exchanges.js'
import type { MessageLayer } from './message-layer.js'
import type { EndpointLimits, TransmissionParams } from './params.js'
import type { TimerHandle, Timers } from './timers.js'
import { MessageType, coapMessage, type CoapMessage } from './types.js'

interface Pending {
  peer: string
  messageId: number
  timer: TimerHandle
  resolve: (msg: CoapMessage) => void
  reject: (err: Error) => void
}

interface Waiter { resolve: () => void, reject: (err: Error) => void }
interface Slot { active: number, queue: Waiter[] }

export interface RequesterDeps {
  layer: MessageLayer
  params: TransmissionParams
  limits: EndpointLimits
  counters: CoapCounters
  timers: Timers
  randomBytes: (n: number) => Buffer
}

export const tokenId = (peer: string, token: Buffer): string => `${token.toString('hex')} ${peer}`

export class Requester {
  private readonly pending = new Map<string, Pending>()
  private readonly slots = new Map<string, Slot>()
  /** Tokens held by others (our observations), so a new token never collides with them. */
  readonly reserved = new Set<string>()
  private closed = false

  constructor (private readonly d: RequesterDeps) {}

  get inFlight (): number { return this.pending.size }

  /**
   * A random token not in use with this peer (§5.3.1).
   * @throws Error when an injected randomBytes keeps giving tokens in use (a test's generator, never crypto's).
   */
  newToken (peer: string): Buffer {
    for (let attempt = 0; attempt < 64; attempt++) {
      const token = this.d.randomBytes(this.d.limits.tokenLength)
      const id = tokenId(peer, token)
      if (!this.pending.has(id) && !this.reserved.has(id)) return token
    }
    throw new Error('no free token: randomBytes keeps repeating itself')
  }

  /** Waits for this peer's NSTART slot; fails at once with coap.peer.busy past maxPendingPerPeer. */
  acquire (peer: string): Promise<void> {
    if (this.closed) return Promise.reject(new CoapError('coap.closed'))
    let slot = this.slots.get(peer)
    if (slot === undefined) this.slots.set(peer, slot = { active: 0, queue: [] })
    if (slot.active < this.d.params.nstart) {
      slot.active++
      return Promise.resolve()
    }
    if (slot.active + slot.queue.length >= this.d.limits.maxPendingPerPeer) return Promise.reject(new CoapError('coap.peer.busy'))
    return new Promise((resolve, reject) => { slot.queue.push({ resolve, reject }) })
  }

  /** Hands the slot to the next request queued for this peer (in order), or frees it. */
  release (peer: string): void {
    const slot = this.slots.get(peer)
    if (slot === undefined) return
    const next = slot.queue.shift()
    if (next !== undefined) return next.resolve()
    slot.active--
    if (slot.active <= 0) this.slots.delete(peer)
  }

  /** One request, one response: resolves with the response, rejects with coap.timeout or coap.reset. */
  exchange (peer: string, parts: SendParts, token: Buffer, timeoutMs: number): Promise<CoapMessage> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new CoapError('coap.closed'))
      const id = tokenId(peer, token)
      const messageId = this.d.layer.nextMessageId(peer)
      const p: Pending = { peer, messageId, timer: undefined, resolve, reject }
      this.pending.set(id, p)
      p.timer = this.d.timers.setTimeout(() => { this.finish(id, new CoapError('coap.timeout')) }, timeoutMs)
      const msg = coapMessage(parts.confirmable ? MessageType.CON : MessageType.NON, parts.code, messageId, token, parts.options, parts.payload)
      if (!parts.confirmable) return this.d.layer.send(peer, msg)
      this.d.layer.sendConfirmable(peer, msg, {
        // §5.2.1: a piggybacked response must carry our token; an empty ACK means a separate response will follow.
        onAck: (ack) => {
          if (ack.code === 0) return
          if (ack.token.equals(token)) this.finish(id, ack)
          else this.d.counters.unmatched++
        },
        onReset: () => { this.finish(id, new CoapError('coap.reset')) },
        onTimeout: () => { this.finish(id, new CoapError('coap.timeout')) }
      })
    })
  }

  /** A CON/NON response from `peer`: true when it answers one of our requests. */
  handleResponse (peer: string, msg: CoapMessage): boolean {
    const id = tokenId(peer, msg.token)
    const p = this.pending.get(id)
    if (p === undefined) return false
    // §5.3.2: the separate response shows our request arrived, even if its ACK was lost.
    this.d.layer.transmitter.cancel(peer, p.messageId)
    this.finish(id, msg)
    return true
  }

  /** Fails what is pending or queued for one peer with coap.peer.gone. */
  forget (peer: string): void {
    for (const [id, p] of [...this.pending]) {
      if (p.peer === peer) this.finish(id, new CoapError('coap.peer.gone'))
    }
    const slot = this.slots.get(peer)
    for (const w of slot?.queue.splice(0) ?? []) w.reject(new CoapError('coap.peer.gone'))
  }

  /** Fails everything pending or queued with coap.closed. */
  close (): void {
    this.closed = true
    for (const id of [...this.pending.keys()]) this.finish(id, new CoapError('coap.closed'))
    for (const slot of this.slots.values()) {
      for (const w of slot.queue) w.reject(new CoapError('coap.closed'))
    }
    this.slots.clear()
  }

  private finish (id: string, outcome: CoapMessage | Error): void {
    const p = this.pending.get(id)
    if (p === undefined) return
    this.pending.delete(id)
    this.d.timers.clearTimeout(p.timer)
    this.d.layer.transmitter.cancel(p.peer, p.messageId)
    if (outcome instanceof Error) p.reject(outcome)
    else p.resolve(outcome)
  }
}
