// A system's communication status (commStatus), the rule in one place (docs/devices.md): UNDEFINED until the system
// first communicates, OK on any traffic, WARNING once it misses its expected period, ERROR after two; a heartbeat
// SLA gives its own two delays. A failed MSCI poll or a dead Sparkplug node is a missed communication at once.
// The stores keep the status this rule decides: the sweep reads candidates and writes what sweptCommStatus answers,
// failures write what failedPollsStatus, ON_DEAD_NODE and onFailure answer
// (docs/decisions/0017-comm-status-rule-in-the-domain.md).
import type { CommStatus } from './system.js'

/** The status of a system that has never communicated. */
export const NEVER_COMMUNICATED: CommStatus = 'UNDEFINED'

/** The status device traffic (a message, an ack, a task poll) gives its system. */
export const ON_TRAFFIC: CommStatus = 'OK'

/** Expected periods missed before WARNING, and before ERROR, when no heartbeat SLA says otherwise. */
export const WARNING_AFTER_PERIODS = 1
export const ERROR_AFTER_PERIODS = 2

/**
 * The status of a silent system by how many of its two delays (WARNING's, then ERROR's) its silence has passed:
 * index 0, 1 or 2. The sweep's store finds its candidates with it: a row whose count differs from its stored status's.
 */
export const BY_DELAYS_PASSED: readonly CommStatus[] = [ON_TRAFFIC, 'WARNING', 'ERROR']

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

/** How many of its delays a system silent since `lastCommDate` has passed at `now`: one reached exactly is not. */
export function delaysPassed (lastCommDate: number, now: number, delays: CommDelays): number {
  const silent = now - lastCommDate
  return (silent > delays.warningMs ? 1 : 0) + (silent > delays.errorMs ? 1 : 0)
}

/** The status at `now` of a system last heard from at `lastCommDate`: a delay reached exactly is not yet missed. */
export function commStatusAt (lastCommDate: number | null, now: number, delays: CommDelays): CommStatus {
  if (lastCommDate === null) return NEVER_COMMUNICATED
  return BY_DELAYS_PASSED[delaysPassed(lastCommDate, now, delays)] ?? 'ERROR'
}

// How bad each status is, to keep the worse of two: never communicating says nothing bad yet.
const SEVERITY: Readonly<Record<string, number>> = { UNDEFINED: 0, OK: 1, WARNING: 2, ERROR: 3 }
const severity = (s: string): number => SEVERITY[s] ?? 0

/** A system's stored state, as the sweep reads it. */
export interface StoredCommState {
  /** Its commStatus as stored (a status the service does not know counts as never communicated). */
  status: string
  lastCommDate: number | null
  /** data.lastCommFailureDate: its last failed poll or dead node, null when none. */
  lastFailureDate: number | null
}

/**
 * The status the periodic sweep gives a system at `now`: its silence decides (commStatusAt), except that a failure
 * newer than its last communication holds the status it set: silence never lowers it, only traffic does (the MSCI
 * module's store guards the same, ingest/msci/migrations/0022_msci_polls.sql).
 */
export function sweptCommStatus (state: StoredCommState, now: number, delays: CommDelays): CommStatus {
  const bySilence = commStatusAt(state.lastCommDate, now, delays)
  const held = state.lastFailureDate !== null && state.lastFailureDate > (state.lastCommDate ?? 0)
  if (held && severity(state.status) > severity(bySilence)) return state.status as CommStatus
  return bySilence
}

/** The status `failures` MSCI polls failed in a row give (the first is a missed communication at once). */
export function failedPollsStatus (failures: number, errorAfter: number): CommStatus {
  return failures >= errorAfter ? 'ERROR' : 'WARNING'
}

/** The status a dead Sparkplug edge node gives its system (an NDEATH, docs/protocols/sparkplug.md). */
export const ON_DEAD_NODE: CommStatus = 'ERROR'

/** A system's status after a failure deciding `failed`: the worse of the two, a failure never lowers ERROR. */
export function onFailure (current: string, failed: CommStatus): CommStatus {
  return severity(current) > severity(failed) ? current as CommStatus : failed
}
