import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AlertServices } from '../../core/services/alerts/index.js'
import { CompanyQuery, errors } from '../schemas/common.schema.js'
import { AlertRuleParams } from '../schemas/alert-rules.schema.js'
import { AlertRuleV1Body, AlertRuleV1Page, AlertRuleV1View, AlertRulesV1Query, NoContent } from '../schemas/alert-rules-v1.schema.js'

export interface AlertRulesV1RoutesOptions { alerts: AlertServices }

// The rights of the v2 rules (docs/alerts.md#rights): these are the same rules.
const VIEW = 'entities.systems.view'
const EDIT = 'entities.systems.edit'
const SAME = 'The same rules as /api/v2/alertrules, in AirVantage\'s v1 shape (the calls of airvantage.js).'
const INVALID = 'alert.rule.invalid names the field (a v1 field as sent, or the v2 field it maps to), then why; nothing is changed.'
const UNKNOWN = 'Another company\'s rule answers alert.rule.unknown, as an unknown uid does.'

/** docs/alerts.md#v1-rules: AirVantage's v1 alert-rule calls, under /api/v1, on the v2 rules. */
export const alertRulesV1CompatRoutes: FastifyPluginAsyncTypebox<AlertRulesV1RoutesOptions> = async (app, { alerts }) => {
  const { rulesV1 } = alerts
  app.get('/alerts/rules', {
    config: { right: VIEW },
    schema: { tags: ['alerts'], summary: 'Alert rules (v1)', description: `${SAME} Every rule of the context company, oldest first, as a page.`, querystring: AlertRulesV1Query, response: { 200: AlertRuleV1Page, ...errors } }
  }, async (req) => await rulesV1.list(req.access, req.query))

  app.post('/alerts/rules', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Create an alert rule (v1)', description: `${SAME} What a v1 rule does not say takes the v2 default. ${INVALID} alert.rule.too.many: the company has ALERT_RULES_PER_COMPANY rules.`, querystring: CompanyQuery, body: AlertRuleV1Body, response: { 200: AlertRuleV1View, ...errors } }
  }, async (req) => await rulesV1.create(req.access, req.actor, req.body))

  app.put('/alerts/rules/:id', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Edit an alert rule (v1)', description: `${SAME} Only the fields given change; the others, and the v2 fields v1 has no name for (actions, metadata...), stay. ${INVALID} ${UNKNOWN}`, params: AlertRuleParams, querystring: CompanyQuery, body: AlertRuleV1Body, response: { 200: AlertRuleV1View, ...errors } }
  }, async (req) => await rulesV1.update(req.access, req.params.id, req.body))

  // 204, where the other deletes answer an empty 200: airvantage.js sends this DELETE expecting JSON, and reads an
  // empty body as an error unless the status is 204 (No Content).
  app.delete('/alerts/rules/:id', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Delete an alert rule (v1)', description: `${SAME} Deletes the rule with its hooks and alerts; answers 204 No Content. ${UNKNOWN}`, params: AlertRuleParams, querystring: CompanyQuery, response: { 204: NoContent, ...errors } }
  }, async (req, reply) => { await rulesV1.remove(req.access, req.params.id); return await reply.status(204).send() })
}
