// One row of a usage import (docs/usage.md: columns named after the usage record fields of
// docs/usage.md, plus `system` or `subscriptionIdentifier`) made into a record, or refused with the
// column at fault. A refusal fails the row's task; it never throws.
import { createHash } from 'node:crypto'
import { FleetError } from '../../errors.js'
import { toMillis } from '../../domain/lists.js'
import type { UsageRecordType } from '../../domain/aggregation.js'
import { COMMON_TEXT_FIELDS, TYPE_TEXT_FIELDS, USAGE_RECORD_TYPES, hasEnd, type UsageRecord, type UsageTextField } from '../../domain/usage-record.js'
import { roundedBytes, roundedDuration, type BillingIncrements } from '../../domain/usage-billing.js'

/** The columns a usage CSV may have (header names are matched without regard to case). */
export const USAGE_COLUMNS = ['system', 'subscriptionIdentifier', 'uid', 'type', 'start', 'end', 'partial', 'bytesSent',
  'bytesReceived', 'bytesTotal', 'roundedBytesTotal', 'roundedDuration', ...COMMON_TEXT_FIELDS, ...TYPE_TEXT_FIELDS] as const
export type UsageColumn = typeof USAGE_COLUMNS[number]
export type UsageRow = Partial<Record<UsageColumn, string>>

/** Text fields each type keeps (docs/usage.md); a cell of another type's field is ignored. */
const TYPE_TEXT: Record<UsageRecordType, readonly UsageTextField[]> = {
  DATA: ['apn', 'pdpAddress', 'ratType'],
  SMS_SENT: ['phoneNumber'],
  SMS_RECEIVED: ['phoneNumber'],
  VOICE_IN: ['phoneNumber'],
  VOICE_OUT: ['phoneNumber'],
  MSU: []
}

const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

const invalid = (column: string, value: string, expected: string): FleetError => new FleetError('request.invalid', [column, value, expected])

/**
 * A timestamp cell: epoch milliseconds (seconds and microseconds tolerated, as every timestamp of the API), or an
 * ISO 8601 date with its offset, which a spreadsheet may write instead.
 */
function time (column: string, v: string): number | FleetError {
  const ms = /^\d{1,16}$/.test(v)
    ? toMillis(Number(v))
    : /^\d{4}-\d\d-\d\dT/.test(v) && /(Z|[+-]\d\d:?\d\d)$/.test(v) ? Date.parse(v) : NaN
  // From 1970 to the end of year 9999: what a date of the store and of JavaScript both hold.
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= MAX_TIME ? ms : invalid(column, v, 'epoch milliseconds, or an ISO 8601 date with its offset (2026-01-31T10:00:00Z)')
}

/** A counter cell: empty (null) or a whole number, not negative. */
function count (column: string, v: string | undefined): number | null | FleetError {
  if (v === undefined || v === '') return null
  return /^\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : invalid(column, v, 'a whole number of 0 or more')
}

function flag (v: string | undefined): boolean | null {
  const t = (v ?? '').toLowerCase()
  if (t === '' || t === 'false' || t === '0') return false
  if (t === 'true' || t === '1') return true
  return null
}

/**
 * A record without a `uid` cell gets one made from what it is (type, start, end, peer), so that importing the same
 * file again stores nothing twice.
 */
function derivedUid (row: UsageRow, type: string, start: number, end: number | null): string {
  return createHash('sha256').update(`${type}\n${start}\n${end ?? ''}\n${row.phoneNumber ?? ''}`).digest('hex').slice(0, 32)
}

/**
 * The record a row describes, on the system found for it, billed with that system's increments and processed at
 * `now`. Interim DATA records (`partial` true) end where they start (docs/usage.md).
 */
export function usageRecordOf (row: UsageRow, inc: BillingIncrements, now: number): UsageRecord | FleetError {
  const type = USAGE_RECORD_TYPES.find((t) => t === (row.type ?? '').toUpperCase())
  if (type === undefined) return invalid('type', row.type ?? '', `one of ${USAGE_RECORD_TYPES.join(', ')}`)
  if (row.start === undefined || row.start === '') return invalid('start', '', 'the record\'s start, in epoch milliseconds')
  const start = time('start', row.start)
  if (start instanceof FleetError) return start
  const partial = type === 'DATA' ? flag(row.partial) : false
  if (partial === null) return invalid('partial', row.partial ?? '', 'true or false')
  let end: number | null = null
  if (hasEnd(type)) {
    const given = row.end === undefined || row.end === '' ? null : time('end', row.end)
    if (given instanceof FleetError) return given
    if (given === null && !partial) return invalid('end', '', `the end of the ${type} session (only an interim DATA record may leave it out)`)
    end = partial ? start : given
    if (end !== null && end < start) return invalid('end', row.end ?? '', 'not before start')
  }
  const counters = { bytesSent: 0, bytesReceived: 0, bytesTotal: 0, roundedBytesTotal: 0, roundedDuration: 0 } as Record<string, number | null>
  for (const c of Object.keys(counters)) {
    const v = count(c, row[c as UsageColumn])
    if (v instanceof FleetError) return v
    counters[c] = v
  }
  const data = type === 'DATA'
  const voice = type === 'VOICE_IN' || type === 'VOICE_OUT'
  // bytesTotal, when left out, is what was sent plus what was received.
  const bytesTotal = !data ? null : counters.bytesTotal ?? (counters.bytesSent ?? 0) + (counters.bytesReceived ?? 0)
  const text: UsageRecord['text'] = {}
  for (const f of [...COMMON_TEXT_FIELDS, ...TYPE_TEXT[type]]) {
    const v = row[f]
    if (v !== undefined && v !== '') text[f] = v
  }
  return {
    uid: row.uid === undefined || row.uid === '' ? derivedUid(row, type, start, end) : row.uid,
    type,
    start,
    end,
    partial,
    bytesSent: data ? counters.bytesSent ?? null : null,
    bytesReceived: data ? counters.bytesReceived ?? null : null,
    bytesTotal,
    roundedBytesTotal: bytesTotal === null ? null : counters.roundedBytesTotal ?? roundedBytes(bytesTotal, inc),
    roundedDuration: !voice ? null : counters.roundedDuration ?? roundedDuration(start, end ?? start, inc),
    processedAt: now,
    text
  }
}
