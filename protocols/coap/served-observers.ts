// The observations peers hold on our resources (RFC 7641 §4.1, server side), bounded per peer and in all.
import { countRefusal, type CoapCounters } from './counters.js'
import { representationKey } from './response-blocks.js'
import { uriPathOf } from './options.js'
import type { CoapMessage } from './types.js'

export interface ServedObserver {
  readonly peer: string
  readonly token: Buffer
  /** The Uri-Path observed, e.g. "/3/0". */
  readonly path: string
  /** Names the representation for the Block2 follow-ups of a large notification. */
  readonly key: string
  /** The Observe value of the last notification (24 bits). */
  seq: number
  /** The id of the last notification sent, so a RST to a NON one ends the observation (§3.6, §4.2). */
  lastMessageId?: number
}

/**
 * deregistered: GET with Observe 1 (§3.6); reset: RST to a notification; timeout: a CON one never ACKed (§4.5);
 * ended: we sent an error notification (§4.2); closed: the endpoint closed; gone: forgetPeer().
 */
export type ObserverGoneReason = 'deregistered' | 'reset' | 'timeout' | 'ended' | 'closed' | 'gone'

export interface ServedObserversOptions {
  maxPerPeer: number
  max: number
  counters: CoapCounters
  onGone?: (observer: ServedObserver, reason: ObserverGoneReason) => void
}

const idOf = (peer: string, token: Buffer): string => `${token.toString('hex')} ${peer}`

export class ServedObservers {
  private readonly all = new Map<string, ServedObserver>()
  private readonly perPeer = new Map<string, number>()
  private readonly byMessageId = new Map<string, ServedObserver>()

  constructor (private readonly o: ServedObserversOptions) {}

  get size (): number { return this.all.size }

  list (): ServedObserver[] { return [...this.all.values()] }

  get (peer: string, token: Buffer): ServedObserver | undefined { return this.all.get(idOf(peer, token)) }

  /** §4.1: the same peer and token again updates the entry; undefined when a limit refuses a new one. */
  register (peer: string, req: CoapMessage): ServedObserver | undefined {
    const existing = this.get(peer, req.token)
    if (existing !== undefined) return existing
    if ((this.perPeer.get(peer) ?? 0) >= this.o.maxPerPeer || this.all.size >= this.o.max) {
      countRefusal(this.o.counters, 'coap.observers.limit')
      return undefined
    }
    const observer: ServedObserver = { peer, token: Buffer.from(req.token), path: uriPathOf(req), key: representationKey(req), seq: 2 }
    this.all.set(idOf(peer, req.token), observer)
    this.perPeer.set(peer, (this.perPeer.get(peer) ?? 0) + 1)
    return observer
  }

  remove (peer: string, token: Buffer, reason: ObserverGoneReason): void {
    const id = idOf(peer, token)
    const observer = this.all.get(id)
    if (observer === undefined) return
    this.all.delete(id)
    if (observer.lastMessageId !== undefined) this.byMessageId.delete(`${observer.lastMessageId} ${peer}`)
    const n = (this.perPeer.get(peer) ?? 1) - 1
    if (n === 0) this.perPeer.delete(peer)
    else this.perPeer.set(peer, n)
    try {
      this.o.onGone?.(observer, reason)
    } catch {
      this.o.counters.callbackErrors++
    }
  }

  /** Records the id of the notification just sent (only the last one is remembered per observer). */
  noteSent (observer: ServedObserver, messageId: number): void {
    if (observer.lastMessageId !== undefined) this.byMessageId.delete(`${observer.lastMessageId} ${observer.peer}`)
    observer.lastMessageId = messageId
    this.byMessageId.set(`${messageId} ${observer.peer}`, observer)
  }

  /** A RST whose id is that of the last notification to an observer ends it. */
  resetByMessageId (peer: string, messageId: number): boolean {
    const observer = this.byMessageId.get(`${messageId} ${peer}`)
    if (observer === undefined) return false
    this.remove(peer, observer.token, 'reset')
    return true
  }

  /** Removes the observers of one peer (or all). */
  clear (reason: 'closed' | 'gone' = 'closed', peer?: string): void {
    for (const o of [...this.all.values()]) {
      if (peer === undefined || o.peer === peer) this.remove(o.peer, o.token, reason)
    }
  }
}
