// The usage record endpoints (docs/usage.md; §Errors rows "usage records (one system)", "usage records
// (several systems)", "usage record detail"; §Limits: default range 3 months, size 100/500, targetIds 50).
import { FleetError } from '../../errors.js'
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { CompanyAccess } from '../access.js'
import { usagePointView, usageRecordView, type UsageRecordJson } from '../../domain/usage-record.js'
import { checkOwnSystems } from '../data/own-systems.js'
import { idList, range, size, threeMonthsBefore } from '../data/params.js'

/**
 * docs/usage.md: targetIds "up to 50 per the parameter rule; the error rule mentions 5". The parameter
 * rule is the one a client reads first, and the aggregated endpoint allows 50 too.
 */
export const MAX_USAGE_TARGETS = 50

export interface UsageQuery { from?: number | undefined, to?: number | undefined, size?: number | undefined }
export interface UsageManyQuery extends UsageQuery { targetIds?: string | string[] | undefined }

export type UsagePoints = Record<string, Record<string, Array<ReturnType<typeof usagePointView>>>>

export function createUsageService ({ repos, clock }: { repos: Pick<Repositories, 'usage' | 'dataQueries'>, clock: Clock }) {
  /** [from, to) with the defaults of §Limits. @throws invalid.timerange */
  const rangeOf = (q: UsageQuery): { from: number, to: number } => {
    const now = clock.now()
    return range(q, now, 'invalid.timerange', threeMonthsBefore(now))
  }

  return {
    /** One system's records starting in [from, to), most recent first. @throws system.unknown, invalid.timerange */
    async list (access: CompanyAccess, systemUid: string, q: UsageQuery): Promise<UsageRecordJson[]> {
      const r = rangeOf(q)
      await checkOwnSystems(repos.dataQueries, access, [systemUid])
      const n = size(q.size)
      if (n === 0 || r.from === r.to) return []
      return (await repos.usage.list(systemUid, r, n)).map(usageRecordView)
    },

    /**
     * Several systems' records: system uid → type → `{ts, v: {uid, end?}}`, `size` per system and type, most recent
     * first. Every requested system answers, with the types it has records of.
     * @throws system.unknown, invalid.timerange, aggregation.too.many.targets
     */
    async listMany (access: CompanyAccess, q: UsageManyQuery): Promise<UsagePoints> {
      const targets = idList(q.targetIds, MAX_USAGE_TARGETS, { missing: 'system.unknown', tooMany: 'aggregation.too.many.targets' }, 'targetIds')
      const r = rangeOf(q)
      await checkOwnSystems(repos.dataQueries, access, targets)
      const out: UsagePoints = Object.fromEntries(targets.map((t) => [t, {}]))
      const n = size(q.size)
      if (n === 0 || r.from === r.to) return out
      for (const rec of await repos.usage.listMany(targets, r, n)) {
        const perType = out[rec.systemUid]
        if (perType === undefined) continue
        ;(perType[rec.type] ??= []).push(usagePointView(rec))
      }
      return out
    },

    /** One record by its uid (of a session: its final record). @throws system.unknown, record.unknown */
    async get (access: CompanyAccess, systemUid: string, recordUid: string): Promise<UsageRecordJson> {
      await checkOwnSystems(repos.dataQueries, access, [systemUid])
      const rec = await repos.usage.get(systemUid, recordUid)
      if (rec === undefined) throw new FleetError('record.unknown', [recordUid])
      return usageRecordView(rec)
    }
  }
}

export type UsageService = ReturnType<typeof createUsageService>
