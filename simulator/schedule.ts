// When a fleet's devices send and poll (fleet.ts): each device on its own schedule, spread over the first interval,
// every wait ending with the run (its duration or stop()), and registrations a few at a time.
import { setTimeout as sleep } from 'node:timers/promises'
import type { SimulatedDevice } from './devices/simulated-device.js'

export interface RunWindow {
  /** Aborted by stop(). */
  signal: AbortSignal
  /** When publishing ends (ms; Infinity: at stop()). */
  until: number
  /** Counts an error of a device (the fleet's stats). */
  fail: (err: unknown) => void
}

/** Waits ms, or less when the run stops meanwhile. */
export async function pause (ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => {})
}

// A device that sends or polls rarely does not hold the end of the run back: its wait ends with the run.
async function pauseUntil (ms: number, w: RunWindow): Promise<void> { await pause(Math.min(ms, w.until - Date.now()), w.signal) }

/** Publishes `rate` messages a second (0: the next as soon as the previous one is acknowledged) until the run ends. */
export async function drive (device: SimulatedDevice, rate: number, w: RunWindow): Promise<void> {
  const interval = rate > 0 ? 1000 / rate : 0
  let nextAt = Date.now() + Math.random() * interval // spread the fleet over the first interval
  await pauseUntil(nextAt - Date.now(), w)
  while (!w.signal.aborted && Date.now() < w.until) {
    try {
      await device.publish()
    } catch (err) {
      w.fail(err)
      await pause(1000, w.signal) // the service is away or refusing: do not spin
    }
    if (interval === 0) continue
    nextAt = Math.max(nextAt + interval, Date.now() - interval) // behind schedule: catch up by one interval at most
    await pauseUntil(nextAt - Date.now(), w)
  }
}

/**
 * REST devices ask for their tasks every pollMs, on their own schedule (a wake polls in between); M3DA devices
 * connect as often, since the service can only answer them (M3DA devices initiate every exchange).
 */
export async function pollTasks (device: SimulatedDevice, pollMs: number, w: RunWindow): Promise<void> {
  await pauseUntil(Math.random() * pollMs, w)
  while (!w.signal.aborted && Date.now() < w.until) {
    try { await device.poll() } catch (err) { w.fail(err) }
    await pauseUntil(pollMs, w)
  }
}

/** Runs fn on every item, `limit` at a time; after a failure no new item starts, and once the running ones have
 * settled the first error is thrown (so nothing is left half-started behind the caller's back). */
export async function inParallel<T> (items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  let failure: { err: unknown } | undefined
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === undefined) {
      const i = next++
      try { await fn(items[i] as T) } catch (err) { failure ??= { err } }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  if (failure !== undefined) throw failure.err
}
