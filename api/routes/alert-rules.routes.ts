import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AlertServices } from '../../core/services/alerts/index.js'
import { CompanyQuery, Empty, errors } from '../schemas/common.schema.js'
import { AlertRuleBody, AlertRuleParams, AlertRuleView, HookBody, HookParams, HookView } from '../schemas/alert-rules.schema.js'
import { sendEmpty } from '../reply.js'
import { Type } from 'typebox'

export interface AlertRulesRoutesOptions { alerts: AlertServices }

// No right of its own names alert rules: reading them needs what reading systems needs, changing them what editing
// systems needs (docs/alerts.md#rights).
const VIEW = 'entities.systems.view'
const EDIT = 'entities.systems.edit'
const UNKNOWN = 'Another company\'s rule answers alert.rule.unknown, as an unknown uid does.'
const INVALID = 'alert.rule.invalid names the field first, then why; nothing is changed.'

/** docs/alerts.md#rules: the AirVantage v2 alert rules, under /api/v2. */
export const alertRulesV2Routes: FastifyPluginAsyncTypebox<AlertRulesRoutesOptions> = async (app, { alerts }) => {
  const { rules } = alerts
  app.get('/alertrules', {
    config: { right: VIEW },
    schema: { tags: ['alerts'], summary: 'Alert rules', description: 'Every rule of the context company, oldest first, as a bare JSON array.', querystring: CompanyQuery, response: { 200: Type.Array(AlertRuleView), ...errors } }
  }, async (req) => await rules.list(req.access))

  app.post('/alertrules', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Create an alert rule', description: `Answers the rule with its uid and defaults; the calling user owns it. ${INVALID} alert.rule.too.many: the company has ALERT_RULES_PER_COMPANY rules.`, querystring: CompanyQuery, body: AlertRuleBody, response: { 200: AlertRuleView, ...errors } }
  }, async (req) => await rules.create(req.access, req.actor, req.body))

  app.get('/alertrules/:id', {
    config: { right: VIEW },
    schema: { tags: ['alerts'], summary: 'An alert rule', description: UNKNOWN, params: AlertRuleParams, querystring: CompanyQuery, response: { 200: AlertRuleView, ...errors } }
  }, async (req) => await rules.get(req.access, req.params.id))

  app.put('/alertrules/:id', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Replace an alert rule', description: `The body replaces the rule whole (a field left out takes its default); its owner stays. ${INVALID} ${UNKNOWN}`, params: AlertRuleParams, querystring: CompanyQuery, body: AlertRuleBody, response: { 200: AlertRuleView, ...errors } }
  }, async (req) => await rules.update(req.access, req.params.id, req.body))

  app.delete('/alertrules/:id', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Delete an alert rule', description: `Deletes the rule with its hooks and alerts; answers an empty body. ${UNKNOWN}`, params: AlertRuleParams, querystring: CompanyQuery, response: { 200: Empty, ...errors } }
  }, async (req, reply) => { await rules.remove(req.access, req.params.id); return await sendEmpty(reply) })
}

/** docs/alerts.md#hooks: a rule's hooks, under /api/v1 (the v1 rules themselves: alert-rules-v1.routes.ts). */
export const alertRulesV1Routes: FastifyPluginAsyncTypebox<AlertRulesRoutesOptions> = async (app, { alerts }) => {
  const { hooks } = alerts
  app.post('/alerts/rules/:id/hooks', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Add a hook to an alert rule', description: `Each alert of the rule is POSTed to the callback, as operation callbacks are. callback.invalid: not an http(s) URL; callback.forbidden: a loopback, link-local or private address (unless CALLBACK_ALLOW_PRIVATE). ${UNKNOWN}`, params: AlertRuleParams, querystring: CompanyQuery, body: HookBody, response: { 200: HookView, ...errors } }
  }, async (req) => await hooks.add(req.access, req.params.id, req.body))

  app.get('/alerts/rules/:id/hooks', {
    config: { right: VIEW },
    schema: { tags: ['alerts'], summary: 'Hooks of an alert rule', description: `Oldest first, as a bare JSON array. ${UNKNOWN}`, params: AlertRuleParams, querystring: CompanyQuery, response: { 200: Type.Array(HookView), ...errors } }
  }, async (req) => await hooks.list(req.access, req.params.id))

  app.delete('/alerts/rules/:id/hooks/:uid', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Delete a hook of an alert rule', description: `Answers an empty body. alert.hook.unknown: not one of the rule's hooks. ${UNKNOWN}`, params: HookParams, querystring: CompanyQuery, response: { 200: Empty, ...errors } }
  }, async (req, reply) => { await hooks.remove(req.access, req.params.id, req.params.uid); return await sendEmpty(reply) })
}
