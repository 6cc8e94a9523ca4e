// Usage records (docs/usage.md; docs/usage.md): cellular sessions, SMS and USSD message
// units of a system, as an operator's feed reports them. The record types are those of the aggregations
// (core/domain/aggregation.ts), which count them as the usage data ids.
import type { UsageRecordType } from './aggregation.js'

export const USAGE_RECORD_TYPES: readonly UsageRecordType[] = ['DATA', 'SMS_SENT', 'SMS_RECEIVED', 'VOICE_IN', 'VOICE_OUT', 'MSU']

/** docs/usage.md: the common text fields, every type. */
export const COMMON_TEXT_FIELDS = ['visitedNetwork', 'visitedCountry', 'visitedMnc', 'visitedMcc', 'servedImsi', 'servedImei', 'servedMsisdn'] as const
/** Text fields of some types only: apn, pdpAddress, ratType (DATA); phoneNumber (SMS and voice). */
export const TYPE_TEXT_FIELDS = ['apn', 'pdpAddress', 'ratType', 'phoneNumber'] as const
export type UsageTextField = typeof COMMON_TEXT_FIELDS[number] | typeof TYPE_TEXT_FIELDS[number]

export interface UsageRecord {
  /** Constant for one session: interim DATA records share it with the session's final record. */
  uid: string
  type: UsageRecordType
  start: number
  /** DATA and voice only; an interim DATA record has end = start. */
  end: number | null
  /** DATA only: true for an interim record. */
  partial: boolean
  bytesSent: number | null
  bytesReceived: number | null
  bytesTotal: number | null
  /** bytesTotal rounded up to the offer's data increment (core/domain/usage-billing.ts). */
  roundedBytesTotal: number | null
  /** Voice: the duration in seconds rounded up to the offer's voice increment. */
  roundedDuration: number | null
  /** When the service processed the record (its end): the date of the INVOICED_ counters. */
  processedAt: number | null
  text: Partial<Record<UsageTextField, string | null>>
}

/** Types whose records have an end (a session): DATA and voice; the others are events at `start`. */
export const hasEnd = (type: UsageRecordType): boolean => type === 'DATA' || type === 'VOICE_IN' || type === 'VOICE_OUT'

/** docs/usage.md: the record as answered (the common fields, then those of its type only). */
export interface UsageRecordJson {
  uid: string
  type: UsageRecordType
  visitedNetwork: string | null
  visitedCountry: string | null
  visitedMnc: string | null
  visitedMcc: string | null
  servedImsi: string | null
  servedImei: string | null
  servedMsisdn: string | null
  start: number
  end?: number
  partial?: boolean
  bytesSent?: number | null
  bytesReceived?: number | null
  bytesTotal?: number | null
  roundedBytesTotal?: number | null
  apn?: string | null
  pdpAddress?: string | null
  ratType?: string | null
  phoneNumber?: string | null
  roundedDuration?: number | null
}

export function usageRecordView (r: UsageRecord): UsageRecordJson {
  const t = (f: UsageTextField): string | null => r.text[f] ?? null
  const common = {
    uid: r.uid,
    type: r.type,
    visitedNetwork: t('visitedNetwork'),
    visitedCountry: t('visitedCountry'),
    visitedMnc: t('visitedMnc'),
    visitedMcc: t('visitedMcc'),
    servedImsi: t('servedImsi'),
    servedImei: t('servedImei'),
    servedMsisdn: t('servedMsisdn'),
    start: r.start
  }
  switch (r.type) {
    case 'DATA':
      return {
        ...common,
        end: r.end ?? r.start,
        partial: r.partial,
        bytesSent: r.bytesSent,
        bytesReceived: r.bytesReceived,
        bytesTotal: r.bytesTotal,
        roundedBytesTotal: r.roundedBytesTotal,
        apn: t('apn'),
        pdpAddress: t('pdpAddress'),
        ratType: t('ratType')
      }
    case 'VOICE_IN':
    case 'VOICE_OUT':
      return { ...common, end: r.end ?? r.start, phoneNumber: t('phoneNumber'), roundedDuration: r.roundedDuration }
    case 'SMS_SENT':
    case 'SMS_RECEIVED':
      return { ...common, phoneNumber: t('phoneNumber') }
    case 'MSU':
      return common
  }
}

/** docs/usage.md, multi system list: `{ts, v: {uid, end?}}` (end for the types that have one). */
export function usagePointView (r: UsageRecord): { ts: number, v: { uid: string, end?: number } } {
  return { ts: r.start, v: hasEnd(r.type) ? { uid: r.uid, end: r.end ?? r.start } : { uid: r.uid } }
}
