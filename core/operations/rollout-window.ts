// The maintenance window of a safe rollout (docs/operations.md#safe-rollouts): tasks leave only between `start`
// and `end` ("HH:MM", wall-clock time in `timeZone`, an IANA name). An `end` before `start` crosses midnight
// (22:00 to 05:00). The time zone's rules come from the runtime's Intl, so daylight saving time is followed without
// a table of our own. Pure: the caller passes the instant.

export interface MaintenanceWindow { start: string, end: string, timeZone: string }

const MINUTE = 60_000
const DAY_MINUTES = 1440

/** "HH:MM" (00:00 to 23:59), the only form accepted (./rollout-validate.ts). */
export const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/

export function minutesOf (hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))
}

const formats = new Map<string, Intl.DateTimeFormat>()

/** The formatter of a time zone; throws RangeError for a name Intl does not know. */
export function zoneFormat (timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    formats.set(timeZone, f)
  }
  return f
}

/** The wall-clock time at `at` in the zone: minutes since midnight, and the milliseconds past that minute. */
export function wallClock (at: number, timeZone: string): { minutes: number, intoMinuteMs: number } {
  const parts = zoneFormat(timeZone).formatToParts(new Date(at))
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0)
  const seconds = part('second')
  return { minutes: (part('hour') % 24) * 60 + part('minute'), intoMinuteMs: seconds * 1000 + (((at % 1000) + 1000) % 1000) }
}

/** Whether tasks may leave at `at`: start inclusive, end exclusive. */
export function insideWindow (w: MaintenanceWindow, at: number): boolean {
  const m = wallClock(at, w.timeZone).minutes
  const s = minutesOf(w.start)
  const e = minutesOf(w.end)
  return s < e ? m >= s && m < e : m >= s || m < e
}

/**
 * When the window next opens: `at` itself when inside it. The local time `start` is reached after the wall-clock
 * gap, corrected once when a daylight-saving change falls between (the zone's offset moved); a `start` that a
 * change skips (02:30 on a spring-forward night) opens at the first minute after it that is inside.
 */
export function nextOpening (w: MaintenanceWindow, at: number): number {
  if (insideWindow(w, at)) return at
  const start = minutesOf(w.start)
  const now = wallClock(at, w.timeZone)
  let guess = at - now.intoMinuteMs + ((start - now.minutes + DAY_MINUTES) % DAY_MINUTES) * MINUTE
  const off = ((start - wallClock(guess, w.timeZone).minutes + DAY_MINUTES + DAY_MINUTES / 2) % DAY_MINUTES) - DAY_MINUTES / 2
  guess += off * MINUTE
  if (guess > at && insideWindow(w, guess)) return guess
  // The rare case (a skipped start): minute by minute from the next minute, two days at most.
  let t = at - now.intoMinuteMs + MINUTE
  for (let i = 0; i < 2 * DAY_MINUTES && !insideWindow(w, t); i++) t += MINUTE
  return t
}
