// One try of an alert's hook (the alert.hook job, docs/alerts.md#hooks): delivered as operation callbacks are
// (CallbackSender: the signature of CALLBACK_SECRET, Basic auth from the URL's password, the address rules checked at
// each try), and retried on the same schedule (callbackRetryDelay), one job per hook and try.
import type { Logger } from '../../logger.js'
import type { Clock } from '../../ports/store.js'
import type { JobQueue } from '../../ports/queue.js'
import { callbackRetryDelay, type CallbackSender } from '../../ports/notify.js'
import type { ModuleJobs } from '../../operations/jobs.js'

export interface HookDeliveryDeps {
  queue: Pick<JobQueue<ModuleJobs>, 'enqueue'>
  callbacks: CallbackSender
  clock: Clock
  log: Logger
  /** CALLBACK_RETRY_BASE_MS */
  callbackRetryBaseMs?: number | undefined
}

type HookJob = ModuleJobs['alert.hook']

/** The job id of one try: a second queueing of a try still waiting is a no-op. */
export const hookJobId = (p: Pick<HookJob, 'alertUid' | 'hookUid' | 'attempt'>): string => `alert-hook:${p.alertUid}:${p.hookUid}:${p.attempt}`

export function createHookDelivery ({ queue, callbacks, clock, log, callbackRetryBaseMs }: HookDeliveryDeps) {
  return {
    /** Queues the first try. */
    async queue (p: Omit<HookJob, 'attempt'>): Promise<void> {
      const job = { ...p, attempt: 1 }
      await queue.enqueue('alert.hook', job, { jobId: hookJobId(job), attempts: 1 })
    },
    /** One try; a retryable failure queues the next one, until the tries are spent. */
    async deliver (p: HookJob): Promise<void> {
      const result = await callbacks.send(p.url, JSON.stringify(p.event))
      if (result.outcome === 'delivered') return
      const delay = result.outcome === 'retryable' ? callbackRetryDelay(p.attempt, callbackRetryBaseMs) : undefined
      if (delay === undefined) {
        log.warn({ alert: p.alertUid, hook: p.hookUid, outcome: result.outcome, reason: result.reason, attempt: p.attempt }, 'alert hook given up')
        return
      }
      const next = { ...p, attempt: p.attempt + 1 }
      await queue.enqueue('alert.hook', next, { jobId: hookJobId(next), runAt: clock.now() + delay, attempts: 1 })
    }
  }
}
