import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { UsageService } from '../../core/services/usage/usage.service.js'
import { CompanyQuery, errors, uidParams } from '../schemas/common.schema.js'
import { UsagePointsView, UsageRecordParams, UsageRecordsManyQuery, UsageRecordsQuery, UsageRecordsView, UsageRecordView } from '../schemas/usage.schema.js'

export interface UsageRoutesOptions { usage: UsageService }

// docs/api.md#systems gives entities.systems.view to the lists and "entities.system.view (as written)" to the
// detail: no such right exists elsewhere, so the detail asks for the lists' right.
const right = 'entities.systems.view'

/**
 * docs/usage.md. The static /systems/usages/records wins over the /systems/:uid parameter in the
 * router. The import that feeds them is an operation (core/operations/kinds/usage-import.ts).
 */
const usageRoutes: FastifyPluginAsyncTypebox<UsageRoutesOptions> = async (app, { usage }) => {
  app.get('/systems/:uid/usages/records', {
    config: { right },
    schema: { tags: ['data'], summary: 'Usage records of a system', description: 'Data sessions, SMS, calls and message units starting in [from, to), most recent first.', params: uidParams('uid of the system'), querystring: UsageRecordsQuery, response: { 200: UsageRecordsView, ...errors } }
  }, async (req) => await usage.list(req.access, req.params.uid, req.query))

  app.get('/systems/usages/records', {
    config: { right },
    schema: { tags: ['data'], summary: 'Usage records of several systems', description: 'For each system, its records by type, as {ts: start, v: {uid, end}}; size per system and type.', querystring: UsageRecordsManyQuery, response: { 200: UsagePointsView, ...errors } }
  }, async (req) => await usage.listMany(req.access, req.query))

  app.get('/systems/:uid/usages/records/:recordUid', {
    config: { right },
    schema: { tags: ['data'], summary: 'A usage record', description: 'The record of that uid; of a session with interim records, its final record (the latest interim one while the session is open).', params: UsageRecordParams, querystring: CompanyQuery, response: { 200: UsageRecordView, ...errors } }
  }, async (req) => await usage.get(req.access, req.params.uid, req.params.recordUid))
}

export default usageRoutes
