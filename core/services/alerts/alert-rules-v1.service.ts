// AirVantage's v1 alert rules (docs/alerts.md#v1-rules): the calls airvantage.js makes on /api/v1/alerts/rules,
// served on the same rules as /api/v2/alertrules. Nothing is kept in the v1 shape: a v1 body is read as the v2 body it
// stands for (core/domain/alert-rule-v1.ts) and goes through the v2 service, its checks and its limit.
import type { Actor } from '../../domain/actor.js'
import { v1ViewOf, v2BodyOf, type AlertRuleV1 } from '../../domain/alert-rule-v1.js'
import { fields as pickFields, page, pick } from '../../domain/lists.js'
import type { CompanyAccess } from '../access.js'
import type { AlertRulesService } from './alert-rules.service.js'

const V1_FIELDS = ['uid', 'name', 'description', 'active', 'stateful', 'conditions', 'recipients'] as const

export interface AlertRulesV1Query { offset?: number, size?: number, fields?: string | string[] }

export interface AlertRulesV1Page { items: Array<Partial<AlertRuleV1>>, count: number, size: number, offset: number }

export function createAlertRulesV1Service ({ rules }: { rules: AlertRulesService }) {
  return {
    /** Every rule of the company, oldest first, as a v1 page. A company holds at most ALERT_RULES_PER_COMPANY rules. */
    async list (access: CompanyAccess, q: AlertRulesV1Query): Promise<AlertRulesV1Page> {
      const all = await rules.list(access)
      const { offset, size } = page(q.offset, q.size)
      const chosen = pickFields(q.fields, V1_FIELDS, V1_FIELDS)
      const items = all.slice(offset, offset + size).map((r) => pick(v1ViewOf(r), chosen))
      return { items, count: all.length, size: items.length, offset }
    },

    /** @throws alert.rule.invalid, alert.rule.too.many */
    async create (access: CompanyAccess, actor: Actor, body: unknown): Promise<AlertRuleV1> {
      return v1ViewOf(await rules.create(access, actor, v2BodyOf(body)))
    },

    /** Changes what the body names and keeps the rest (v2 fields included). @throws alert.rule.unknown, alert.rule.invalid */
    async update (access: CompanyAccess, uid: string, body: unknown): Promise<AlertRuleV1> {
      const before = await rules.get(access, uid)
      return v1ViewOf(await rules.update(access, uid, v2BodyOf(body, before)))
    },

    /** @throws alert.rule.unknown */
    async remove (access: CompanyAccess, uid: string): Promise<void> { await rules.remove(access, uid) }
  }
}

export type AlertRulesV1Service = ReturnType<typeof createAlertRulesV1Service>
