// The compressed number lists of docs/protocols/m3da.md, expanded into plain lists on decode; builders for encoders.
import { bysantObject, Ctx, typedList, type BysantValue, type EncodableObject } from '../bysant/index.js'
import { ClassId } from './classes.js'

/** Expanded values allowed across one payload: QuasiPeriodicVector repeat counts could otherwise ask for 2^32. */
export const MAX_VECTOR_POINTS = 100_000

export type Expanded = { ok: true, values: number[] } | { ok: false, reason: string }

const invalid = { ok: false, reason: 'm3da.invalid.vector' } as const
const tooLarge = { ok: false, reason: 'm3da.vector.too.large' } as const

/** A number field of a vector (int64 beyond the safe range is read as the nearest double). */
function num (v: BysantValue | undefined): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  return null
}

function nums (v: BysantValue | undefined): number[] | null {
  if (!Array.isArray(v)) return null
  const out: number[] = []
  for (const item of v) {
    const n = num(item)
    if (n === null) return null
    out.push(n)
  }
  return out
}

/** DeltasVector: Y0 = factor·start; Y[i+1] = Y[i] + factor·deltas[i]. */
export function expandDeltas (fields: readonly BysantValue[], budget = MAX_VECTOR_POINTS): Expanded {
  const factor = num(fields[0])
  const start = num(fields[1])
  const deltas = nums(fields[2])
  if (factor === null || start === null || deltas === null) return invalid
  if (deltas.length + 1 > budget) return tooLarge
  const values = [factor * start]
  let last = factor * start
  for (const d of deltas) values.push(last += factor * d)
  return { ok: true, values }
}

/** A repeat count as Java's longValue() reads it: truncated, and nothing below zero. */
const count = (n: number): number => Number.isNaN(n) ? 0 : Math.max(Math.trunc(n), 0)

/**
 * QuasiPeriodicVector, as the Java reference server's asFlatList (§2.3): start; for each pair (n, s) of shifts, n
 * values each `previous + period`, then `previous + period + s`; then shifts[last] more values `previous + period`.
 * With an even number of shifts (the Go tests send 8) the last shift is also the trailing count, as in Java.
 */
export function expandQuasiPeriodic (fields: readonly BysantValue[], budget = MAX_VECTOR_POINTS): Expanded {
  const period = num(fields[0])
  const start = num(fields[1])
  const shifts = nums(fields[2])
  if (period === null || start === null || shifts === null || shifts.length === 0) return invalid
  const pairs = shifts.length >> 1
  const total = 1 + pairs + shifts.reduce((sum, n, i) => i % 2 === 0 || i === shifts.length - 1 ? sum + count(n) : sum, 0)
  if (total > budget) return tooLarge
  const values = [start]
  let last = start
  const repeat = (n: number): void => { for (let j = count(n); j > 0; j--) values.push(last += period) }
  for (let i = 0; i < pairs; i++) {
    repeat(shifts[2 * i] as number)
    values.push(last += period + (shifts[2 * i + 1] as number))
  }
  repeat(shifts.at(-1) as number)
  return { ok: true, values }
}

/** A DeltasVector to put in a Message body; deltas as a Numbers-typed list, as our §1.9 vector writes them. */
export const deltasVector = (factor: number, start: number, deltas: number[]): EncodableObject =>
  bysantObject(ClassId.DeltasVector, [factor, start, typedList(Ctx.Numbers, deltas)])

/** A QuasiPeriodicVector to put in a Message body; shifts as an untyped list, as the Go tests write them. */
export const quasiPeriodicVector = (period: number, start: number, shifts: number[]): EncodableObject =>
  bysantObject(ClassId.QuasiPeriodicVector, [period, start, shifts])
