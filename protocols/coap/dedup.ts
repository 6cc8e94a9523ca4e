// Message deduplication (RFC 7252 §4.5): the message ids each peer sent us within EXCHANGE_LIFETIME, with the
// answer we gave to a CON (ACK or RST) so a duplicate gets the same bytes again. Bounded per peer and in peers.

export interface DedupEntry { expires: number, reply?: Buffer }

export interface DedupOptions { lifetimeMs: number, maxPerPeer: number, maxPeers: number, now: () => number }

/**
 * Peers are kept least recently heard first, and each peer's ids oldest first (one lifetime for all, so insertion
 * order is expiry order): expired ids are dropped from the front as the peer is heard, and the least recently heard
 * peer is swept a little on every call, so idle peers disappear without a timer.
 */
export class DedupCache {
  private readonly peers = new Map<string, Map<number, DedupEntry>>()

  constructor (private readonly o: DedupOptions) {}

  /** The number of peers remembered. */
  get size (): number { return this.peers.size }

  /** First sight of (peer, id): recorded, undefined. Seen before: its entry (with the cached reply, if any). */
  check (peer: string, messageId: number): DedupEntry | undefined {
    const now = this.o.now()
    let ids = this.peers.get(peer)
    if (ids !== undefined) {
      dropExpired(ids, now)
      const seen = ids.get(messageId)
      if (seen !== undefined) return seen
      this.peers.delete(peer) // re-inserted below: most recently heard last
    } else {
      ids = new Map()
      this.evictPeer()
    }
    this.peers.set(peer, ids)
    if (ids.size >= this.o.maxPerPeer) ids.delete(ids.keys().next().value as number)
    ids.set(messageId, { expires: now + this.o.lifetimeMs })
    this.sweepOldest(now)
    return undefined
  }

  /** Remembers the answer to a CON so that its duplicates get it again. */
  setReply (peer: string, messageId: number, reply: Buffer): void {
    const e = this.peers.get(peer)?.get(messageId)
    if (e !== undefined) e.reply = reply
  }

  forget (peer: string): void {
    this.peers.delete(peer)
  }

  private evictPeer (): void {
    if (this.peers.size < this.o.maxPeers) return
    this.peers.delete(this.peers.keys().next().value as string)
  }

  private sweepOldest (now: number): void {
    const first = this.peers.entries().next()
    if (first.done === true) return
    const [peer, ids] = first.value
    dropExpired(ids, now)
    if (ids.size === 0) this.peers.delete(peer)
  }
}

function dropExpired (ids: Map<number, DedupEntry>, now: number): void {
  for (const [id, e] of ids) {
    if (e.expires > now) return
    ids.delete(id)
  }
}
