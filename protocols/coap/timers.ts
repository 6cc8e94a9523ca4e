// The clock and timers the endpoint uses: injectable, so tests run retransmissions without waiting (vitest fake
// timers replace the globals these read at call time).

export type TimerHandle = unknown

export interface Timers {
  now: () => number
  setTimeout: (fn: () => void, ms: number) => TimerHandle
  clearTimeout: (handle: TimerHandle) => void
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => { clearTimeout(handle as ReturnType<typeof setTimeout>) }
}
