import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AlertServices } from '../../core/services/alerts/index.js'
import { CompanyQuery, errors } from '../schemas/common.schema.js'
import { AlertParams, AlertStatesQuery, AlertStateView, AlertsQuery, AlertView } from '../schemas/alerts.schema.js'

export interface AlertsRoutesOptions { alerts: AlertServices }

// As the rules (docs/alerts.md#rights): reading alerts needs what reading systems needs; acknowledging one changes
// what the company's operators see of its systems, so it needs what editing systems needs.
const VIEW = 'entities.systems.view'
const EDIT = 'entities.systems.edit'
const PAGED = 'offset (default 0) and size (default 100, at most 500) page it.'

/** docs/alerts.md#alerts: the alerts the rules raised and their states, under /api/v2. */
export const alertsV2Routes: FastifyPluginAsyncTypebox<AlertsRoutesOptions> = async (app, { alerts: { alerts } }) => {
  app.get('/alerts', {
    config: { right: VIEW },
    schema: { tags: ['alerts'], summary: 'Alerts', description: `The context company's alerts passing every filter given, newest first, as a bare JSON array; ${PAGED} invalid.timerange: dateBefore not later than dateAfter.`, querystring: AlertsQuery, response: { 200: Type.Array(AlertView), ...errors } }
  }, async (req) => await alerts.find(req.access, req.query))

  app.get('/alertstates', {
    config: { right: VIEW },
    schema: { tags: ['alerts'], summary: 'Alert states', description: `One entry per rule and system the rule was evaluated for: whether its conditions hold (state), the latest change first, as a bare JSON array; ${PAGED}`, querystring: AlertStatesQuery, response: { 200: Type.Array(AlertStateView), ...errors } }
  }, async (req) => await alerts.states(req.access, req.query))

  app.post('/alerts/:uid/acknowledge', {
    config: { right: EDIT },
    schema: { tags: ['alerts'], summary: 'Acknowledge an alert', description: 'Marks the alert acknowledged by the caller (acknowledgedBy: the user\'s uid, or the API client\'s id without a user) and answers it. Repeated, it changes nothing: the first acknowledgement stays. alert.unknown: no such alert in the context company (another company\'s answers the same).', params: AlertParams, querystring: CompanyQuery, response: { 200: AlertView, ...errors } }
  }, async (req) => await alerts.acknowledge(req.access, req.actor, req.params.uid))
}
