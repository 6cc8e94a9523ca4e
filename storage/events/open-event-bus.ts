// Picks the event bus (docs/architecture.md#one-process-by-default-scaled-out-by-environment): Redis pub/sub when
// REDIS_URL is set, as the queue and the rate counters do, otherwise the events of this process only.
import type { EventBus } from '../../core/ports/events.js'
import { createLocalEventBus, type ListenerFailure } from './local-bus.js'
import { createRedisEventBus } from './redis-bus.js'

export async function openEventBus (opts: { redisUrl?: string | undefined, channel?: string, onFailure?: ListenerFailure }): Promise<EventBus> {
  if (opts.redisUrl === undefined) return createLocalEventBus(opts.onFailure)
  return await createRedisEventBus(opts.redisUrl, { channel: opts.channel, onFailure: opts.onFailure })
}
