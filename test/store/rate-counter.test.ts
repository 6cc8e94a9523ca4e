// The failed-attempt counters of the RateCounter port (core/ports/store.ts; login-throttle.ts uses them) against both
// adapters: in process always, Redis when TEST_REDIS_URL is set. Time is passed in, never waited on.
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import type { RateCounter, ThrottleRule } from '../../core/ports/store.js'
import { createMemoryCounter } from '../../storage/rate/memory-counter.js'
import { createRedisCounter } from '../../storage/rate/redis-counter.js'
import { TEST_REDIS_URL } from '../helpers/env.js'

const rule: ThrottleRule = { after: 3, baseMs: 1000, maxMs: 5000, forgetMs: 60_000 }
const T = 1_700_000_000_000

const adapters: Array<[string, () => Promise<RateCounter>]> = [['memory', async () => createMemoryCounter()]]
if (TEST_REDIS_URL !== undefined) adapters.push(['redis', async () => await createRedisCounter(TEST_REDIS_URL as string, `fleet-test:${randomUUID()}:`)])

describe.each(adapters)('RateCounter attempts (%s)', (_name, open) => {
  const counters: RateCounter[] = []
  afterAll(async () => { for (const c of counters) await c.close() })
  const fresh = async (): Promise<{ c: RateCounter, key: string }> => {
    const c = await open()
    counters.push(c)
    return { c, key: `k-${randomUUID()}` }
  }

  it('lets `after` attempts through, then makes the next wait; the wait doubles up to maxMs', async () => {
    const { c, key } = await fresh()
    expect([await c.attempt(key, T, rule), await c.attempt(key, T, rule), await c.attempt(key, T, rule)]).toEqual([0, 0, 0])
    expect(await c.attempt(key, T + 400, rule)).toBe(600) // the third started a 1 s wait
    expect(await c.attempt(key, T + 1000, rule)).toBe(0) // the fourth: 2 s
    expect(await c.attempt(key, T + 2999, rule)).toBe(1)
    expect(await c.attempt(key, T + 3000, rule)).toBe(0) // the fifth: 4 s
    expect(await c.attempt(key, T + 7000, rule)).toBe(0) // the sixth: 8 s, held to 5 s
    expect(await c.attempt(key, T + 7000, rule)).toBe(5000)
  })

  it('forgive takes one attempt back and ends the wait; reset forgets everything', async () => {
    const { c, key } = await fresh()
    for (let i = 0; i < 3; i++) await c.attempt(key, T, rule)
    await c.forgive(key)
    expect(await c.attempt(key, T, rule)).toBe(0) // back to two failures: this is the third again
    expect(await c.attempt(key, T, rule)).toBe(1000)
    await c.reset(key)
    expect([await c.attempt(key, T, rule), await c.attempt(key, T, rule)]).toEqual([0, 0])
    await c.forgive('never-seen') // nothing to take back: no error
  })

  it('waiting tells the wait left without counting an attempt', async () => {
    const { c, key } = await fresh()
    expect(await c.waiting(key, T)).toBe(0)
    for (let i = 0; i < 2; i++) await c.attempt(key, T, rule)
    for (let i = 0; i < 5; i++) expect(await c.waiting(key, T)).toBe(0)
    await c.attempt(key, T, rule) // the third failure starts the wait
    expect(await c.waiting(key, T + 400)).toBe(600)
    expect(await c.waiting(key, T + 1000)).toBe(0)
    expect(await c.attempt(key, T + 1000, rule)).toBe(0) // waiting counted nothing: this is the fourth
    expect(await c.waiting(key, T + 1000)).toBe(2000)
  })

  it('counts concurrent attempts one by one', async () => {
    const { c, key } = await fresh()
    const waits = await Promise.all(Array.from({ length: 10 }, async () => await c.attempt(key, T, rule)))
    expect(waits.filter((w) => w === 0)).toHaveLength(3)
    expect(waits.filter((w) => w === 1000)).toHaveLength(7)
  })
})
