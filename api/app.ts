import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import formbody from '@fastify/formbody'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Ajv } from 'ajv'
import type { AppContext } from '../core/context.js'
import errorHandler from './plugins/error-handler.js'
import auth from './plugins/auth.js'
import oauthRoutes from './routes/oauth.routes.js'
import authorizeRoutes from './routes/oauth-authorize.routes.js'
import usersRoutes from './routes/users.routes.js'
import companiesRoutes from './routes/companies.routes.js'
import systemsRoutes from './routes/systems.routes.js'
import applicationsRoutes from './routes/applications.routes.js'
import operationsRoutes from './routes/operations.routes.js'
import dataRoutes from './routes/data.routes.js'
import messagesRoutes from './routes/messages.routes.js'

export interface ApiOptions {
  /** Serve the OpenAPI document and Swagger UI (on by default). */
  docs?: boolean
  /** More routes at the root, outside /api/v1 (the device-facing endpoints of ingest/, wired by bin/). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>
}

/** The HTTP API, built but not listening (shared/style.md §2.1: build, don't listen). */
export async function buildApi (ctx: AppContext, opts: ApiOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    requestTimeout: 60_000,
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Query strings and path parameters arrive as text and are coerced to their schema types; JSON bodies are typed
  // already and are never coerced (a coercing validator would turn null into "" in a string-or-null field).
  const queryAjv = new Ajv({ coerceTypes: 'array', removeAdditional: true, useDefaults: true, strict: false })
  const bodyAjv = new Ajv({ coerceTypes: false, removeAdditional: true, useDefaults: true, strict: false })
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema))

  app.addHook('onSend', async (req, reply) => { reply.header('x-request-id', req.id) })
  await app.register(errorHandler)
  await app.register(formbody)
  if (opts.docs !== false) {
    await app.register(swagger, {
      openapi: {
        info: { title: 'Fleet service API', version: '1', description: 'Users, companies, systems, data and bulk operations of a cellular IoT fleet.' },
        // Devices authenticate with HTTP Basic on /device/* (conventions.md §Devices), API callers with a bearer token.
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, basic: { type: 'http', scheme: 'basic' } } },
        security: [{ bearer: [] }]
      }
    })
    await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } })
  }
  const rate = { rateCounter: ctx.rateCounter, ratePerSecond: ctx.config.RATE_LIMIT_PER_S }
  await app.register(oauthRoutes, { prefix: '/api/oauth', auth: ctx.services.auth, ...rate })
  await app.register(authorizeRoutes, { prefix: '/api/oauth', auth: ctx.services.auth, ...rate })
  await app.register(async (v1) => {
    // Inside this scope only: the docs and the OAuth endpoints are open.
    await v1.register(auth, { auth: ctx.services.auth, companies: ctx.services.companiesRepo, ...rate })
    await v1.register(usersRoutes, { users: ctx.services.users })
    await v1.register(companiesRoutes, { companies: ctx.services.companies, pictures: ctx.services.companyPicture })
    await v1.register(systemsRoutes, { systems: ctx.services.systems })
    await v1.register(dataRoutes, { data: ctx.services.data })
    await v1.register(messagesRoutes, { messages: ctx.services.data.messages })
    await v1.register(applicationsRoutes, { applications: ctx.services.applications })
    await v1.register(operationsRoutes, { operations: ctx.services.operations })
  }, { prefix: '/api/v1' })
  for (const plugin of opts.plugins ?? []) await app.register(plugin)
  return app
}
