// A bound on what runs at once: `run(fn)` waits for a free slot, runs fn and gives the slot back, in the order the
// callers came. The fleet's downloads share one (download.ts), so that thousands of devices told to install at the
// same moment open a bounded number of sockets and the others wait their turn, as a real fleet's would on its network.

/** Downloads in flight at once in a process, unless the fleet says otherwise (`--download-concurrency`). */
export const DEFAULT_DOWNLOADS = 32

export interface Limiter {
  run<T> (fn: () => Promise<T>): Promise<T>
  /** Running now. */
  readonly active: number
  /** Waiting for a slot. */
  readonly waiting: number
}

export function createLimiter (max: number): Limiter {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`a limiter needs at least one slot, got ${max}`)
  let active = 0
  const queue: Array<() => void> = []
  const release = (): void => {
    const next = queue.shift()
    if (next === undefined) active--
    else next() // the slot passes on as is
  }
  return {
    async run (fn) {
      if (active < max) active++
      else await new Promise<void>((resolve) => { queue.push(resolve) })
      try { return await fn() } finally { release() }
    },
    get active () { return active },
    get waiting () { return queue.length }
  }
}
