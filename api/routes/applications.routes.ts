import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApplicationsService } from '../../core/services/applications.service.js'
import type { ApplicationPackagesService } from '../../core/services/applications-packages.service.js'
import type { OperationsService } from '../../core/operations/service.js'
import applicationReleaseRoutes from './applications-release.routes.js'
import type { CompanyAccess } from '../../core/services/access.js'
import type { CommunicationEntry, DataNode } from '../../core/domain/application-model.js'
import { CommunicationSchema, DataTreeSchema } from '../../core/schemas/application-model.schema.js'
import { sendEmpty } from '../reply.js'
import { CompanyQuery, Empty, errors, Page } from '../schemas/common.schema.js'
import { ApplicationCreateBody, ApplicationFindQuery, ApplicationUidParams, ApplicationView } from '../schemas/applications.schema.js'

export interface ApplicationsRoutesOptions {
  applications: ApplicationsService
  /** Release from a package and delete (docs/packages.md#release-and-publish). */
  packages: ApplicationPackagesService
  operations: Pick<OperationsService, 'kinds'>
}

// Changing an application needs the right that creating one needs (docs/api.md#applications-and-templates).
const EDIT_RIGHT = 'entities.applications.create'

/**
 * The application catalogue (docs/api.md#systems) and its model: discover public and company applications,
 * add the company's own, and set what their devices understand.
 */
const applicationsRoutes: FastifyPluginAsyncTypebox<ApplicationsRoutesOptions> = async (app, { applications, packages, operations }) => {
  app.get('/applications', {
    config: { right: 'entities.applications.view' },
    schema: { tags: ['applications'], summary: 'Find applications', description: 'Public applications and the context company\'s own, matching every filter given.', querystring: ApplicationFindQuery, response: { 200: Page(ApplicationView), ...errors } }
  }, async (req) => await applications.find(req.access, req.query))

  app.get('/applications/:uid', {
    config: { right: 'entities.applications.view' },
    schema: {
      tags: ['applications'],
      summary: 'An application',
      description: 'A public application or one of the context company\'s own, with its communication and data tree; any other uid answers 400 application.unknown.',
      params: ApplicationUidParams,
      querystring: CompanyQuery,
      response: { 200: ApplicationView, ...errors }
    }
  }, async (req) => await applications.get(req.access, req.params.uid))

  app.post('/applications', {
    config: { right: EDIT_RIGHT },
    schema: { tags: ['applications'], summary: 'Create a company application', description: 'An application only the context company sees: the protocols it speaks (communication) and what its devices understand (data: nodes, variables, settings, commands, actions).', querystring: CompanyQuery, body: ApplicationCreateBody, response: { 200: ApplicationView, ...errors } }
  }, async (req) => await applications.create(req.access, {
    ...req.body,
    communication: req.body.communication as CommunicationEntry[] | undefined,
    data: req.body.data as DataNode[] | undefined
  }))

  // The two parts of the model (docs/api.md#applications-and-templates): each PUT replaces its part and answers an
  // empty body.
  const parts = [
    {
      part: 'data',
      summary: 'Set the data of an application',
      description: 'Replaces the data tree of one of the context company\'s applications and answers an empty body. A data id is the dot-joined ids from the top node down (node config with setting reportPeriodS: config.reportPeriodS), so ids hold no dot and siblings have different ids (request.invalid naming the field). Only nodes have children, only actions an actionType (REBOOT, RESET, CONNECT), only commands parameters. A public application or another company\'s answers application.unknown.',
      body: DataTreeSchema,
      set: async (access: CompanyAccess, uid: string, body: unknown) => { await applications.setData(access, uid, body as DataNode[]) }
    },
    {
      part: 'communication',
      summary: 'Set the communication of an application',
      description: 'Replaces the protocols one of the context company\'s applications speaks and answers an empty body. Each protocol at most once (request.invalid); MSCI parameters: access (snmp, acemanager), port, snmpVersion (2c, 3), pollPeriodS; M3DA parameters: encryption (none, aes-cbc-128, aes-cbc-256, aes-ctr-128, aes-ctr-256), authentication. A public application or another company\'s answers application.unknown.',
      body: CommunicationSchema,
      set: async (access: CompanyAccess, uid: string, body: unknown) => { await applications.setCommunication(access, uid, body as CommunicationEntry[]) }
    }
  ]
  for (const { part, summary, description, body, set } of parts) {
    app.put(`/applications/:uid/${part}`, {
      config: { right: EDIT_RIGHT },
      schema: { tags: ['applications'], summary, description, params: ApplicationUidParams, querystring: CompanyQuery, body, response: { 200: Empty, ...errors } }
    }, async (req, reply) => {
      await set(req.access, req.params.uid, req.body)
      return await sendEmpty(reply)
    })
  }

  app.delete('/applications/:uid', {
    config: { right: EDIT_RIGHT },
    schema: {
      tags: ['applications'],
      summary: 'Delete an application',
      description: 'Deletes one of the context company\'s applications, its binaries, and the stored bytes no other application uses; answers an empty body. Refused with application.in.use while an operation not yet finished names it (an install, a publish) or while systems have it; a public application or another company\'s answers application.unknown.',
      params: ApplicationUidParams,
      querystring: CompanyQuery,
      response: { 200: Empty, ...errors }
    }
  }, async (req, reply) => {
    await packages.remove(req.access, req.params.uid)
    return await sendEmpty(reply)
  })

  // The release reads its body itself: in a scope of its own, without the JSON body parser.
  await app.register(applicationReleaseRoutes, { operations, packages })
}

export default applicationsRoutes
