import { Redis } from 'ioredis'

/**
 * A connected ioredis client. A Redis that does not answer at start fails the start with its own error
 * (ECONNREFUSED...), which the command line turns into one line naming REDIS_URL (bin/start-failure.ts), instead of
 * "Connection is closed" and an unhandled error event; and no reconnection keeps the process alive.
 */
export async function connectRedis (url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 })
  let failure: unknown
  const onError = (err: unknown): void => { failure ??= err }
  redis.on('error', onError)
  try {
    await redis.connect()
  } catch (err) {
    redis.disconnect()
    throw failure ?? err
  } finally {
    redis.off('error', onError)
  }
  return redis
}
