import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { SystemsService } from '../../core/services/systems/systems.service.js'
import { sendEmpty } from '../reply.js'
import { CompanyQuery, errors, Page, UidParams } from '../schemas/common.schema.js'
import { DeleteQuery, SystemBody, SystemFindQuery, SystemOptionView, SystemView } from '../schemas/systems.schema.js'

export interface SystemsRoutesOptions { systems: SystemsService }

/** fleet-api.md §Systems: find, create, edit, delete, details, options. */
const systemsRoutes: FastifyPluginAsyncTypebox<SystemsRoutesOptions> = async (app, { systems }) => {
  app.get('/systems', {
    config: { right: 'entities.systems.view' },
    schema: { tags: ['systems'], summary: 'Find systems', querystring: SystemFindQuery, response: { 200: Page(SystemView), ...errors } }
  }, async (req) => await systems.find(req.access, req.query))

  app.post('/systems', {
    config: { right: 'entities.systems.create' },
    schema: { tags: ['systems'], summary: 'Create a system', querystring: CompanyQuery, body: SystemBody, response: { 200: SystemView, ...errors } }
  }, async (req) => await systems.create(req.access, req.body))

  app.get('/systems/:uid', {
    config: { right: 'entities.systems.view' },
    schema: { tags: ['systems'], summary: 'System details', params: UidParams, querystring: CompanyQuery, response: { 200: SystemView, ...errors } }
  }, async (req) => await systems.details(req.access, req.params.uid))

  app.put('/systems/:uid', {
    config: { right: 'entities.systems.edit' },
    schema: { tags: ['systems'], summary: 'Edit a system', params: UidParams, querystring: CompanyQuery, body: SystemBody, response: { 200: SystemView, ...errors } }
  }, async (req) => await systems.edit(req.access, req.params.uid, req.body))

  app.delete('/systems/:uid', {
    config: { right: 'entities.systems.delete' },
    schema: { tags: ['systems'], summary: 'Delete a system', params: UidParams, querystring: DeleteQuery, response: errors }
  }, async (req, reply) => { await systems.remove(req.access, req.params.uid, req.query); return await sendEmpty(reply) })

  app.get('/systems/:uid/network/options', {
    config: { right: 'entities.systems.view' },
    schema: { tags: ['systems'], summary: 'Network options of a system', params: UidParams, querystring: CompanyQuery, response: { 200: Type.Array(SystemOptionView), ...errors } }
  }, async (req) => await systems.options(req.access, req.params.uid))
}

export default systemsRoutes
