// The upkeep of the monthly points partitions and the retention of raw data
// (docs/store.md#points-partitions-and-retention): the repeatable job points.partitions (bin/serve.ts) runs it. What it
// creates and drops is the policy of core/domain/point-partitions.ts; the hourly rollups (data_rollups) are never
// touched: aggregations of expired months still answer from them, and the latest values (data_last, System data) stay
// too.
import type { Logger } from '../../logger.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import { monthOf, monthsBetween, monthTag, type Month } from '../../domain/months.js'
import { expired, monthsAhead, onDemandRange, retentionHorizon } from '../../domain/point-partitions.js'

/** What one run did: partitions created and dropped ("YYYYMM"), points moved out of or deleted from the default one. */
export interface PartitionsReport {
  created: string[]
  dropped: string[]
  movedPoints: number
  deletedPoints: number
  deletedMessages: number
}

export interface PointPartitionsDeps {
  repos: Pick<Repositories, 'pointPartitions'>
  inTransaction: UnitOfWork
  clock: Clock
  /** DATA_RETENTION_DAYS: raw points and messages older than this many days expire by whole months; 0 keeps all. */
  retentionDays: number
  log?: Logger
}

// Messages are deleted for this many systems per statement: short transactions, each on the systems' index.
const MESSAGE_CHUNK = 500

export function createPointPartitionsService ({ repos, inTransaction, clock, retentionDays, log }: PointPartitionsDeps) {
  /**
   * Creates the partitions of these months that do not exist yet, each in a transaction of its own; those of `live`
   * (the months ingest writes to now) holding inserts back meanwhile (PointPartitionsRepository.create).
   */
  async function create (months: readonly Month[], live: readonly Month[], report: PartitionsReport): Promise<void> {
    const existing = new Set((await repos.pointPartitions.months()).map((m) => m.start))
    const hot = new Set(live.map((m) => m.start))
    const wanted = [...new Map(months.map((m) => [m.start, m])).values()].sort((a, b) => a.start - b.start)
    for (const month of wanted) {
      if (existing.has(month.start)) continue
      const moved = await inTransaction(async (r) => await r.pointPartitions.create(month, { holdInserts: hot.has(month.start) }))
      if (moved === undefined) continue // another process made it meanwhile
      report.created.push(monthTag(month))
      report.movedPoints += moved
    }
  }

  async function deleteMessages (before: number): Promise<number> {
    let deleted = 0
    let after: string | null = null
    for (;;) {
      const chunk: { lastUid: string | null, deleted: number } = await repos.pointPartitions.deleteMessagesBefore(before, after, MESSAGE_CHUNK)
      deleted += chunk.deleted
      if (chunk.lastUid === null) return deleted
      after = chunk.lastUid
    }
  }

  return {
    /**
     * One run of the job: expired partitions dropped (DETACH + DROP), expired points of the default partition and
     * expired device messages deleted, then the partitions of the months ahead and of the months the default
     * partition holds created, each taking that month's points out of the default partition.
     * @throws the store's error (a lock not obtained within its timeout...): the next run does what is left
     */
    async upkeep (): Promise<PartitionsReport> {
      const now = clock.now()
      const horizon = retentionHorizon(now, retentionDays)
      const report: PartitionsReport = { created: [], dropped: [], movedPoints: 0, deletedPoints: 0, deletedMessages: 0 }
      if (horizon !== undefined) {
        for (const month of expired(await repos.pointPartitions.months(), horizon)) {
          if (await inTransaction(async (r) => await r.pointPartitions.drop(month))) report.dropped.push(monthTag(month))
        }
        report.deletedPoints = await repos.pointPartitions.deleteDefaultBefore(horizon)
        report.deletedMessages = await deleteMessages(horizon)
      }
      const range = onDemandRange(now, horizon)
      const ahead = monthsAhead(now, horizon)
      await create([...ahead, ...await repos.pointPartitions.defaultMonths(range.from, range.to)], ahead, report)
      if (report.created.length + report.dropped.length + report.deletedPoints + report.deletedMessages > 0) {
        log?.info({ partitions: report }, 'points partitions kept up')
      }
      return report
    },

    /**
     * The partitions of the months around now (previous to two ahead), created before the service takes device
     * traffic, so that its points never wait in the default partition for the job's first run. Quick unless the
     * default partition holds many points of those months (the first start after migration 0020 moves them now).
     */
    async ensureAhead (): Promise<PartitionsReport> {
      const now = clock.now()
      const report: PartitionsReport = { created: [], dropped: [], movedPoints: 0, deletedPoints: 0, deletedMessages: 0 }
      const ahead = monthsAhead(now, retentionHorizon(now, retentionDays))
      await create(ahead, ahead, report)
      if (report.created.length > 0) log?.info({ partitions: report }, 'points partitions created')
      return report
    },

    /** Partitions for every month that [from, to) touches (a bulk load creates them before writing). */
    async ensureMonths (from: number, to: number): Promise<PartitionsReport> {
      const report: PartitionsReport = { created: [], dropped: [], movedPoints: 0, deletedPoints: 0, deletedMessages: 0 }
      if (to > from) await create(monthsBetween(monthOf(from), monthOf(to - 1)), monthsAhead(clock.now(), undefined), report)
      return report
    }
  }
}

export type PointPartitionsService = ReturnType<typeof createPointPartitionsService>
