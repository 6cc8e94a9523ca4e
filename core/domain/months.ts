// UTC calendar months as epoch-ms ranges [start, end): the bounds of the monthly points partitions
// (storage/migrations/0020_points_partitions.sql). Timestamps are epoch ms (docs/api.md#using-the-api).

export interface Month {
  /** First ms of the month, UTC. */
  start: number
  /** First ms of the next month. */
  end: number
}

/** The month `n` months after (before, when negative) the one starting at `start`. */
function shifted (start: number, n: number): Month {
  const d = new Date(start)
  const y = d.getUTCFullYear()
  const m = d.getUTCMonth() + n
  return { start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) }
}

/** The month holding ts. @throws RangeError when ts is not a date JavaScript can hold (beyond ±8.64·10^15 ms). */
export function monthOf (ts: number): Month {
  const d = new Date(ts)
  if (Number.isNaN(d.getTime())) throw new RangeError(`not a date: ${ts}`)
  return shifted(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), 0)
}

export const addMonths = (month: Month, n: number): Month => shifted(month.start, n)

/** The months from `first` to `last`, both included, in order. */
export function monthsBetween (first: Month, last: Month): Month[] {
  const out: Month[] = []
  for (let m = first; m.start <= last.start; m = addMonths(m, 1)) out.push(m)
  return out
}

/** "YYYYMM" of the month, as partition names carry it (years 1000 to 9999). */
export function monthTag (month: Month): string {
  const d = new Date(month.start)
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`
}

/** The month of a "YYYYMM" tag, undefined for anything else. */
export function monthOfTag (tag: string): Month | undefined {
  const m = /^([1-9]\d{3})(0[1-9]|1[0-2])$/.exec(tag)
  return m === null ? undefined : shifted(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1), 0)
}
