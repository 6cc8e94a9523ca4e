import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { PartsService } from '../../core/services/parts.service.js'
import { errors, Page } from '../schemas/common.schema.js'
import { GatewayFindQuery, GatewayView, SubscriptionFindQuery, SubscriptionView } from '../schemas/parts.schema.js'

export interface PartsRoutesOptions { parts: PartsService }

// docs/api.md gives gateways and subscriptions no endpoint rows: they are parts of systems, so reading them needs
// what reading systems needs.
const VIEW = 'entities.systems.view'

/** GET /api/v1/gateways and GET /api/v1/subscriptions: look the company's gateways and SIMs up by identifier. */
const partsRoutes: FastifyPluginAsyncTypebox<PartsRoutesOptions> = async (app, { parts }) => {
  app.get('/gateways', {
    config: { right: VIEW },
    schema: {
      tags: ['systems'],
      summary: 'Find gateways',
      description: 'The context company\'s gateways, found by uid, imei, serialNumber or macAddress (exact match). A client looks its gateway up here before it creates its system.',
      querystring: GatewayFindQuery,
      response: { 200: Page(GatewayView), ...errors }
    }
  }, async (req) => await parts.gateways(req.access, req.query))

  app.get('/subscriptions', {
    config: { right: VIEW },
    schema: {
      tags: ['systems'],
      summary: 'Find subscriptions',
      description: 'The context company\'s subscriptions (SIMs), found by uid, identifier, mobileNumber, networkIdentifier or operator (exact match).',
      querystring: SubscriptionFindQuery,
      response: { 200: Page(SubscriptionView), ...errors }
    }
  }, async (req) => await parts.subscriptions(req.access, req.query))
}

export default partsRoutes
