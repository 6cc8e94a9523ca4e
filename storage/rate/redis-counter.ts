import { connectRedis } from '../redis-connect.js'
import type { RateCounter } from '../../core/ports/store.js'

// RateCounter.attempt in one atomic step (core/ports/store.ts). KEYS[1]: a hash {n: failures, until: ms};
// ARGV: now, after, baseMs, maxMs, forgetMs. Answers the ms left to wait, 0 when the attempt may go on.
const ATTEMPT = `
local now = tonumber(ARGV[1])
local untilMs = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if now < untilMs then return untilMs - now end
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local after = tonumber(ARGV[2])
if n >= after then
  local wait = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(n - after, 60))
  redis.call('HSET', KEYS[1], 'until', string.format('%d', now + wait))
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 0
`
const FORGIVE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HINCRBY', KEYS[1], 'n', -1) <= 0 then redis.call('DEL', KEYS[1]) else redis.call('HDEL', KEYS[1], 'until') end
return 0
`

/** Fixed-window and failed-attempt counters shared by every API process (docs/api.md#using-the-api: Redis when scaled out). */
export async function createRedisCounter (url: string, prefix = 'fleet:rate:'): Promise<RateCounter> {
  const redis = await connectRedis(url)
  return {
    async hit (key, windowMs) {
      const t = Date.now()
      const start = t - (t % windowMs)
      const k = `${prefix}${key}:${start}`
      const [[, count]] = await redis.multi().incr(k).pexpire(k, windowMs * 2).exec() as [[unknown, number]]
      return { count, resetMs: start + windowMs - t }
    },
    async attempt (key, now, rule) {
      return Number(await redis.eval(ATTEMPT, 1, `${prefix}${key}`, now, rule.after, rule.baseMs, rule.maxMs, rule.forgetMs))
    },
    async waiting (key, now) {
      return Math.max(0, Number(await redis.hget(`${prefix}${key}`, 'until') ?? 0) - now)
    },
    async forgive (key) { await redis.eval(FORGIVE, 1, `${prefix}${key}`) },
    async reset (key) { await redis.del(`${prefix}${key}`) },
    async close () { await redis.quit() }
  }
}
