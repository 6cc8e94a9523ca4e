// The query parameters shared by the data endpoints (docs/devices.md ... §Messages, §Limits):
// id lists with their maxima, time ranges with their defaults, result sizes.
import { FleetError, type ErrorCode } from '../../errors.js'
import { list, toMillis } from '../../domain/lists.js'
import { minusMonths } from '../../domain/aggregation.js'

/** docs/api.md#limits: result size default 100, maximum 500 (larger is clamped, as for every list). */
export const DEFAULT_SIZE = 100
export const MAX_SIZE = 500
/** docs/api.md#limits: at most 10 data ids on raw, aggregated and fleet. */
export const MAX_DATA_IDS = 10
/** docs/api.md#limits: the default time range of raw data, usage records and messages is the last 3 months. */
export const DEFAULT_RANGE_MONTHS = 3

export function size (v: number | undefined): number {
  return Math.min(MAX_SIZE, Math.max(0, Math.trunc(v ?? DEFAULT_SIZE)))
}

/**
 * A required id list: distinct, in the order given.
 * @throws FleetError `missing` when absent or empty, `tooMany` above `max`
 */
export function idList (v: string | string[] | undefined, max: number, codes: { missing: ErrorCode, tooMany: ErrorCode }, param: string): string[] {
  const ids = [...new Set(list(v) ?? [])]
  if (ids.length === 0) throw new FleetError(codes.missing, [param])
  if (ids.length > max) throw new FleetError(codes.tooMany, [String(max)])
  return ids
}

/** A timestamp parameter in ms (seconds and microseconds tolerated, docs/api.md#using-the-api). */
export function timestamp (v: number | undefined): number | undefined {
  return v === undefined ? undefined : toMillis(v)
}

interface RangeParams { from?: number | undefined, to?: number | undefined }

/**
 * [from, to): `to` defaults to now, `from` to now minus 3 months, or null when `fromDefault` is null.
 * @throws FleetError `invalid` when from is greater than to (an equal pair is an empty range)
 */
export function range (q: RangeParams, now: number, invalid: ErrorCode, fromDefault: number): { from: number, to: number }
export function range (q: RangeParams, now: number, invalid: ErrorCode, fromDefault: null): { from: number | null, to: number }
export function range (q: RangeParams, now: number, invalid: ErrorCode, fromDefault: number | null): { from: number | null, to: number } {
  const to = timestamp(q.to) ?? now
  const from = timestamp(q.from) ?? fromDefault
  if (from !== null && from > to) throw new FleetError(invalid, [String(from), String(to), 'from must not be later than to'])
  return { from, to }
}

export const threeMonthsBefore = (now: number): number => minusMonths(now, DEFAULT_RANGE_MONTHS)
