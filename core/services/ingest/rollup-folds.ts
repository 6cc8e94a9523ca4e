// The fold of the rollup increments (docs/store.md#rollups; storage/migrations/0027_data_rollups_daily.sql):
// each ingest batch appends its points' hourly stats to data_rollup_deltas in its own transaction, and this folds
// them into the hourly and daily rollups within two seconds, one write per rollup row however many batches added to
// it (a batch every tenth of a second adds to a series twenty times between two folds, bench ingest).
// Aggregations add the increments not folded yet to what they read, so the fold's delay never shows in an answer;
// it only keeps the increments few. A fold is one transaction that deletes what it merges: stopped at any moment, it
// leaves every increment in exactly one place, and the next fold (here or in another ingest process) goes on.
import type { UnitOfWork } from '../../ports/store.js'
import type { TelemetryRepository } from '../../ports/telemetry.js'
import type { Logger } from '../../logger.js'

export interface RollupFoldsOptions {
  /** Delay between a commit and the fold that takes its increments (ms). */
  everyMs?: number
  /** Increments per fold transaction. */
  limit?: number
  /** Folds between two VACUUMs of the increments table (PGlite has no autovacuum). */
  vacuumEvery?: number
}

export function createRollupFolds ({ inTransaction, telemetry, log, options = {} }: {
  inTransaction: UnitOfWork
  /** Outside any transaction: VACUUM. */
  telemetry?: Pick<TelemetryRepository, 'vacuumRollupDeltas'>
  log: Logger
  options?: RollupFoldsOptions
}) {
  const everyMs = options.everyMs ?? 2000
  const limit = options.limit ?? 50_000
  const vacuumEvery = options.vacuumEvery ?? 30
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let folds = 0

  async function foldAll (): Promise<void> {
    for (;;) {
      const n = await inTransaction(async (tx) => await tx.telemetry.foldRollups(limit))
      if (n < limit) break
    }
    if (++folds % vacuumEvery === 0 && telemetry !== undefined) await telemetry.vacuumRollupDeltas()
  }

  /** Folds now what is waiting (after the fold in progress); resolves once done. A failure is logged, not thrown. */
  async function fold (): Promise<void> {
    clearTimeout(timer)
    timer = undefined
    running = running.then(async () => {
      try {
        await foldAll()
      } catch (err) {
        // The increments stay, counted by every aggregation, until a later fold takes them.
        log.warn({ err }, 'rollup increments not folded; the next fold takes them')
      }
    })
    await running
  }

  return {
    /** Points were committed: their increments are folded within `everyMs`. */
    note (): void {
      if (timer !== undefined) return
      timer = setTimeout(() => { fold().catch(() => {}) }, everyMs)
      timer.unref()
    },
    fold
  }
}

export type RollupFolds = ReturnType<typeof createRollupFolds>
