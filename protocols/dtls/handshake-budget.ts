// The handshakes one source address may start (README, Handshakes per address): a token bucket per address, so
// that a real peer (one that answered its cookie: a spoofed flood never gets this far) starting handshakes as fast as
// it can, or completing them at a high rate, spends its own budget and not the handshake slots and pskFor lookups of
// every other address. The rate is pure (`refill`); the map of buckets is bounded. Time is passed in, in ms.

export interface HandshakeRate {
  /** Handshakes an address may start per second, once its burst is spent; 0: no limit. */
  perS: number
  /** Handshakes an address that was quiet may start at once (at least 1). */
  burst: number
}

export interface Bucket {
  /** Handshakes that may start now (fractions accumulate). */
  tokens: number
  /** When `tokens` was counted (ms). */
  at: number
}

/**
 * The bucket at `now`: a new one is full; an old one gets back what the time since it was counted restores, up to
 * the burst. A clock that steps back restores nothing (and moves nothing back), so it can never mint handshakes.
 */
export function refill (bucket: Bucket | undefined, rate: HandshakeRate, now: number): Bucket {
  if (bucket === undefined) return { tokens: rate.burst, at: now }
  if (now <= bucket.at) return bucket
  return { tokens: Math.min(rate.burst, bucket.tokens + ((now - bucket.at) * rate.perS) / 1000), at: now }
}

/** Whether a handshake may start with this bucket. */
export const allows = (bucket: Bucket): boolean => bucket.tokens >= 1

/** Addresses whose buckets are kept at most; an address forgotten gets a full budget again, nothing worse. */
const MAX_ADDRESSES = 100_000

export class HandshakeBudget {
  readonly #rate: HandshakeRate
  readonly #keyOf: (address: string) => string
  readonly #max: number
  // Insertion order is last-spent order (a spend moves its key to the end), so the oldest go first when full.
  readonly #buckets = new Map<string, Bucket>()

  constructor (rate: HandshakeRate, keyOf: (address: string) => string = (a) => a, max = MAX_ADDRESSES) {
    this.#rate = { perS: rate.perS, burst: Math.max(1, rate.burst) }
    this.#keyOf = keyOf
    this.#max = max
  }

  /** Addresses holding a bucket. */
  get size (): number { return this.#buckets.size }

  /** Whether `address` may start a handshake at `now` (nothing is spent). */
  allows (address: string, now: number): boolean {
    if (this.#rate.perS <= 0) return true
    return allows(refill(this.#buckets.get(this.#keyOf(address)), this.#rate, now))
  }

  /** Spends one handshake of `address` (after `allows` answered true and the handshake started). */
  spend (address: string, now: number): void {
    if (this.#rate.perS <= 0) return
    const key = this.#keyOf(address)
    const bucket = refill(this.#buckets.get(key), this.#rate, now)
    this.#buckets.delete(key)
    if (this.#buckets.size >= this.#max) this.#forget(now)
    this.#buckets.set(key, { tokens: bucket.tokens - 1, at: bucket.at })
  }

  /** Full buckets are the same as none; then, if every address is busy, the least recent go. */
  #forget (now: number): void {
    for (const [k, b] of this.#buckets) if (refill(b, this.#rate, now).tokens >= this.#rate.burst) this.#buckets.delete(k)
    for (const k of this.#buckets.keys()) {
      if (this.#buckets.size < this.#max * 0.9) break
      this.#buckets.delete(k)
    }
  }
}
