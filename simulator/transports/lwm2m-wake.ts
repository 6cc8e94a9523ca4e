// Queue mode's awake window (OMA-TS-LightweightM2M-Core 1.1 §6.5): after each registration, update or request the
// device stays reachable for a while, then sleeps (the link drops what reaches it) until its next update.

export interface WakeWindow {
  /** Awake for the window from now (restarted by each exchange); `onWake` when it was asleep. */
  touch (): void
  /** Stops the timer (the link is gone). */
  clear (): void
}

export function wakeWindow (windowMs: number, link: () => { awake: boolean } | undefined, events: { onWake: () => void, onSleep: () => void }): WakeWindow {
  let timer: NodeJS.Timeout | undefined
  return {
    touch () {
      const l = link()
      if (l === undefined) return
      const wasAsleep = !l.awake
      l.awake = true
      clearTimeout(timer)
      timer = setTimeout(() => {
        const now = link()
        if (now !== undefined) { now.awake = false; events.onSleep() }
      }, windowMs).unref()
      if (wasAsleep) events.onWake()
    },
    clear () { clearTimeout(timer) }
  }
}
