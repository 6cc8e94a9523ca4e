import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TemplatesService } from '../../core/services/templates.service.js'
import { CompanyQuery, errors, Page } from '../schemas/common.schema.js'
import { TemplateCreateBody, TemplateFindQuery, TemplateView } from '../schemas/templates.schema.js'

export interface TemplatesRoutesOptions { templates: TemplatesService }

/**
 * Setting templates: a client finds here the templateId to apply. Viewing needs the right to view systems,
 * creating the right to apply settings (what a template is for).
 */
const templatesRoutes: FastifyPluginAsyncTypebox<TemplatesRoutesOptions> = async (app, { templates }) => {
  app.get('/templates', {
    config: { right: 'entities.systems.view' },
    schema: { tags: ['templates'], summary: 'Find setting templates', description: 'The context company\'s setting templates, by name.', querystring: TemplateFindQuery, response: { 200: Page(TemplateView), ...errors } }
  }, async (req) => await templates.find(req.access, req.query))

  app.post('/templates', {
    config: { right: 'entities.systems.settings.apply' },
    schema: {
      tags: ['templates'],
      summary: 'Create a setting template',
      description: 'A named list of settings of the context company, for apply settings (templateId). The name is unique in the company (template.not.unique); a key given twice answers operation.invalid.multiple.entries.for.same.key.',
      querystring: CompanyQuery,
      body: TemplateCreateBody,
      response: { 200: TemplateView, ...errors }
    }
  }, async (req) => await templates.create(req.access, req.body))
}

export default templatesRoutes
