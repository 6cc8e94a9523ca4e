// The records of installs whose device task ended without the device's answer (docs/protocols/lwm2m.md#installs):
// a task timed out or cancelled is closed by the operations engine, which knows nothing of LwM2M, so this module
// removes their rows on its own period (an answered install removes its own at once).
import type { PeriodicJob } from '../../core/operations/jobs.js'
import type { Logger } from '../../core/logger.js'
import type { Lwm2mRepository } from './lwm2m.port.js'

/** Hourly: such rows are few (one per install timed out or cancelled) and mislead nothing while they wait. */
export const PRUNE_EVERY_MS = 3_600_000

export function createInstallPrune (deps: { store: Pick<Lwm2mRepository, 'pruneInstalls'>, log: Pick<Logger, 'info'> }): PeriodicJob {
  return {
    everyMs: PRUNE_EVERY_MS,
    async run () {
      const removed = await deps.store.pruneInstalls()
      if (removed > 0) deps.log.info({ removed }, 'records of ended LwM2M installs removed')
    }
  }
}
