// The usage feed as import files (docs/usage.md; docs/usage.md): CSV with a header of
// usage record fields, the system found by `subscriptionIdentifier` (the ICCID: what an operator knows of a SIM),
// cut into files of bounded size. roundedBytesTotal and roundedDuration are left out: the service rounds them with
// the increments of each system's offer.
import type { FeedRecord } from './feed.js'

export const USAGE_CSV_COLUMNS = ['subscriptionIdentifier', 'uid', 'type', 'start', 'end', 'partial', 'bytesSent', 'bytesReceived',
  'bytesTotal', 'apn', 'pdpAddress', 'ratType', 'phoneNumber', 'visitedNetwork', 'visitedCountry', 'visitedMcc', 'visitedMnc',
  'servedImsi', 'servedImei', 'servedMsisdn'] as const satisfies ReadonlyArray<keyof FeedRecord>

export interface CsvLimits {
  /** Rows per file at most (default 5,000). */
  maxRows?: number
  /** Bytes per file at most, header included (default 4 MiB; the import takes 10 MB). */
  maxBytes?: number
}

/** RFC 4180: a cell with a separator, a quote or a line break is quoted, its quotes doubled. */
function cell (v: string | number | boolean | null): string {
  if (v === null) return ''
  const s = String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** One record as a CSV line (LF-terminated). `partial` is written for DATA records only. */
export function usageCsvLine (r: FeedRecord): string {
  return USAGE_CSV_COLUMNS.map((c) => cell(c === 'partial' && r.type !== 'DATA' ? null : r[c])).join(',') + '\n'
}

/** A file of the feed and the records it holds. */
export interface UsageCsvFile { csv: string, records: readonly FeedRecord[] }

/** The records as CSV files, in order, each within the limits (a file holds at least one row). */
export function usageCsvFiles (records: readonly FeedRecord[], limits: CsvLimits = {}): UsageCsvFile[] {
  const maxRows = limits.maxRows ?? 5000
  const maxBytes = limits.maxBytes ?? 4 * 1024 * 1024
  const header = USAGE_CSV_COLUMNS.join(',') + '\n'
  const files: UsageCsvFile[] = []
  let lines: string[] = []
  let first = 0
  let bytes = 0
  const flush = (next: number): void => {
    if (lines.length > 0) files.push({ csv: header + lines.join(''), records: records.slice(first, next) })
    lines = []
    first = next
    bytes = Buffer.byteLength(header)
  }
  flush(0)
  for (const [i, r] of records.entries()) {
    const line = usageCsvLine(r)
    const size = Buffer.byteLength(line)
    if (lines.length >= maxRows || (lines.length > 0 && bytes + size > maxBytes)) flush(i)
    lines.push(line)
    bytes += size
  }
  flush(records.length)
  return files
}
