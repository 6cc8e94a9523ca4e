import { Redis } from 'ioredis'
import type { RateCounter } from '../../core/ports.js'

/** Fixed-window counters shared by every API process (conventions.md §Rate limiting: Redis when scaled out). */
export async function createRedisCounter (url: string, prefix = 'fleet:rate:'): Promise<RateCounter> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 })
  await redis.connect()
  return {
    async hit (key, windowMs) {
      const t = Date.now()
      const start = t - (t % windowMs)
      const k = `${prefix}${key}:${start}`
      const [[, count]] = await redis.multi().incr(k).pexpire(k, windowMs * 2).exec() as [[unknown, number]]
      return { count, resetMs: start + windowMs - t }
    },
    async close () { await redis.quit() }
  }
}
