import { FleetError } from '../errors.js'
import { toMillis } from '../domain/lists.js'

// docs/operations.md#bulk-operations and docs/api.md#limits.
export const MAX_SCHEDULE_AHEAD_MS = 90 * 86_400_000
export const DEFAULT_TIMEOUT_MS = 7 * 86_400_000

export interface Schedule { scheduledTime: number | null, timeoutDate: number }

/**
 * scheduledTime less than 90 days ahead; timeout not earlier than scheduledTime, 7 days after the start by default.
 * @throws operation.invalid.schedule.date, operation.invalid.timeout.date (set T)
 */
export function schedule (scheduledTime: number | null | undefined, timeout: number | null | undefined, now: number): Schedule {
  const at = scheduledTime == null ? null : toMillis(scheduledTime)
  if (at !== null && at - now >= MAX_SCHEDULE_AHEAD_MS) {
    const limit = now + MAX_SCHEDULE_AHEAD_MS
    throw new FleetError('operation.invalid.schedule.date', [String(at), `scheduledTime must be less than 90 days ahead: before ${limit} (${new Date(limit).toISOString()})`])
  }
  const startAt = at !== null && at > now ? at : now
  const until = timeout == null ? null : toMillis(timeout)
  if (until !== null && at !== null && until < at) throw new FleetError('operation.invalid.timeout.date', [String(until), `timeout must not be earlier than scheduledTime ${at}`])
  return { scheduledTime: at, timeoutDate: until ?? startAt + DEFAULT_TIMEOUT_MS }
}
