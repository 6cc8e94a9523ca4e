// Admission control of API requests (api/plugins/admission.ts): a limited number served at once, the others in line
// for a bounded wait, the newest first, and a limit that follows the service time. The clock and the line's timers
// are the test's: nothing here depends on the machine's speed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Admission, INITIAL_LIMIT, MIN_LIMIT, type Admitted, type Release } from '../../api/plugins/admission.js'

function placeOf (a: Admitted): Release {
  if ('refused' in a) throw new Error(`refused: ${a.refused}`)
  return a.release
}

/** Whether the promise has settled once pending callbacks ran. */
async function settled (p: Promise<unknown>): Promise<boolean> {
  let done = false
  p.then(() => { done = true }, () => { done = true })
  await vi.advanceTimersByTimeAsync(0)
  return done
}

describe('Admission', () => {
  let clock = 0
  beforeEach(() => { clock = 0; vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }) })
  afterEach(() => { vi.useRealTimers() })

  it('serves up to the limit at once and lets the next one in when a place frees up', async () => {
    const admission = new Admission({ maxInFlight: 2, maxWaitMs: 1000, targetMs: 0 })
    const first = placeOf(await admission.enter())
    placeOf(await admission.enter())
    const third = admission.enter()
    expect(await settled(third)).toBe(false)
    expect(admission.stats()).toEqual({ inFlight: 2, waiting: 1, limit: 2 })
    first()
    first() // a second release of the same place frees nothing more
    placeOf(await third)
    expect(admission.stats()).toEqual({ inFlight: 2, waiting: 0, limit: 2 })
  })

  it('refuses a request that found no place within maxWaitMs, and one at once without a line', async () => {
    const waiting = new Admission({ maxInFlight: 1, maxWaitMs: 250, targetMs: 0 })
    placeOf(await waiting.enter())
    const late = waiting.enter()
    await vi.advanceTimersByTimeAsync(249)
    expect(await settled(late)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await late).toEqual({ refused: 'queue_timeout' })
    expect(waiting.stats().waiting).toBe(0)

    const noLine = new Admission({ maxInFlight: 1, maxWaitMs: 0, targetMs: 0 })
    placeOf(await noLine.enter())
    expect(await noLine.enter()).toEqual({ refused: 'in_flight' })
  })

  it('serves the newest request in line first; the oldest runs out of time', async () => {
    const admission = new Admission({ maxInFlight: 1, maxWaitMs: 250, targetMs: 0 })
    const busy = placeOf(await admission.enter())
    const older = admission.enter()
    await vi.advanceTimersByTimeAsync(100)
    const newer = admission.enter()
    busy()
    placeOf(await newer)
    await vi.advanceTimersByTimeAsync(150)
    expect(await older).toEqual({ refused: 'queue_timeout' })
  })

  it('grows the limit while requests are served within the target, and cuts it by a quarter when one is not', async () => {
    const admission = new Admission({ maxInFlight: 32, maxWaitMs: 1000, targetMs: 300, now: () => clock })
    expect(admission.stats().limit).toBe(INITIAL_LIMIT)
    await grow(admission)
    expect(admission.stats().limit).toBeGreaterThanOrEqual(16)
    expect(admission.stats().limit).toBeLessThanOrEqual(32)

    const before = admission.stats().limit
    const slow = await Promise.all(Array.from({ length: 3 }, async () => placeOf(await admission.enter())))
    clock += 400
    for (const release of slow) release()
    // Three slow requests in the same target window: one cut, not three.
    expect(admission.stats().limit).toBe(Math.floor(before * 0.75))
  })

  /** Rounds in which every place is taken and served fast: each limit's worth of requests served adds a place. */
  async function grow (admission: Admission, rounds = 40): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      const limit = admission.stats().limit
      const places = await Promise.all(Array.from({ length: limit }, async () => placeOf(await admission.enter())))
      clock += 50
      for (const release of places) release()
    }
  }

  /** The limit after growing it for `rounds`, then after `n` turns of `together` requests served at once in `ms`. */
  async function turns (rounds: number, n: number, together: number, ms: number): Promise<{ grown: number, after: number }> {
    const admission = new Admission({ maxInFlight: 32, maxWaitMs: 1000, targetMs: 300, now: () => clock })
    await grow(admission, rounds)
    const grown = admission.stats().limit
    for (let i = 0; i < n; i++) {
      const places = await Promise.all(Array.from({ length: together }, async () => placeOf(await admission.enter())))
      clock += ms
      for (const release of places) release()
    }
    return { grown, after: admission.stats().limit }
  }

  it('does not grow the limit while it holds nobody back', async () => {
    const { grown, after } = await turns(5, 100, 1, 10)
    expect(grown).toBeGreaterThan(2)
    expect(after).toBe(grown)
  })

  it('does not cut the limit for a request slow on its own', async () => {
    const { grown, after } = await turns(5, 10, 1, 1000)
    expect(after).toBe(grown)
  })

  it('force() takes a place at once, past the limit, that the others wait for; its service time cuts nothing', async () => {
    const admission = new Admission({ maxInFlight: 32, maxWaitMs: 250, targetMs: 300, now: () => clock })
    const limit = admission.stats().limit
    const served = await Promise.all(Array.from({ length: limit }, async () => placeOf(await admission.enter())))
    const package_ = admission.force()
    expect(admission.stats()).toEqual({ inFlight: limit + 1, waiting: 0, limit })
    for (const release of served) release()
    // Still counted: with every other place free, there is one fewer for the others.
    const others = await Promise.all(Array.from({ length: limit - 1 }, async () => placeOf(await admission.enter())))
    const waits = admission.enter()
    expect(await settled(waits)).toBe(false)
    // Seconds of reading a package beside the others: the limit stays.
    clock += 5000
    package_()
    placeOf(await waits)
    expect(admission.stats().limit).toBe(limit)
    for (const release of others) release()
  })

  it('never cuts the limit below the floor', async () => {
    const admission = new Admission({ maxInFlight: 32, maxWaitMs: 1000, targetMs: 300, now: () => clock })
    await grow(admission)
    for (let i = 0; i < 30; i++) {
      // Two slow requests side by side (the second waits for the first once the limit is down to one).
      const first = placeOf(await admission.enter())
      const second = admission.enter()
      clock += 1000
      first()
      const release = placeOf(await second)
      clock += 1000
      release()
    }
    expect(admission.stats().limit).toBe(MIN_LIMIT)
  })
})
