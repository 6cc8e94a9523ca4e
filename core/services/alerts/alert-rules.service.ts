// Alert rules through the API (docs/alerts.md#rules): a company's rules in the AirVantage v2 shape, created, read,
// replaced and deleted. Another company's rule answers alert.rule.unknown exactly as an unknown uid does.
import { FleetError } from '../../errors.js'
import type { Actor } from '../../domain/actor.js'
import type { AlertRule } from '../../domain/alert-rule.js'
import { validAlertRule } from '../../domain/alert-rule-validate.js'
import { dataIdsOf, needsPeriodicCheck } from '../../domain/alert-conditions.js'
import { pinnedSystemsOf } from '../../domain/alert-targets.js'
import type { AlertRulesRepository, AlertRuleWrite, StoredAlertRule } from '../../ports/alert-rules.js'
import type { Clock } from '../../ports/store.js'
import type { CompanyAccess } from '../access.js'
import { newUid } from '../../security/secrets.js'

export interface AlertRulesServiceDeps {
  rules: AlertRulesRepository
  clock: Clock
  /** ALERT_RULES_PER_COMPANY */
  perCompany: number
}

/**
 * What a rule is stored with: the data ids whose points the evaluation checks it on, whether the periodic job
 * checks it instead (it names no data id, or time alone changes its answer: decision 0031), and the systems it is
 * pinned to (decision 0032).
 */
function writeOf (rule: AlertRule, companyUid: string, ownerUid: string | null, at: number): AlertRuleWrite {
  const dataIds = dataIdsOf(rule.conditions)
  const periodic = dataIds.length === 0 || needsPeriodicCheck(rule.conditions)
  return { rule, companyUid, ownerUid, dataIds, periodic, systemUids: pinnedSystemsOf(rule.conditions), at }
}

export function createAlertRulesService ({ rules, clock, perCompany }: AlertRulesServiceDeps) {
  /** The context company's rule. @throws alert.rule.unknown (another company's answers the same) */
  async function owned (access: CompanyAccess, uid: string): Promise<StoredAlertRule> {
    const found = await rules.get(access.company.uid, uid)
    if (found === undefined) throw new FleetError('alert.rule.unknown', [uid])
    return found
  }

  return {
    owned,
    async list (access: CompanyAccess): Promise<AlertRule[]> {
      return (await rules.list(access.company.uid)).map((s) => s.rule)
    },
    async get (access: CompanyAccess, uid: string): Promise<AlertRule> { return (await owned(access, uid)).rule },

    /**
     * A new rule of the context company, owned by the calling user (none for an API client without one, as an
     * operation records no user then): it will run under the owner's rights.
     * @throws alert.rule.invalid, alert.rule.too.many
     */
    async create (access: CompanyAccess, actor: Actor, body: unknown): Promise<AlertRule> {
      const rule = validAlertRule(body, newUid())
      if (!await rules.insertWithin(writeOf(rule, access.company.uid, actor.userUid, clock.now()), perCompany)) {
        throw new FleetError('alert.rule.too.many', [access.company.uid, String(perCompany)])
      }
      return rule
    },

    /** Replaces the rule whole (what the body leaves out takes its default); its owner stays. @throws alert.rule.unknown, alert.rule.invalid */
    async update (access: CompanyAccess, uid: string, body: unknown): Promise<AlertRule> {
      const before = await owned(access, uid)
      const rule = validAlertRule(body, uid)
      if (!await rules.update(writeOf(rule, access.company.uid, before.ownerUid, clock.now()))) throw new FleetError('alert.rule.unknown', [uid])
      return rule
    },

    /** Deletes the rule with its hooks and alerts. @throws alert.rule.unknown */
    async remove (access: CompanyAccess, uid: string): Promise<void> {
      if (!await rules.delete(access.company.uid, uid)) throw new FleetError('alert.rule.unknown', [uid])
    }
  }
}

export type AlertRulesService = ReturnType<typeof createAlertRulesService>
