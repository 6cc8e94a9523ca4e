import type { RateCounter } from '../../core/ports.js'

/** Fixed-window counters in this process (the embedded default; conventions.md §Rate limiting). */
export function createMemoryCounter (now: () => number = Date.now): RateCounter {
  const windows = new Map<string, { start: number, count: number }>()
  let lastSweep = now()
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
    async close () { windows.clear() }
  }
}
