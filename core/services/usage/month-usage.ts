// dataUsage of systems (fleet-api.md §System): the bytes of the current calendar month (UTC) and the status against
// the offer's limit, kept on the system row as records arrive (not recomputed per request), so that the usageStatus
// filter and the dataUsage sorts read a column.
import type { Repositories } from '../../ports/repositories.js'
import type { MonthUsage } from '../../ports/usage.js'
import { monthOf, usageStatus } from '../../domain/usage-billing.js'

/** Recomputes dataUsage of these systems of the company from their DATA records of the month holding `now`. */
export async function refreshMonthUsage (tx: Pick<Repositories, 'usage'>, companyUid: string, systemUids: readonly string[], now: number): Promise<void> {
  const uids = [...new Set(systemUids)]
  if (uids.length === 0) return
  const bytes = await tx.usage.monthBytes(uids, monthOf(now))
  const billing = await tx.usage.billing(companyUid, uids)
  const rows: MonthUsage[] = []
  for (const [systemUid, b] of billing) {
    const bytesTotal = bytes.get(systemUid) ?? 0
    rows.push({ systemUid, bytesTotal, status: usageStatus(bytesTotal, b.limit) })
  }
  await tx.usage.setMonthUsage(rows, now)
}
