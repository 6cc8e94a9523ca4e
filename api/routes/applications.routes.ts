import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApplicationsService } from '../../core/services/applications.service.js'
import { CompanyQuery, errors, Page } from '../schemas/common.schema.js'
import { ApplicationCreateBody, ApplicationFindQuery, ApplicationView } from '../schemas/systems.schema.js'

export interface ApplicationsRoutesOptions { applications: ApplicationsService }

/** The application catalogue (issue: Systems): discover public and company applications, add the company's own. */
const applicationsRoutes: FastifyPluginAsyncTypebox<ApplicationsRoutesOptions> = async (app, { applications }) => {
  app.get('/applications', {
    config: { right: 'entities.applications.view' },
    schema: { tags: ['applications'], summary: 'Find applications', querystring: ApplicationFindQuery, response: { 200: Page(ApplicationView), ...errors } }
  }, async (req) => await applications.find(req.access, req.query))

  app.post('/applications', {
    config: { right: 'entities.applications.create' },
    schema: { tags: ['applications'], summary: 'Create a company application', querystring: CompanyQuery, body: ApplicationCreateBody, response: { 200: ApplicationView, ...errors } }
  }, async (req) => await applications.create(req.access, req.body))
}

export default applicationsRoutes
