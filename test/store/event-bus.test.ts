// The EventBus port (core/ports/events.ts) against each adapter: in process, and Redis pub/sub between two buses
// (two processes of a cluster). The Redis runs need TEST_REDIS_URL; without it they are left out locally, but with
// CI=true they run and fail (a CI run never passes by leaving the servers out: docs/testing.md).
import { describe, expect, it, onTestFinished } from 'vitest'
import type { EventBus, FleetEvent } from '../../core/ports/events.js'
import { createLocalEventBus } from '../../storage/events/local-bus.js'
import { createRedisEventBus } from '../../storage/events/redis-bus.js'
import { TEST_REDIS_URL } from '../helpers/env.js'
import { eventually } from '../helpers/eventually.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URLs).
const CI = process.env.CI === 'true'

const event = (n: number): FleetEvent => ({ kind: 'commStatus', company: 'c1', system: `s${n}`, status: 'OK', lastCommDate: n })

/** Two buses of one service: `publisher` and `subscriber` may be the same (in process) or two processes' (Redis). */
interface Pair { publisher: EventBus, subscriber: EventBus }

function describeBus (name: string, open: () => Promise<Pair>): void {
  describe(name, () => {
    async function pair (): Promise<Pair> {
      const p = await open()
      onTestFinished(async () => { await p.publisher.close(); await p.subscriber.close() })
      return p
    }

    it('delivers what is published after subscribe resolves, in order, to every listener', async () => {
      const { publisher, subscriber } = await pair()
      const a: FleetEvent[] = []
      const b: FleetEvent[] = []
      await subscriber.subscribe((e) => { a.push(e) })
      await subscriber.subscribe((e) => { b.push(e) })
      publisher.publish([event(1), event(2)])
      publisher.publish([event(3)])
      await eventually(() => a.length === 3 && b.length === 3, 5000, 'three events at each listener')
      expect(a).toEqual([event(1), event(2), event(3)])
      expect(b).toEqual(a)
    })

    it('stops delivering to a listener once removed; a throwing listener does not stop the others', async () => {
      const { publisher, subscriber } = await pair()
      const kept: FleetEvent[] = []
      const gone: FleetEvent[] = []
      await subscriber.subscribe(() => { throw new Error('listener fault') })
      const off = await subscriber.subscribe((e) => { gone.push(e) })
      await subscriber.subscribe((e) => { kept.push(e) })
      off()
      publisher.publish([event(1)])
      await eventually(() => kept.length === 1, 5000, 'the event at the listener kept')
      expect(gone).toEqual([])
    })

    it('listening() says whether a subscriber exists', async () => {
      const { publisher, subscriber } = await pair()
      await eventually(() => !publisher.listening(), 5000, 'no subscriber yet')
      const off = await subscriber.subscribe(() => {})
      await eventually(() => publisher.listening(), 5000, 'the subscriber to be seen')
      off()
      await eventually(() => !publisher.listening(), 5000, 'the subscriber gone')
    })
  })
}

describeBus('in process', async () => {
  const bus = createLocalEventBus()
  return { publisher: bus, subscriber: bus }
})

if (TEST_REDIS_URL !== undefined || CI) {
  describeBus('Redis pub/sub, two processes', async () => {
    if (TEST_REDIS_URL === undefined) throw new Error('TEST_REDIS_URL is not set: the Redis event bus cannot be tested')
    const channel = `fleet-test:bus:${Math.random().toString(36).slice(2)}`
    const opts = { channel, presenceMs: 100 }
    return { publisher: await createRedisEventBus(TEST_REDIS_URL, opts), subscriber: await createRedisEventBus(TEST_REDIS_URL, opts) }
  })
}
