// A system's heartbeat (docs/api.md#systems: {state, period, sla: {warning, error}}), as the commStatus rule reads
// it (core/domain/comm-status.ts): while its state is ON, its period replaces COMM_PERIOD_S and its SLA gives the
// WARNING and ERROR delays. The store answers each as text (a JSON number's text included), null when absent.
import { commDelays, type CommDelays } from './comm-status.js'

/** The texts of a heartbeat that decide a system's delays. */
export interface HeartbeatTexts { state: string | null, period: string | null, slaWarning: string | null, slaError: string | null }

const DURATION = /^([0-9]{1,12}) ?(ms|s|min|m|h|d)?$/
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, min: 60_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * A duration given as text, in ms: "120" (seconds), or a number with a unit: "500ms", "90s", "5m", "5min", "1h",
 * "2d" (heartbeat periods are strings such as "1h"); case and surrounding spaces do not matter. Null when absent,
 * unreadable or zero; at most Number.MAX_SAFE_INTEGER.
 */
export function durationTextMs (text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null
  const m = DURATION.exec(text.replace(/^ +| +$/g, '').toLowerCase())
  if (m === null) return null
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 1000)
  // Twelve digits of days pass what the store's int8 holds: such a delay is never reached, and is kept exact below.
  return ms === 0 ? null : Math.min(ms, Number.MAX_SAFE_INTEGER)
}

/** The commStatus delays of a system with this heartbeat; `defaultPeriodMs` (COMM_PERIOD_S) when not ON or unreadable. */
export function heartbeatDelays (hb: HeartbeatTexts, defaultPeriodMs: number): CommDelays {
  if (hb.state?.toUpperCase() !== 'ON') return commDelays(defaultPeriodMs)
  return commDelays(durationTextMs(hb.period) ?? defaultPeriodMs, { warningMs: durationTextMs(hb.slaWarning), errorMs: durationTextMs(hb.slaError) })
}
