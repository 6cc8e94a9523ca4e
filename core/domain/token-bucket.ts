// A token bucket (the budget of one device, ingest/device-limits.ts): `perS` tokens come back each second, up to
// `capacity` (the burst). Time is passed in, in ms, so the bucket holds no clock and tests move time themselves.

export interface TokenRate {
  /** Tokens restored per second. */
  perS: number
  /** Tokens the bucket holds when full: what may be spent at once after a quiet while. */
  capacity: number
}

export interface TokenBucket {
  /** ms until `n` tokens can be taken (0: now). */
  waitMs (n: number, now: number): number
  /** Spends `n` tokens (call after waitMs answered 0). */
  take (n: number, now: number): void
  /** Whether the bucket is full at `now`: then it is the same as a new one and may be forgotten. */
  full (now: number): boolean
}

/**
 * A bucket, full at `now`. A take of more than the capacity is allowed once the bucket is full and leaves it in
 * debt: the rate still holds over time, and a message larger than the burst (a 1 MiB payload under a small byte
 * budget) is never refused forever.
 */
export function createTokenBucket (rate: TokenRate, now: number): TokenBucket {
  let tokens = rate.capacity
  let at = now
  const refill = (t: number): void => {
    if (t > at) tokens = Math.min(rate.capacity, tokens + ((t - at) * rate.perS) / 1000)
    at = Math.max(at, t)
  }
  return {
    waitMs (n, t) {
      refill(t)
      const need = Math.min(n, rate.capacity)
      // The epsilon keeps a float's last bit (0.99 tokens after 99 ms at 10/s) from adding a whole ms.
      return tokens >= need ? 0 : Math.max(1, Math.ceil(((need - tokens) * 1000) / rate.perS - 1e-9))
    },
    take (n, t) {
      refill(t)
      tokens -= n
    },
    full (t) {
      refill(t)
      return tokens >= rate.capacity
    }
  }
}
