// Hourly rollups of data points (issue 12, Rollups; storage/migrations/0019_data_rollups.sql): what the points of
// one (system, data id, UTC hour) contribute to the folding functions of conventions.md §Data. The ingest batch folds
// its points with hourStats() and the store merges each result into the hour's row in the same transaction.
import type { DataValue } from './device-message.js'

export const HOUR_MS = 3_600_000

/**
 * Values of this magnitude or more stay out of the numeric sums: their squares could overflow float8, which is an
 * error in PostgreSQL, not Infinity. The hour is marked `wide` and queries over it read the raw points.
 */
export const WIDE = 1e100

/** The start of the UTC hour holding ts (hours are aligned on the epoch; negative timestamps too). */
export const hourOf = (ts: number): number => ts - (((ts % HOUR_MS) + HOUR_MS) % HOUR_MS)

/** The hour's share of one series, in the columns of data_rollups. */
export interface HourStats {
  systemUid: string
  dataId: string
  hour: number
  /** Present values: numbers, booleans, strings (conventions.md §Data: cnt). */
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

export interface RollupPoint { systemUid: string, dataId: string, ts: number, value: DataValue }

/** The numeric reading of a value, as data_points.num holds it (core/ports/telemetry.ts encodeValue). */
function numOf (v: DataValue): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  return null
}

/**
 * The points folded per (system, data id, hour), sorted by that key: the store locks the rows in this order, so
 * two batches merging overlapping hours never wait for each other in a cycle.
 */
export function hourStats (points: readonly RollupPoint[]): HourStats[] {
  // Grouped by system, then data id, then hour: maps of maps rather than one map keyed by a string built per point,
  // which was most of this function's time on a batch of thousands of points (bench ingest profile).
  const bySystem = new Map<string, Map<string, Map<number, Group>>>()
  const groups: Group[] = []
  for (const p of points) {
    const hour = hourOf(p.ts)
    let byId = bySystem.get(p.systemUid)
    if (byId === undefined) { byId = new Map(); bySystem.set(p.systemUid, byId) }
    let byHour = byId.get(p.dataId)
    if (byHour === undefined) { byHour = new Map(); byId.set(p.dataId, byHour) }
    let g = byHour.get(hour)
    if (g === undefined) {
      g = { systemUid: p.systemUid, dataId: p.dataId, hour, cnt: 0, wide: false, nums: [] }
      byHour.set(hour, g)
      groups.push(g)
    }
    if (p.value !== null) g.cnt++
    const n = numOf(p.value)
    if (n === null) continue
    if (Math.abs(n) < WIDE) g.nums.push(n)
    else g.wide = true
  }
  const out: HourStats[] = []
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
    out.push({ systemUid: g.systemUid, dataId: g.dataId, hour: g.hour, cnt: g.cnt, nNum: g.nums.length, sum, ss, min, max, m2, wide: g.wide })
  }
  return out.sort(compareKeys)
}

/** The points of one (system, data id, hour) as they are gathered. */
interface Group { systemUid: string, dataId: string, hour: number, cnt: number, wide: boolean, nums: number[] }

/** JavaScript string order: any total order does, as long as every batch uses the same one. */
function compareKeys (a: HourStats, b: HourStats): number {
  if (a.systemUid !== b.systemUid) return a.systemUid < b.systemUid ? -1 : 1
  if (a.dataId !== b.dataId) return a.dataId < b.dataId ? -1 : 1
  return a.hour - b.hour
}
