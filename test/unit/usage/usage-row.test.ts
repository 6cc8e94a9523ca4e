// A usage import row made into a record (core/services/usage/usage-row.ts) and the billing rules
// (core/domain/usage-billing.ts; docs/usage.md): any cells give a record or a refusal, never a throw, and
// every record keeps the rules of docs/usage.md.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isFleetError } from '../../../core/errors.js'
import { USAGE_COLUMNS, usageRecordOf, type UsageRow } from '../../../core/services/usage/usage-row.js'
import { usageColumns, usageRow } from '../../../core/services/usage/usage-csv.js'
import { monthOf, roundUp, usageStatus, DEFAULT_DATA_INCREMENT_BYTES, DEFAULT_VOICE_INCREMENT_SECONDS } from '../../../core/domain/usage-billing.js'
import { hasEnd, usagePointView, usageRecordView } from '../../../core/domain/usage-record.js'

const NOW = Date.UTC(2026, 0, 15)
const DEFAULTS = { dataBytes: null, voiceSeconds: null }
const TYPES = ['DATA', 'SMS_SENT', 'SMS_RECEIVED', 'VOICE_IN', 'VOICE_OUT', 'MSU']

const cell = fc.oneof(fc.string(), fc.constantFrom('', 'true', 'false', '0', '1', '-1', '12.5', '1767225600000', '2026-01-01T00:00:00Z'), fc.nat().map(String))
const anyRow: fc.Arbitrary<UsageRow> = fc.dictionary(fc.constantFrom(...USAGE_COLUMNS), cell) as fc.Arbitrary<UsageRow>

/** Rows a real feed writes: a type, dates in order, counters. */
const feedRow: fc.Arbitrary<UsageRow> = fc.record({
  type: fc.constantFrom(...TYPES),
  start: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
  length: fc.integer({ min: 0, max: 10_000_000 }),
  partial: fc.boolean(),
  sent: fc.nat({ max: 1e9 }),
  received: fc.nat({ max: 1e9 })
}).map((r) => ({ type: r.type, start: String(r.start), end: String(r.start + r.length), partial: String(r.partial), bytesSent: String(r.sent), bytesReceived: String(r.received) }))

describe('usage row', () => {
  it('answers a record or a refusal for any cells, never throws, and the record views are complete', () => {
    fc.assert(fc.property(anyRow, fc.option(fc.integer({ min: 1, max: 1e6 }), { nil: null }), (row, inc) => {
      const r = usageRecordOf(row, { dataBytes: inc, voiceSeconds: inc }, NOW)
      if (isFleetError(r)) {
        expect(r.code).toBe('request.invalid')
        return
      }
      const view = usageRecordView(r)
      expect(view.uid).toBe(r.uid)
      expect(Object.hasOwn(view, 'end')).toBe(hasEnd(r.type))
      expect(usagePointView(r).v.uid).toBe(r.uid)
    }), { numRuns: 2000 })
  })

  it('keeps the rules of the record on realistic rows: interim DATA ends at its start, rounded values cover the raw ones', () => {
    fc.assert(fc.property(feedRow, (row) => {
      const r = usageRecordOf(row, DEFAULTS, NOW)
      if (isFleetError(r)) throw new Error(`refused ${JSON.stringify(row)}: ${r.params.join(' ')}`)
      expect(r.processedAt).toBe(NOW)
      if (hasEnd(r.type)) expect(r.end).toBeGreaterThanOrEqual(r.start)
      else expect(r.end).toBeNull()
      if (r.type === 'DATA') {
        expect(r.bytesTotal).toBe(Number(row.bytesSent) + Number(row.bytesReceived))
        expect(r.roundedBytesTotal! % DEFAULT_DATA_INCREMENT_BYTES).toBe(0)
        expect(r.roundedBytesTotal! - r.bytesTotal!).toBeLessThan(DEFAULT_DATA_INCREMENT_BYTES)
        expect(r.roundedBytesTotal).toBeGreaterThanOrEqual(r.bytesTotal!)
        if (r.partial) expect(r.end).toBe(r.start)
      } else {
        expect([r.bytesTotal, r.roundedBytesTotal, r.partial]).toEqual([null, null, false])
      }
      if (r.type === 'VOICE_IN' || r.type === 'VOICE_OUT') {
        expect(r.roundedDuration! % DEFAULT_VOICE_INCREMENT_SECONDS).toBe(0)
        expect(r.roundedDuration! * 1000).toBeGreaterThanOrEqual(r.end! - r.start)
      } else expect(r.roundedDuration).toBeNull()
      // The same row gives the same uid when it has none: importing it again stores nothing twice.
      const again = usageRecordOf(row, DEFAULTS, NOW + 1)
      expect(isFleetError(again) ? undefined : again.uid).toBe(r.uid)
    }), { numRuns: 1000 })
  })

  it('names the column at fault', () => {
    const refusal = (row: UsageRow): string[] => { const r = usageRecordOf(row, DEFAULTS, NOW); return isFleetError(r) ? [...r.params].slice(0, 1) : [] }
    expect(refusal({ type: 'FAX', start: '1' })).toEqual(['type'])
    expect(refusal({ type: 'MSU' })).toEqual(['start'])
    expect(refusal({ type: 'VOICE_IN', start: '1767225600000' })).toEqual(['end'])
    expect(refusal({ type: 'DATA', start: '1767225600000', end: '1767225599999' })).toEqual(['end'])
    expect(refusal({ type: 'DATA', start: '1767225600000', end: '1767225600001', bytesSent: '1.5' })).toEqual(['bytesSent'])
    expect(refusal({ type: 'DATA', start: '1767225600000', partial: 'yes' })).toEqual(['partial'])
    expect(refusal({ type: 'MSU', start: '2026-01-01 10:00' })).toEqual(['start']) // no offset: ambiguous
    expect(refusal({ type: 'MSU', start: '99999999999999999999' })).toEqual(['start']) // past what a date holds
    expect(refusal({ type: 'MSU', start: '-5' })).toEqual(['start'])
  })
})

describe('usage header', () => {
  it('matches names in any case and refuses unknown, repeated or missing columns', () => {
    expect(usageColumns(['SYSTEM', 'Type', 'start', 'bytestotal'])).toEqual(['system', 'type', 'start', 'bytesTotal'])
    expect(usageRow(['system', 'type'], [' s1 ', ''])).toEqual({ system: 's1' })
    const code = (h: string[]): string => { try { usageColumns(h); return 'ok' } catch (e) { return isFleetError(e) ? e.code : 'thrown' } }
    expect(code(['a', 'b'])).toBe('file.header.missing')
    expect(code(['system', 'type', 'start', 'colour'])).toBe('csv.header.unknown.column')
    expect(code(['system', 'type', 'start', 'TYPE'])).toBe('csv.header.unknown.column')
    expect(code(['system', 'type'])).toBe('file.header.missing')
    expect(code(['type', 'start'])).toBe('file.header.missing')
    expect(code(['subscriptionIdentifier', 'type', 'start'])).toBe('ok')
  })
})

describe('billing', () => {
  it('rounds up to the increment and rates the month against the limit (NEARING from 80 %)', () => {
    expect([roundUp(0, 1024), roundUp(1, 1024), roundUp(1024, 1024), roundUp(1025, 1024)]).toEqual([0, 1024, 1024, 2048])
    expect(usageStatus(10 ** 12, null)).toBe('WITHIN_PLAN')
    expect([usageStatus(799, 1000), usageStatus(800, 1000), usageStatus(1000, 1000), usageStatus(1001, 1000)])
      .toEqual(['WITHIN_PLAN', 'NEARING_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN'])
    expect([usageStatus(0, 0), usageStatus(1, 0)]).toEqual(['WITHIN_PLAN', 'EXCEEDING_PLAN'])
    expect(monthOf(Date.UTC(2024, 1, 29, 23))).toEqual({ start: Date.UTC(2024, 1, 1), end: Date.UTC(2024, 2, 1) })
    expect(monthOf(Date.UTC(2025, 11, 31, 23, 59))).toEqual({ start: Date.UTC(2025, 11, 1), end: Date.UTC(2026, 0, 1) })
  })
})
