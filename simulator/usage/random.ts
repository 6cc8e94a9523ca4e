// The usage feed's randomness: a small seeded generator (mulberry32) per subscriber, so that one seed gives the same
// feed on every run and on every machine, whatever the windows it is played in (simulator/usage/feed.ts).

export interface Rng {
  /** Uniform in [0, 1). */
  next (): number
  /** Uniform whole number in [min, max]. */
  int (min: number, max: number): number
  /** Exponential with this mean: the gap between events of a Poisson process. */
  exponential (mean: number): number
  /** Log-normal with this median and spread (sigma of the logarithm): sizes and durations with a long tail. */
  logNormal (median: number, sigma: number): number
  /** True with probability p. */
  chance (p: number): boolean
  /** One key of the table, drawn by its weight. */
  weighted<K extends string> (weights: Readonly<Record<K, number>>): K
  /** One item of the list. */
  pick<T> (items: readonly T[]): T
}

/** A 32-bit hash of the parts (FNV-1a), to derive each subscriber's seed from the feed's seed. */
export function hash32 (...parts: Array<string | number>): number {
  let h = 0x811c9dc5
  for (const ch of parts.join('\u0000')) {
    h ^= ch.charCodeAt(0)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export function createRng (seed: number): Rng {
  let s = seed >>> 0
  const next = (): number => {
    // mulberry32: a full-period 32-bit generator, plenty for traffic shapes (not for secrets).
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  // Box-Muller; 1 - next() is in (0, 1], so the logarithm is finite.
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    exponential: (mean) => -Math.log(1 - next()) * mean,
    logNormal: (median, sigma) => median * Math.exp(sigma * normal()),
    chance: (p) => next() < p,
    weighted (weights) {
      const keys = Object.keys(weights) as Array<keyof typeof weights & string>
      const total = keys.reduce((a, k) => a + weights[k], 0)
      let x = next() * total
      for (const k of keys) {
        x -= weights[k]
        if (x < 0) return k
      }
      return keys[keys.length - 1] as keyof typeof weights & string
    },
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number]
  }
}
