import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApplicationsService } from '../../core/services/applications.service.js'
import { CompanyQuery, errors, Page } from '../schemas/common.schema.js'
import { ApplicationCreateBody, ApplicationFindQuery, ApplicationUidParams, ApplicationView } from '../schemas/systems.schema.js'

export interface ApplicationsRoutesOptions { applications: ApplicationsService }

/** The application catalogue (issue: Systems): discover public and company applications, add the company's own. */
const applicationsRoutes: FastifyPluginAsyncTypebox<ApplicationsRoutesOptions> = async (app, { applications }) => {
  app.get('/applications', {
    config: { right: 'entities.applications.view' },
    schema: { tags: ['applications'], summary: 'Find applications', description: 'Public applications and the context company\'s own, matching every filter given.', querystring: ApplicationFindQuery, response: { 200: Page(ApplicationView), ...errors } }
  }, async (req) => await applications.find(req.access, req.query))

  app.get('/applications/:uid', {
    config: { right: 'entities.applications.view' },
    schema: {
      tags: ['applications'],
      summary: 'An application',
      description: 'A public application or one of the context company\'s own; any other uid answers 400 application.unknown.',
      params: ApplicationUidParams,
      querystring: CompanyQuery,
      response: { 200: ApplicationView, ...errors }
    }
  }, async (req) => await applications.get(req.access, req.params.uid))

  app.post('/applications', {
    config: { right: 'entities.applications.create' },
    schema: { tags: ['applications'], summary: 'Create a company application', description: 'An application only the context company sees: the protocols it speaks, its data and its actions (reboot, reset, connect).', querystring: CompanyQuery, body: ApplicationCreateBody, response: { 200: ApplicationView, ...errors } }
  }, async (req) => await applications.create(req.access, req.body))
}

export default applicationsRoutes
