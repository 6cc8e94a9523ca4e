// POST /api/v1/operations/applications/release (docs/packages.md#release-and-publish): the body is the package itself,
// read as it arrives by core/services/applications-packages.service.ts. Clients send it as application/zip,
// application/octet-stream, application/json or with no type at all, with a length or chunked: no body parser of this
// scope reads it, whatever its type, and the ZIP is recognised by its first bytes.
import type { FastifyPluginAsync } from 'fastify'
import type { OperationsService } from '../../core/operations/service.js'
import type { ApplicationPackagesService } from '../../core/services/applications-packages.service.js'
import { OPERATION_RIGHTS } from '../../core/operations/rights.js'
import { CompanyQuery, errors } from '../schemas/common.schema.js'
import { OperationRef } from '../schemas/operations.schema.js'
import { ClientGone } from '../plugins/overload.js'

export interface ApplicationReleaseRoutesOptions { operations: Pick<OperationsService, 'kinds'>, packages: ApplicationPackagesService }

const PACKAGE = { schema: { description: 'The ZIP itself: its *.app models, the fragments they include, their binaries' } }

const applicationReleaseRoutes: FastifyPluginAsync<ApplicationReleaseRoutesOptions> = async (app, { operations, packages }) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_req, _payload, done) => { done(null) })

  for (const kind of operations.kinds) {
    if (kind.route.upload !== 'zip') continue
    app.post(kind.route.path, {
      // A package arrives at its client's pace (hundreds of MiB): the request takes an admission place once it is in.
      config: { right: OPERATION_RIGHTS[kind.type], admitAfterBody: true },
      schema: {
        tags: ['operations'],
        summary: kind.route.summary,
        description: `${kind.route.description} Answers the uid of the created operation once the package is read; follow it with GET /api/v1/operations/{uid} and its tasks.`,
        querystring: CompanyQuery,
        body: { content: { 'application/zip': PACKAGE, 'application/octet-stream': PACKAGE, 'application/json': PACKAGE } },
        response: { 200: OperationRef, ...errors }
      }
    }, async (req, reply) => {
      let answer
      try {
        answer = await packages.release(req.access, req.actor, req.raw, req.admit)
      } catch (err) {
        // Its client went away while it sent the package: nobody to answer.
        if (err instanceof ClientGone) return reply
        throw err
      }
      // A refused body (not a ZIP, too large) is not read further: the connection closes once the answer is sent.
      if (!req.raw.complete) reply.header('connection', 'close')
      return answer
    })
  }
}

export default applicationReleaseRoutes
