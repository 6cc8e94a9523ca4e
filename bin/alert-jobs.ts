// The alert rules' repeatable jobs (decision 0032; docs/alerts.md#how-rules-are-evaluated), declared beside the
// engine's as extra periodic work: each runs once per period in whichever worker process of the cluster claims it.
import type { Config } from '../core/config.js'
import type { ExtraPeriodicJobs } from '../core/operations/jobs.js'
import type { AlertChecks } from '../core/services/alerts/alert-checks.service.js'

// The sweep looks for alerts pending past their grace period (PENDING_GRACE_MS) as often as that period is long: an
// alert whose notification a killed process never queued waits at most about twice the grace.
const SWEEP_MS = 30_000

/** alerts.check every ALERT_CHECK_S seconds, and alerts.sweep. */
export function alertJobs (config: Pick<Config, 'ALERT_CHECK_S'>, checks: Pick<AlertChecks, 'check' | 'sweep'>): ExtraPeriodicJobs {
  return {
    'alerts.check': { everyMs: config.ALERT_CHECK_S * 1000, run: async () => { await checks.check() } },
    'alerts.sweep': { everyMs: SWEEP_MS, run: async () => { await checks.sweep() } }
  }
}
