// Daily rollups of the usage data ids (docs/store.md#rollups: "Usage data ids get the same treatment";
// storage/migrations/0026_usage_rollups.sql): which part of an aggregation's range they may answer. A usage point's
// date is a record's start or its end processing date (docs/usage.md), and the rollups hold
// what the points of one (system, usage data id, UTC day) contribute to the folding functions of docs/devices.md.

import { DAY_MS, dayOf } from './rollup.js'

export { DAY_MS, dayOf }

/**
 * The whole UTC days of [from, to) as [first, end) that the daily rollups may answer, or undefined when there is
 * none: a day is folded from its rollup only when no bucket edge cuts it, i.e. every bucket starts on a UTC day.
 * Day, month and year buckets always do; hour buckets only when their width is a whole number of days counted from
 * the epoch (24hour, 48hour). The records of the cut parts, [from, first) and [end, to), are read raw.
 */
export function rollupDays (buckets: readonly number[], from: number, to: number): [number, number] | undefined {
  if (buckets.length === 0 || buckets.some((b) => dayOf(b) !== b)) return undefined
  const first = dayOf(from) === from ? from : dayOf(from) + DAY_MS
  const end = dayOf(to)
  return first < end ? [first, end] : undefined
}
