// A system's communication status (commStatus), the rule in one place (docs/devices.md): UNDEFINED until the system
// first communicates, OK on any traffic, WARNING once it misses its expected period, ERROR after two; a heartbeat
// SLA gives its own two delays. A failed MSCI poll or a dead Sparkplug node is a missed communication at once.
// The stores keep the status this rule decides and read the delays from here (the sweep's parameters).
import type { CommStatus } from './system.js'

/** The status of a system that has never communicated. */
export const NEVER_COMMUNICATED: CommStatus = 'UNDEFINED'

/** The status device traffic (a message, an ack, a task poll) gives its system. */
export const ON_TRAFFIC: CommStatus = 'OK'

/** Expected periods missed before WARNING, and before ERROR, when no heartbeat SLA says otherwise. */
export const WARNING_AFTER_PERIODS = 1
export const ERROR_AFTER_PERIODS = 2

/** How long after its last communication a system turns WARNING, then ERROR (ms). */
export interface CommDelays { warningMs: number, errorMs: number }

/** A heartbeat's SLA (fleet-api's System heartbeat `sla`): its own WARNING and ERROR delays, either may be absent. */
export interface CommSla { warningMs?: number | null | undefined, errorMs?: number | null | undefined }

/**
 * The delays of a system whose expected period is `periodMs` (its heartbeat period when its heartbeat is ON, else
 * COMM_PERIOD_S). ERROR never comes before WARNING: an SLA whose error delay is the shorter turns ERROR at its warning.
 */
export function commDelays (periodMs: number, sla: CommSla = {}): CommDelays {
  const warningMs = sla.warningMs ?? periodMs * WARNING_AFTER_PERIODS
  const errorMs = sla.errorMs ?? periodMs * ERROR_AFTER_PERIODS
  return { warningMs, errorMs: Math.max(errorMs, warningMs) }
}

/** The status at `now` of a system last heard from at `lastCommDate`: a delay reached exactly is not yet missed. */
export function commStatusAt (lastCommDate: number | null, now: number, delays: CommDelays): CommStatus {
  if (lastCommDate === null) return NEVER_COMMUNICATED
  const silent = now - lastCommDate
  if (silent > delays.errorMs) return 'ERROR'
  if (silent > delays.warningMs) return 'WARNING'
  return ON_TRAFFIC
}
