// The one polling helper of the tests. A test that waits for something it cannot await as an event (a row in the
// store, a counter, a child's output) polls it with eventually() instead of sleeping a fixed time: it goes on as soon
// as the condition holds, and fails with a message naming what it waited for (docs/decisions/0015-test-tiers.md).

export interface EventuallyOptions {
  /** How long to wait before failing (default 5 s). */
  timeoutMs?: number
  /** What is waited for, for the failure message. */
  what?: string
  /** Pause between two probes (default 20 ms). */
  intervalMs?: number
  /** Extra state for the failure message (a log, the last answer): called once, on timeout. */
  seen?: () => unknown
  /**
   * A probe that throws is probed again, as one that answers false; at the deadline its last error is the failure.
   * For probes that are assertions (`expect(...)` until it holds), whose own message says best what is missing.
   */
  retryErrors?: boolean
}

type Truthy<T> = Exclude<T, undefined | null | false>

function optionsOf (ms: number | EventuallyOptions, what: string): Required<Omit<EventuallyOptions, 'seen'>> & Pick<EventuallyOptions, 'seen'> {
  const o = typeof ms === 'number' ? { timeoutMs: ms } : ms
  return { timeoutMs: o.timeoutMs ?? 5000, what: o.what ?? what, intervalMs: o.intervalMs ?? 20, seen: o.seen, retryErrors: o.retryErrors ?? false }
}

const NOTHING = Symbol('nothing')

/**
 * Probes until `probe` answers something other than undefined, null or false, and returns that answer; fails after
 * the timeout. A probe that throws fails the wait at once (a broken probe is not a condition still to come true),
 * unless `retryErrors`. The probe runs at least once even with a timeout of 0, and once more after the deadline, so
 * a slow machine that overruns the deadline during a pause still sees the condition if it holds by then.
 */
export async function eventually<T> (probe: () => T | Promise<T>, ms: number | EventuallyOptions = 5000, what = 'condition'): Promise<Truthy<T>> {
  const o = optionsOf(ms, what)
  const deadline = Date.now() + o.timeoutMs
  let error: unknown = NOTHING
  for (;;) {
    try {
      const v = await probe()
      if (v !== undefined && v !== null && v !== false) return v as Truthy<T>
      error = NOTHING // the last answer, not an earlier error, is what failed
    } catch (err) {
      if (!o.retryErrors) throw err
      error = err
    }
    if (Date.now() > deadline) {
      if (error !== NOTHING) throw error
      const seen = o.seen === undefined ? '' : `: ${String(o.seen())}`
      throw new Error(`timed out after ${o.timeoutMs} ms waiting for ${o.what}${seen}`)
    }
    await new Promise((resolve) => setTimeout(resolve, o.intervalMs))
  }
}
