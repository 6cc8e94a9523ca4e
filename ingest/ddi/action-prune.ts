// Ended actions removed (docs/protocols/ddi.md#action-ids): an action's row (its id and the controller's last
// feedback) serves while its task is open, and a little after, when a controller's late or repeated feedback on it is
// still answered 200. Device tasks themselves are kept, so the DDI module removes its rows on its own period.
import type { PeriodicJob } from '../../core/operations/jobs.js'
import type { Logger } from '../../core/logger.js'
import type { DdiRepository } from './ddi.port.js'

/** How long an ended action is kept after its task ended (answered, withdrawn or timed out). */
export const ENDED_ACTION_KEEP_MS = 7 * 86_400_000
/** The job runs hourly: the table holds at most an hour of actions past their week. */
export const PRUNE_EVERY_MS = 3_600_000

export function createActionPrune (deps: { store: Pick<DdiRepository, 'pruneEnded'>, now: () => number, log: Pick<Logger, 'info'> }): PeriodicJob {
  return {
    everyMs: PRUNE_EVERY_MS,
    async run () {
      const removed = await deps.store.pruneEnded(deps.now() - ENDED_ACTION_KEEP_MS)
      if (removed > 0) deps.log.info({ removed }, 'ended DDI actions removed')
    }
  }
}
