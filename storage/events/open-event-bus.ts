// Picks the event bus (docs/architecture.md#one-process-by-default-scaled-out-by-environment): Redis pub/sub when
// REDIS_URL is set, as the queue and the rate counters do, otherwise the events of this process only.
import type { EventBus, FleetEvent } from '../../core/ports/events.js'
import { createLocalEventBus, type ListenerFailure } from './local-bus.js'
import { createRedisEventBus } from './redis-bus.js'

export async function openEventBus<E = FleetEvent> (opts: { redisUrl?: string | undefined, channel?: string, onFailure?: ListenerFailure }): Promise<EventBus<E>> {
  if (opts.redisUrl === undefined) return createLocalEventBus<E>(opts.onFailure)
  return await createRedisEventBus<E>(opts.redisUrl, { channel: opts.channel, onFailure: opts.onFailure })
}
