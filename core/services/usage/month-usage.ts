// dataUsage of systems (docs/api.md#systems): the bytes of the current calendar month (UTC) and the status against
// the offer's limit, kept on the system row as records arrive (not recomputed per request), so that the usageStatus
// filter and the dataUsage sorts read a column. Each new DATA record of the month adds its bytes: the cost of an
// import does not grow with the records already stored.
import type { Repositories } from '../../ports/repositories.js'
import type { NewUsageRecord } from '../../ports/usage.js'
import { monthOf, usageStatus } from '../../domain/usage-billing.js'

/** Adds the records just stored (new ones only: a repeated record was not stored again) to their systems' dataUsage. */
export async function addToMonthUsage (tx: Pick<Repositories, 'usage'>, stored: ReadonlyArray<Pick<NewUsageRecord, 'systemUid' | 'type' | 'start' | 'bytesTotal'>>, now: number): Promise<void> {
  const month = monthOf(now)
  const added = new Map<string, number>()
  for (const r of stored) {
    if (r.type !== 'DATA' || r.start < month.start || r.start >= month.end) continue
    added.set(r.systemUid, (added.get(r.systemUid) ?? 0) + (r.bytesTotal ?? 0))
  }
  const totals = await tx.usage.addMonthBytes(added, month.start, now)
  await tx.usage.setUsageStatus(totals.map((t) => ({ systemUid: t.systemUid, status: usageStatus(t.bytesTotal, t.limit) })))
}
