// Hourly and daily rollups of data points (docs/store.md#rollups; storage/migrations/0019_data_rollups.sql,
// 0027_data_rollups_daily.sql): what the points of one (system, data id, UTC hour or day) contribute to the folding
// functions of docs/devices.md. The ingest batch folds its points with hourStats() and dayStats() and the store
// merges each result into its period's row in the same transaction.
import type { DataValue } from './device-message.js'

export const HOUR_MS = 3_600_000

/**
 * Values of this magnitude or more stay out of the numeric sums: their squares could overflow float8, which is an
 * error in PostgreSQL, not Infinity. The hour is marked `wide` and queries over it read the raw points.
 */
export const WIDE = 1e100

/** The start of the UTC hour holding ts (hours are aligned on the epoch; negative timestamps too). */
export const hourOf = (ts: number): number => ts - (((ts % HOUR_MS) + HOUR_MS) % HOUR_MS)

/** The share of one series in one period (an hour, a day), in the columns of data_rollups and data_rollups_daily. */
export interface PeriodStats {
  systemUid: string
  dataId: string
  /** The period's start (ms). */
  start: number
  /** Present values: numbers, booleans, strings (docs/devices.md: cnt). */
  cnt: number
  /** Numeric values (booleans are 1 and 0) below WIDE in magnitude, and their sum, sum of squares, min, max. */
  nNum: number
  sum: number
  ss: number
  min: number | null
  max: number | null
  /** Sum of squared deviations from sum / nNum (two passes: the mean first), merged with Chan's algorithm. */
  m2: number
  /** A numeric value of magnitude WIDE or more (or not finite) was left out. */
  wide: boolean
}

export const DAY_MS = 86_400_000

/** The start of the UTC day holding ts (days are aligned on the epoch; negative timestamps too). */
export const dayOf = (ts: number): number => ts - (((ts % DAY_MS) + DAY_MS) % DAY_MS)

export interface RollupPoint { systemUid: string, dataId: string, ts: number, value: DataValue }

/** The numeric reading of a value, as data_points.num holds it (core/ports/telemetry.ts encodeValue). */
function numOf (v: DataValue): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  return null
}

/**
 * The points folded per (system, data id, period), sorted by that key: the store locks the rows in this order, so
 * two batches merging overlapping periods never wait for each other in a cycle. `periodOf` gives the start of the
 * period holding a timestamp (hourOf, dayOf).
 */
export function periodStats (points: readonly RollupPoint[], periodOf: (ts: number) => number): PeriodStats[] {
  // Grouped by system, then data id, then period: maps of maps rather than one map keyed by a string built per
  // point, which was most of this function's time on a batch of thousands of points (bench ingest profile).
  const bySystem = new Map<string, Map<string, Map<number, Group>>>()
  const groups: Group[] = []
  for (const p of points) {
    const start = periodOf(p.ts)
    let byId = bySystem.get(p.systemUid)
    if (byId === undefined) { byId = new Map(); bySystem.set(p.systemUid, byId) }
    let byStart = byId.get(p.dataId)
    if (byStart === undefined) { byStart = new Map(); byId.set(p.dataId, byStart) }
    let g = byStart.get(start)
    if (g === undefined) {
      g = { systemUid: p.systemUid, dataId: p.dataId, start, cnt: 0, wide: false, nums: [] }
      byStart.set(start, g)
      groups.push(g)
    }
    if (p.value !== null) g.cnt++
    const n = numOf(p.value)
    if (n === null) continue
    if (Math.abs(n) < WIDE) g.nums.push(n)
    else g.wide = true
  }
  const out: PeriodStats[] = []
  for (const g of groups) {
    let sum = 0
    let ss = 0
    let min: number | null = null
    let max: number | null = null
    for (const x of g.nums) {
      sum += x
      ss += x * x
      if (min === null || x < min) min = x
      if (max === null || x > max) max = x
    }
    const mean = g.nums.length === 0 ? 0 : sum / g.nums.length
    let m2 = 0
    for (const x of g.nums) m2 += (x - mean) * (x - mean)
    out.push({ systemUid: g.systemUid, dataId: g.dataId, start: g.start, cnt: g.cnt, nNum: g.nums.length, sum, ss, min, max, m2, wide: g.wide })
  }
  return out.sort(compareKeys)
}

/**
 * Parts of periods merged per (system, data id, period of `periodOf`), sorted by that key: increments of one hour
 * into one, or hours into their day. Chan et al.'s pairwise update of m2, as the store's upsert merges a part into
 * its row: with the means a and b of the two, m2 + m2' + (b − a)² · n·n' / (n + n').
 */
export function mergePeriodStats (parts: readonly PeriodStats[], periodOf: (ts: number) => number): PeriodStats[] {
  const byKey = new Map<string, Map<string, Map<number, PeriodStats>>>()
  const out: PeriodStats[] = []
  for (const p of parts) {
    const start = periodOf(p.start)
    let byId = byKey.get(p.systemUid)
    if (byId === undefined) { byId = new Map(); byKey.set(p.systemUid, byId) }
    let byStart = byId.get(p.dataId)
    if (byStart === undefined) { byStart = new Map(); byId.set(p.dataId, byStart) }
    const seen = byStart.get(start)
    if (seen === undefined) {
      const first = { ...p, start }
      byStart.set(start, first)
      out.push(first)
      continue
    }
    const n = seen.nNum + p.nNum
    const m2 = seen.nNum === 0 || p.nNum === 0
      ? seen.m2 + p.m2
      : seen.m2 + p.m2 + (p.sum / p.nNum - seen.sum / seen.nNum) ** 2 * seen.nNum * p.nNum / n
    seen.cnt += p.cnt
    seen.nNum = n
    seen.sum += p.sum
    seen.ss += p.ss
    seen.min = seen.min === null ? p.min : p.min === null ? seen.min : Math.min(seen.min, p.min)
    seen.max = seen.max === null ? p.max : p.max === null ? seen.max : Math.max(seen.max, p.max)
    seen.m2 = m2
    seen.wide = seen.wide || p.wide
  }
  return out.sort(compareKeys)
}

/** The points folded per (system, data id, UTC hour): the rows of data_rollups. */
export const hourStats = (points: readonly RollupPoint[]): PeriodStats[] => periodStats(points, hourOf)

/** The points folded per (system, data id, UTC day): the rows of data_rollups_daily. */
export const dayStats = (points: readonly RollupPoint[]): PeriodStats[] => periodStats(points, dayOf)

/** The points of one (system, data id, period) as they are gathered. */
interface Group { systemUid: string, dataId: string, start: number, cnt: number, wide: boolean, nums: number[] }

/** JavaScript string order: any total order does, as long as every batch uses the same one. */
function compareKeys (a: PeriodStats, b: PeriodStats): number {
  if (a.systemUid !== b.systemUid) return a.systemUid < b.systemUid ? -1 : 1
  if (a.dataId !== b.dataId) return a.dataId < b.dataId ? -1 : 1
  return a.start - b.start
}
