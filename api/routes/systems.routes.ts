import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { SystemsService } from '../../core/services/systems/systems.service.js'
import { sendEmpty } from '../reply.js'
import { CompanyQuery, Empty, errors, Page, uidParams } from '../schemas/common.schema.js'
import { DeleteQuery, SystemBody, SystemFindQuery, SystemListItem, SystemOptionView, SystemView } from '../schemas/systems.schema.js'

const SystemUid = uidParams('uid of the system')

export interface SystemsRoutesOptions { systems: SystemsService }

/** docs/api.md#systems: find, create, edit, delete, details, options. */
const systemsRoutes: FastifyPluginAsyncTypebox<SystemsRoutesOptions> = async (app, { systems }) => {
  app.get('/systems', {
    config: { right: 'entities.systems.view' },
    schema: {
      tags: ['systems'],
      summary: 'Find systems',
      description: 'The context company\'s systems matching every filter given, sorted by creation date unless orderBy says otherwise. Each item carries the attributes asked with `fields` (all when absent). Device passwords under communication are null for callers without entities.systems.edit.',
      querystring: SystemFindQuery,
      response: { 200: Page(SystemListItem), ...errors }
    }
  }, async (req) => await systems.find(req.access, req.query))

  app.post('/systems', {
    config: { right: 'entities.systems.create' },
    schema: {
      tags: ['systems'],
      summary: 'Create a system',
      description: 'Creates a system in INVENTORY, with a gateway and a subscription linked by uid or created from their identifiers, and answers it. Without a name, the gateway\'s serial number, IMEI or MAC address names it.',
      querystring: CompanyQuery,
      body: SystemBody,
      response: { 200: SystemView, ...errors }
    }
  }, async (req) => await systems.create(req.access, req.body))

  app.get('/systems/:uid', {
    config: { right: 'entities.systems.view' },
    schema: {
      tags: ['systems'],
      summary: 'System details',
      description: 'Every field of the system. Device passwords under communication are null for callers without entities.systems.edit.',
      params: SystemUid,
      querystring: CompanyQuery,
      response: { 200: SystemView, ...errors }
    }
  }, async (req) => await systems.details(req.access, req.params.uid))

  app.put('/systems/:uid', {
    config: { right: 'entities.systems.edit' },
    schema: {
      tags: ['systems'],
      summary: 'Edit a system',
      description: 'Changes the fields given (gateway, subscription and applications by uid) and answers the system.',
      params: SystemUid,
      querystring: CompanyQuery,
      body: SystemBody,
      response: { 200: SystemView, ...errors }
    }
  }, async (req) => await systems.edit(req.access, req.params.uid, req.body))

  app.delete('/systems/:uid', {
    config: { right: 'entities.systems.delete' },
    schema: {
      tags: ['systems'],
      summary: 'Delete a system',
      description: 'Deletes the system, and its gateway and subscription when asked; answers an empty body. The bulk delete operation does the same and stays in the history.',
      params: SystemUid,
      querystring: DeleteQuery,
      response: { 200: Empty, ...errors }
    }
  }, async (req, reply) => { await systems.remove(req.access, req.params.uid, req.query); return await sendEmpty(reply) })

  app.get('/systems/:uid/network/options', {
    config: { right: 'entities.systems.view' },
    schema: {
      tags: ['systems'],
      summary: 'Network options of a system',
      description: 'The options of the system\'s subscription (roaming, APN, LTE...).',
      params: SystemUid,
      querystring: CompanyQuery,
      response: { 200: Type.Array(SystemOptionView, { description: 'The options' }), ...errors }
    }
  }, async (req) => await systems.options(req.access, req.params.uid))
}

export default systemsRoutes
