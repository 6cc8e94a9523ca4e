// Billing rules of usage records (docs/usage.md: "Invoiced values are rounded to the billing
// increment"; §System: dataUsage.status). The spec gives no figures: these are ours, written down in docs/usage.md.
import type { USAGE_STATUSES } from './system.js'

export type UsageStatus = typeof USAGE_STATUSES[number]

/** An offer's billing increments (offers.data_increment_bytes, offers.voice_increment_seconds); null: the default. */
export interface BillingIncrements { dataBytes: number | null, voiceSeconds: number | null }

/** Data is billed by the started kibibyte, voice by the started minute, unless the offer says otherwise. */
export const DEFAULT_DATA_INCREMENT_BYTES = 1024
export const DEFAULT_VOICE_INCREMENT_SECONDS = 60

/** dataUsage.status is NEARING_PLAN from 80 % of the offer's limit (EXCEEDING_PLAN above the limit). */
export const NEARING_PLAN_RATIO = 0.8

/** `value` rounded up to a multiple of `increment` (0 stays 0: nothing used is nothing billed). */
export function roundUp (value: number, increment: number): number {
  return Math.ceil(value / increment) * increment
}

/** bytesTotal as invoiced: each record is rounded on its own (an interim record is billed for its own period). */
export function roundedBytes (bytesTotal: number, inc: BillingIncrements): number {
  return roundUp(bytesTotal, inc.dataBytes ?? DEFAULT_DATA_INCREMENT_BYTES)
}

/** A call's duration in seconds as invoiced: from start to end (ms), rounded up to the voice increment. */
export function roundedDuration (start: number, end: number, inc: BillingIncrements): number {
  return roundUp(Math.max(0, end - start) / 1000, inc.voiceSeconds ?? DEFAULT_VOICE_INCREMENT_SECONDS)
}

/**
 * dataUsage.status of a month's bytes against the offer's limit: EXCEEDING_PLAN above the limit, NEARING_PLAN from
 * NEARING_PLAN_RATIO of it (with some usage: a limit of 0 with nothing used is within the plan), WITHIN_PLAN below,
 * and always WITHIN_PLAN without an offer or a limit.
 */
export function usageStatus (bytesTotal: number, limit: number | null | undefined): UsageStatus {
  if (limit == null) return 'WITHIN_PLAN'
  if (bytesTotal > limit) return 'EXCEEDING_PLAN'
  if (bytesTotal > 0 && bytesTotal >= limit * NEARING_PLAN_RATIO) return 'NEARING_PLAN'
  return 'WITHIN_PLAN'
}

/** The current calendar month in UTC, [start, end) in ms (docs/api.md#systems: dataUsage.bytesTotal). */
export function monthOf (now: number): { start: number, end: number } {
  const d = new Date(now)
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) }
}
