// dataUsage of a system as the find filter (usageStatus) and sorts (dataUsage.bytesTotal, dataUsage.status) read it
// (docs/api.md#systems). The columns hold the month of their last computation (month_bytes_time,
// core/services/usage/month-usage.ts); once that month is over they no longer count: 0 bytes, WITHIN_PLAN, as the
// system view answers (core/domain/system.ts), until the next record of the new month recomputes them.

/** The start of the current calendar month in UTC, in epoch ms. */
const MONTH_START = "(extract(epoch FROM date_trunc('month', now() AT TIME ZONE 'UTC')) * 1000)::bigint"
const PAST_MONTH = `s.month_bytes_time IS NOT NULL AND s.month_bytes_time < ${MONTH_START}`

export const MONTH_BYTES_SQL = `(CASE WHEN ${PAST_MONTH} THEN 0 ELSE s.month_bytes_total END)`
export const USAGE_STATUS_SQL = `(CASE WHEN ${PAST_MONTH} THEN 'WITHIN_PLAN' ELSE s.usage_status END)`
