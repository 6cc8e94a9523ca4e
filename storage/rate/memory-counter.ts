import type { RateCounter, ThrottleRule } from '../../core/ports/store.js'

// Failed-attempt entries kept at most; beyond it the expired ones are dropped, then the oldest (an attacker cycling
// through addresses must not grow the map without bound).
const ATTEMPTS_MAX = 100_000

/** Fixed-window and failed-attempt counters in this process (the embedded default; docs/api.md#using-the-api). */
export function createMemoryCounter (now: () => number = Date.now): RateCounter {
  const windows = new Map<string, { start: number, count: number }>()
  const attempts = new Map<string, { failures: number, until: number, forgetAt: number }>()
  let lastSweep = now()
  const sweepAttempts = (t: number): void => {
    for (const [k, a] of attempts) if (a.forgetAt <= t) attempts.delete(k)
    for (const k of attempts.keys()) { if (attempts.size < ATTEMPTS_MAX) break; attempts.delete(k) }
  }
  return {
    async hit (key, windowMs) {
      const t = now()
      const start = t - (t % windowMs)
      if (t - lastSweep > 10 * windowMs) { // forget idle keys so the map stays bounded
        for (const [k, w] of windows) if (w.start < start) windows.delete(k)
        lastSweep = t
      }
      const w = windows.get(key)
      if (w === undefined || w.start !== start) {
        windows.set(key, { start, count: 1 })
        return { count: 1, resetMs: start + windowMs - t }
      }
      w.count++
      return { count: w.count, resetMs: start + windowMs - t }
    },
    async attempt (key, at, rule) {
      const t = now()
      let a = attempts.get(key)
      if (a !== undefined && a.forgetAt <= t) a = undefined
      if (a !== undefined && at < a.until) return a.until - at
      if (a === undefined) {
        if (attempts.size >= ATTEMPTS_MAX) sweepAttempts(t)
        a = { failures: 0, until: 0, forgetAt: 0 }
      }
      a.failures++
      if (a.failures >= rule.after) a.until = at + waitMs(a.failures, rule)
      a.forgetAt = t + rule.forgetMs
      attempts.delete(key) // re-inserted last: the map's order is the order of last attempts
      attempts.set(key, a)
      return 0
    },
    async waiting (key, at) {
      const a = attempts.get(key)
      return a === undefined || a.forgetAt <= now() ? 0 : Math.max(0, a.until - at)
    },
    async forgive (key) {
      const a = attempts.get(key)
      if (a === undefined) return
      a.failures--
      a.until = 0
      if (a.failures <= 0) attempts.delete(key)
    },
    async reset (key) { attempts.delete(key) },
    async close () { windows.clear(); attempts.clear() }
  }
}

/** The wait that starts with the n-th failure (n >= rule.after). */
export function waitMs (failures: number, rule: ThrottleRule): number {
  return Math.min(rule.maxMs, rule.baseMs * 2 ** (failures - rule.after))
}
