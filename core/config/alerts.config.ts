// The configuration of alert rules (docs/alerts.md): how many a company may have, and how often the rules that time
// alone changes are evaluated.
import { int, type Env } from './values.js'

export interface AlertsConfig {
  /** Alert rules a company may have (docs/alerts.md#rules): one more answers alert.rule.too.many. */
  ALERT_RULES_PER_COMPANY: number
  /** Seconds between two runs of alerts.check, the evaluation of the rules time alone changes (docs/alerts.md). */
  ALERT_CHECK_S: number
}

export function alertsConfig (env: Env): AlertsConfig {
  return {
    ALERT_RULES_PER_COMPANY: int(env, 'ALERT_RULES_PER_COMPANY', 1000, 1, 1_000_000),
    ALERT_CHECK_S: int(env, 'ALERT_CHECK_S', 60, 1, 86_400)
  }
}
