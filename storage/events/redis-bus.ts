import { connectRedis } from '../redis-connect.js'
import type { EventBus, EventListener, FleetEvent } from '../../core/ports/events.js'
import { deliverLater, type ListenerFailure } from './local-bus.js'

export interface RedisBusOptions {
  /** The pub/sub channel every process of one service shares (default `fleet:events`). */
  channel?: string
  /** How often a process with open streams says so to the others (default 5 s); they believe it for three times that. */
  presenceMs?: number
  onFailure?: ListenerFailure
}

/**
 * Events on Redis pub/sub (docs/architecture.md: scaled out with REDIS_URL): every process publishes to one channel and
 * those with open streams subscribe to it, so a change committed anywhere reaches every stream, in the order each
 * publisher sent it. A process subscribes to the events only while it has listeners; it then announces itself on
 * `<channel>:presence` at once and every `presenceMs`, which is how publishers know (`listening()`) that building
 * events is worth it. A process that just started assumes listeners for three periods, until it has heard.
 */
export async function createRedisEventBus<E = FleetEvent> (url: string, opts: RedisBusOptions = {}): Promise<EventBus<E>> {
  const channel = opts.channel ?? 'fleet:events'
  const presenceChannel = `${channel}:presence`
  const presenceMs = opts.presenceMs ?? 5000
  const onFailure = opts.onFailure ?? (() => {})
  const pub = await connectRedis(url)
  const sub = await connectRedis(url).catch(async (err: unknown) => { pub.disconnect(); throw err })
  // Later faults (a restart of Redis) are reconnected by ioredis, which subscribes again by itself.
  pub.on('error', onFailure)
  sub.on('error', onFailure)
  const listeners = new Set<EventListener<E>>()
  let remoteUntil = Date.now() + 3 * presenceMs
  let announcing: NodeJS.Timeout | undefined
  let subscribed: Promise<unknown> | undefined

  sub.on('message', (from: string, text: string) => {
    if (from === presenceChannel) { remoteUntil = Date.now() + 3 * presenceMs; return }
    if (from !== channel) return
    let events: E[]
    try { events = JSON.parse(text) as E[] } catch (err) { onFailure(err); return }
    deliverLater(listeners, events, onFailure)
  })
  await sub.subscribe(presenceChannel)

  const announce = async (): Promise<void> => { await pub.publish(presenceChannel, '1') }

  async function start (): Promise<void> {
    subscribed ??= sub.subscribe(channel)
    await subscribed
    await announce()
    announcing ??= setInterval(() => { announce().catch(onFailure) }, presenceMs)
    announcing.unref()
  }

  function stop (): void {
    clearInterval(announcing)
    announcing = undefined
    subscribed = undefined
    sub.unsubscribe(channel).catch(onFailure)
  }

  return {
    publish (events) {
      if (events.length === 0) return
      pub.publish(channel, JSON.stringify(events)).catch(onFailure)
    },
    async subscribe (listener) {
      const own: EventListener<E> = (e) => { listener(e) }
      listeners.add(own)
      try {
        await start()
      } catch (err) {
        listeners.delete(own)
        throw err
      }
      return () => {
        if (!listeners.delete(own)) return
        if (listeners.size === 0) stop()
      }
    },
    listening: () => listeners.size > 0 || Date.now() < remoteUntil,
    async close () {
      clearInterval(announcing)
      listeners.clear()
      await Promise.allSettled([sub.quit(), pub.quit()])
    }
  }
}
