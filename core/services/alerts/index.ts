// The alert rules' services (docs/alerts.md): the rules and their hooks, on one repository, and the alerts they raised.
import type { AlertRulesRepository } from '../../ports/alert-rules.js'
import type { AlertsRepository } from '../../ports/alerts.js'
import type { CallbackGuard } from '../../operations/callback-guard.js'
import type { Clock } from '../../ports/store.js'
import { createAlertRulesService } from './alert-rules.service.js'
import { createAlertHooksService } from './alert-hooks.service.js'
import { createAlertsService } from './alerts.service.js'
import { createAlertRulesV1Service } from './alert-rules-v1.service.js'

export function createAlertServices (deps: { rules: AlertRulesRepository, alerts: AlertsRepository, clock: Clock, guard: CallbackGuard, perCompany: number }) {
  const rules = createAlertRulesService(deps)
  return {
    rules,
    /** The same rules through AirVantage's v1 calls (airvantage.js). */
    rulesV1: createAlertRulesV1Service({ rules }),
    hooks: createAlertHooksService({ ...deps, owned: rules.owned }),
    alerts: createAlertsService(deps)
  }
}

export type AlertServices = ReturnType<typeof createAlertServices>
