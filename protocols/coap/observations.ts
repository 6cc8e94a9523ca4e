// Our observations at peers (RFC 7641, client side): the registration, notifications matched by peer and token,
// ordered by the §3.4 freshness rule, large ones pulled block-wise, and cancellation (§3.6).
import { readBlock } from './block.js'
import { pullBlock2, type Exchanger } from './block-transfer.js'
import { isSuccessCode } from './codes.js'
import { countRefusal, type CoapCounters } from './counters.js'
import { CoapError } from './errors.js'
import type { SendParts } from './exchanges.js'
import { OBSERVE_DEREGISTER, OBSERVE_REGISTER, isFresher } from './observe.js'
import { OptionNumber, getUintOption, withOption } from './options.js'
import { tokenId, type Requester } from './outgoing-requests.js'
import type { EndpointLimits } from './params.js'
import type { Timers } from './timers.js'
import type { CoapMessage } from './types.js'

/**
 * server: a notification with an error code, or without Observe, ended it (§3.2); closed: the endpoint closed;
 * gone: forgetPeer() was called for the peer.
 */
export type ObserveEndReason = 'server' | 'closed' | 'gone'

export interface ObserveCallbacks {
  /** Each fresh notification, its body complete; the first response is not one (it is `Observation.response`). */
  onNotification: (msg: CoapMessage) => void
  onEnd?: (reason: ObserveEndReason, msg?: CoapMessage) => void
}

export interface Observation {
  readonly peer: string
  readonly token: Buffer
  /** The answer to the registration, body complete. */
  readonly response: CoapMessage
  /** False when the peer answered without Observe: no notifications will come (§3.1). */
  readonly active: boolean
  /**
   * 'get' (default) deregisters with a GET carrying Observe 1 and the same token (§3.6), resolving with its answer;
   * 'forget' just stops listening: the next notification is answered with a RST, which ends it at the peer.
   * Resolves undefined at once when the observation is already over.
   */
  cancel: (mode?: 'get' | 'forget') => Promise<CoapMessage | undefined>
}

interface Entry { peer: string, token: Buffer, parts: SendParts, v1: number | undefined, t1: number, cb: ObserveCallbacks }

export interface ObservationsDeps {
  requester: Requester
  limits: EndpointLimits
  counters: CoapCounters
  timers: Timers
  /** For the Block2 pulls of large notifications. */
  timeoutMs: number
}

export class Observations {
  private readonly entries = new Map<string, Entry>()
  private readonly perPeer = new Map<string, number>()

  constructor (private readonly d: ObservationsDeps) {}

  get size (): number { return this.entries.size }

  /** @throws CoapError coap.observe.limit, and those of a request (coap.timeout, coap.reset, coap.peer.busy…). */
  async observe (peer: string, request: SendParts, cb: ObserveCallbacks, timeoutMs: number): Promise<Observation> {
    if ((this.perPeer.get(peer) ?? 0) >= this.d.limits.maxObservationsPerPeer) throw new CoapError('coap.observe.limit')
    const token = this.d.requester.newToken(peer)
    const parts = { ...request, options: withOption(request.options, OptionNumber.Observe, OBSERVE_REGISTER) }
    const entry: Entry = { peer, token, parts, v1: undefined, t1: 0, cb }
    this.add(entry)
    try {
      const response = await this.registration(entry, timeoutMs)
      const active = this.entries.has(tokenId(peer, token)) && isSuccessCode(response.code) && entry.v1 !== undefined
      if (!active) this.drop(entry)
      return { peer, token, response, active, cancel: async (mode = 'get') => await this.cancel(entry, mode, timeoutMs) }
    } catch (err) {
      this.drop(entry)
      throw err
    }
  }

  /** A CON/NON response from `peer`: true when it is a notification of ours (the caller ACKs a CON one). */
  handleNotification (peer: string, msg: CoapMessage): boolean {
    const e = this.entries.get(tokenId(peer, msg.token))
    if (e === undefined) return false
    const seq = getUintOption(msg, OptionNumber.Observe)
    if (!isSuccessCode(msg.code) || seq === undefined) {
      this.drop(e)
      this.call(() => e.cb.onEnd?.('server', msg))
      return true
    }
    const now = this.d.timers.now()
    if (e.v1 !== undefined && !isFresher(e.v1, e.t1, seq, now)) {
      this.d.counters.staleNotifications++
      return true
    }
    e.v1 = seq
    e.t1 = now
    const block = readBlock(msg, OptionNumber.Block2)
    if (typeof block === 'object' && block.more) this.pullThenDeliver(e, msg, seq).catch(() => { this.d.counters.internalErrors++ })
    else this.call(() => { e.cb.onNotification(msg) })
    return true
  }

  /** Ends the observations at one peer (or all) with onEnd(reason). */
  close (reason: 'closed' | 'gone' = 'closed', peer?: string): void {
    for (const e of [...this.entries.values()]) {
      if (peer !== undefined && e.peer !== peer) continue
      this.drop(e)
      this.call(() => e.cb.onEnd?.(reason))
    }
  }

  private async registration (e: Entry, timeoutMs: number): Promise<CoapMessage> {
    const { requester } = this.d
    await requester.acquire(e.peer)
    try {
      const first = await requester.exchange(e.peer, e.parts, e.token, timeoutMs)
      e.v1 = getUintOption(first, OptionNumber.Observe)
      e.t1 = this.d.timers.now()
      return await pullBlock2(this.exchanger(e.peer, timeoutMs), e.parts, first, this.d.limits.maxBodySize)
    } finally {
      requester.release(e.peer)
    }
  }

  private async cancel (e: Entry, mode: 'get' | 'forget', timeoutMs: number): Promise<CoapMessage | undefined> {
    // Already over (never registered, ended by the peer, cancelled): nothing to tell the peer.
    if (this.entries.get(tokenId(e.peer, e.token)) !== e) return undefined
    this.drop(e)
    if (mode === 'forget') return undefined
    const parts = { ...e.parts, options: withOption(e.parts.options, OptionNumber.Observe, OBSERVE_DEREGISTER) }
    await this.d.requester.acquire(e.peer)
    try {
      const res = await this.d.requester.exchange(e.peer, parts, e.token, timeoutMs)
      return await pullBlock2(this.exchanger(e.peer, timeoutMs), parts, res, this.d.limits.maxBodySize)
    } finally {
      this.d.requester.release(e.peer)
    }
  }

  /** RFC 7959 §2.6: the first block is the notification, the rest is asked without Observe. */
  private async pullThenDeliver (e: Entry, first: CoapMessage, seq: number): Promise<void> {
    const timeoutMs = this.d.timeoutMs
    try {
      await this.d.requester.acquire(e.peer)
      let whole: CoapMessage
      try {
        whole = await pullBlock2(this.exchanger(e.peer, timeoutMs), e.parts, first, this.d.limits.maxBodySize)
      } finally {
        this.d.requester.release(e.peer)
      }
      // Delivered only if still the newest and still observed.
      if (this.entries.get(tokenId(e.peer, e.token)) === e && e.v1 === seq) this.call(() => { e.cb.onNotification(whole) })
    } catch {
      countRefusal(this.d.counters, 'coap.notification.incomplete')
    }
  }

  private exchanger (peer: string, timeoutMs: number): Exchanger {
    return async (p) => await this.d.requester.exchange(peer, p, this.d.requester.newToken(peer), timeoutMs)
  }

  private add (e: Entry): void {
    const id = tokenId(e.peer, e.token)
    this.entries.set(id, e)
    this.d.requester.reserved.add(id)
    this.perPeer.set(e.peer, (this.perPeer.get(e.peer) ?? 0) + 1)
  }

  private drop (e: Entry): void {
    const id = tokenId(e.peer, e.token)
    if (this.entries.get(id) !== e) return
    this.entries.delete(id)
    this.d.requester.reserved.delete(id)
    const n = (this.perPeer.get(e.peer) ?? 1) - 1
    if (n === 0) this.perPeer.delete(e.peer)
    else this.perPeer.set(e.peer, n)
  }

  private call (fn: () => void): void {
    try {
      fn()
    } catch {
      this.d.counters.callbackErrors++
    }
  }
}
