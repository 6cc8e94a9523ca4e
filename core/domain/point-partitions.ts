// Which monthly partitions of the points exist, and which expire (docs/store.md#points-partitions-and-retention;
// storage/migrations/0020_points_partitions.sql). Pure rules; core/services/data/point-partitions.service.ts
// applies them.
//
// - Ahead: the month before the current one up to two months after it always have a partition, so that the points
//   of now (and of clocks a little off) never go to the default partition.
// - On demand: every month the default partition holds points of gets a partition of its own (its points move
//   there), from January 1970 up to twelve months after the current one. Points outside that window (a clock set
//   before 1970, or years ahead such as 2100) stay in the default partition: a device with a wild clock must not
//   create a table per month it invents.
// - Retention (DATA_RETENTION_DAYS, 0: keep everything): whole months expire. A month whose end is at or before
//   now − retention is dropped; the month holding now − retention is kept whole, so no point younger than the
//   retention is ever removed. The default partition's points older than that month are deleted, and so are the
//   device messages (their timestamp is their latest point's, so their points are gone too).
import { addMonths, monthOf, monthsBetween, type Month } from './months.js'

const DAY_MS = 86_400_000
/** The first month a partition is made for on demand: older points stay in the default partition. */
export const EARLIEST_MONTH = monthOf(0)
/** Months after the current one given a partition when the default partition holds points of them. */
export const ON_DEMAND_AHEAD = 12

/** The first ms that is kept: the start of the month holding now − retention; undefined when everything is kept. */
export function retentionHorizon (now: number, retentionDays: number): number | undefined {
  if (retentionDays <= 0) return undefined
  return monthOf(now - retentionDays * DAY_MS).start
}

/** The months that always have a partition: the previous one to two ahead, less those past the horizon. */
export function monthsAhead (now: number, horizon: number | undefined): Month[] {
  const current = monthOf(now)
  return monthsBetween(addMonths(current, -1), addMonths(current, 2)).filter((m) => horizon === undefined || m.end > horizon)
}

/** The range [from, to) whose months the default partition's points move out of into partitions of their own. */
export function onDemandRange (now: number, horizon: number | undefined): { from: number, to: number } {
  return { from: Math.max(EARLIEST_MONTH.start, horizon ?? EARLIEST_MONTH.start), to: addMonths(monthOf(now), ON_DEMAND_AHEAD + 1).start }
}

/** The partitions past the horizon, oldest first. */
export function expired (months: readonly Month[], horizon: number | undefined): Month[] {
  if (horizon === undefined) return []
  return months.filter((m) => m.end <= horizon).sort((a, b) => a.start - b.start)
}
