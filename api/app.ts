import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import formbody from '@fastify/formbody'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import websocket from '@fastify/websocket'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AppContext } from '../core/context.js'
import errorHandler, { frameworkError, MAX_PATH_PARAM_LENGTH } from './plugins/error-handler.js'
import inputGuard from './plugins/input-guard.js'
import jsonBody from './plugins/json-body.js'
import { redactedRequest } from './log-serializers.js'
import { RequestLogController } from './request-log.js'
import auth from './plugins/auth.js'
import { openapiOptions } from './openapi.js'
import { sharedSchemas } from './schemas/common.schema.js'
import oauthRoutes from './routes/oauth.routes.js'
import authorizeRoutes from './routes/oauth-authorize.routes.js'
import usersRoutes from './routes/users.routes.js'
import companiesRoutes from './routes/companies.routes.js'
import systemsRoutes from './routes/systems.routes.js'
import applicationsRoutes from './routes/applications.routes.js'
import templatesRoutes from './routes/templates.routes.js'
import operationsRoutes from './routes/operations.routes.js'
import partsRoutes from './routes/parts.routes.js'
import dataRoutes from './routes/data.routes.js'
import messagesRoutes from './routes/messages.routes.js'
import usageRoutes from './routes/usage.routes.js'
import healthRoutes, { type ReadinessCheck } from './routes/health.routes.js'
import metricsRoutes from './routes/metrics.routes.js'
import streamRoutes from './routes/stream.routes.js'
import currentCompaniesRoutes from './routes/current-companies.routes.js'
import consoleRoutes from './console/console.routes.js'
import faviconRoute from './favicon.js'
import packageDownloadRoutes from './routes/package-downloads.routes.js'
import certificatesRoutes from './routes/certificates.routes.js'
import { alertRulesV1Routes, alertRulesV2Routes } from './routes/alert-rules.routes.js'
import { alertsV2Routes } from './routes/alerts.routes.js'
import { alertRulesV1CompatRoutes } from './routes/alert-rules-v1.routes.js'
import corsPlugin from './plugins/cors.js'
import overload from './plugins/overload.js'
import { createHttpMetrics } from './plugins/http-metrics.js'
import { isTrustedProxy } from '../core/domain/trusted-proxies.js'
import { pageHeaders, swaggerCsp } from './page-headers.js'
import { lazySerializers, lazyValidator } from './schema-compilers.js'

export interface ApiOptions {
  /**
   * Serve the API (on by default): OAuth, /api/v1 and its docs. Off in a process without the `api` role,
   * which keeps health, readiness, metrics and the device-facing routes.
   */
  api?: boolean
  /** Serve the OpenAPI document and Swagger UI (on by default). */
  docs?: boolean
  /** More routes at the root, outside /api/v1 (the device-facing endpoints of ingest/, wired by bin/). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>
  /** What GET /ready checks (the store, the migrations, the device listeners: wired by bin/serve.ts). */
  readiness?: readonly ReadinessCheck[]
}

/** The server with its logger, request ids, router options, trusted proxies and validators; nothing registered. */
function createServer (ctx: AppContext) {
  const app = Fastify({
    // Request lines write URLs with their secret parameters masked (log-serializers.ts).
    loggerInstance: ctx.log.child({}, { serializers: { req: redactedRequest } }) as FastifyBaseLogger,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Device routes log their request lines at debug (api/request-log.ts).
    logController: new RequestLogController(),
    requestTimeout: 60_000,
    // `/api//v1/users/current` is `/api/v1/users/current` (the Clojure AirVantage client joins paths that way).
    routerOptions: { ignoreDuplicateSlashes: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: (err, _req, reply) => frameworkError(err, reply),
    // request.ip is the X-Forwarded-For client only when the peer (and each hop before it) is a TRUST_PROXY
    // address: anyone else could write the header and pass for another address (sign-in throttling, IP filters).
    trustProxy: (address: string) => isTrustedProxy(address, ctx.config.TRUST_PROXY),
    // Response serializers compiled on a route's first answer, once per process (api/schema-compilers.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } }
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Validators likewise: query strings and path parameters coerced to their schema types, JSON bodies never.
  app.setValidatorCompiler(lazyValidator)
  return app
}

/**
 * What every process serves, in this order: request ids and errors, CORS, HTTP metrics, shedding, health, readiness
 * and metrics, WebSocket upgrades and the body parsers.
 */
async function registerCommon (app: FastifyInstance, ctx: AppContext, opts: ApiOptions): Promise<void> {
  app.addHook('onSend', async (req, reply) => { reply.header('x-request-id', req.id) })
  await app.register(errorHandler)
  // The error bodies every route references (api/schemas/common.schema.ts), with or without the docs.
  for (const schema of sharedSchemas) app.addSchema(schema)
  // Operability: CORS first so that every answer (a shed one too) carries its headers, then timing, then
  // shedding; health, readiness and metrics sit outside /api/v1, so no token and no rate limit.
  await app.register(corsPlugin, { origins: ctx.config.CORS_ORIGINS })
  const httpMetrics = createHttpMetrics(ctx.metrics)
  await httpMetrics.register(app)
  await app.register(overload, {
    maxEventLoopDelayMs: ctx.config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapMb: ctx.config.OVERLOAD_MAX_HEAP_MB,
    maxInFlight: ctx.config.OVERLOAD_MAX_IN_FLIGHT,
    maxQueueMs: ctx.config.OVERLOAD_MAX_QUEUE_MS,
    targetMs: ctx.config.OVERLOAD_TARGET_MS,
    retryAfterS: ctx.config.OVERLOAD_RETRY_AFTER_S,
    onShed: httpMetrics.shed,
    onAdmission: httpMetrics.admission
  })
  await app.register(healthRoutes, { checks: opts.readiness ?? [] })
  await app.register(metricsRoutes, { metrics: ctx.metrics, token: ctx.config.METRICS_TOKEN })
  // WebSocket once for the whole server (the live stream here, MQTT over WebSocket in ingest/mqtt/ws.routes.ts): each
  // registration listens to the server's upgrades, and two would route every upgrade twice. 2 MiB: MQTT's payloads.
  await app.register(websocket, { options: { maxPayload: 2 * 1024 * 1024 } })
  await app.register(inputGuard)
  await app.register(jsonBody)
  await app.register(formbody)
}

/** The OpenAPI document and Swagger UI at /api/docs. */
async function registerDocs (app: FastifyInstance): Promise<void> {
  await app.register(swagger, openapiOptions)
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    uiConfig: { docExpansion: 'list' },
    staticCSP: true,
    transformStaticCSP: swaggerCsp,
    uiHooks: { onRequest: (_req, reply, done) => { pageHeaders(reply); done() } }
  })
}

/** The routes of /api/v1, behind the bearer token (the docs and the OAuth endpoints stay outside this scope). */
async function registerV1 (v1: FastifyInstance, ctx: AppContext, rate: { rateCounter: AppContext['rateCounter'], ratePerSecond: number }): Promise<void> {
  await v1.register(auth, { auth: ctx.services.auth, companies: ctx.services.companiesRepo, ...rate })
  await v1.register(usersRoutes, { users: ctx.services.users })
  await v1.register(currentCompaniesRoutes)
  await v1.register(companiesRoutes, { companies: ctx.services.companies, pictures: ctx.services.companyPicture })
  await v1.register(systemsRoutes, { systems: ctx.services.systems })
  await v1.register(certificatesRoutes, { certificates: ctx.services.certificates })
  await v1.register(dataRoutes, { data: ctx.services.data })
  await v1.register(messagesRoutes, { messages: ctx.services.data.messages })
  await v1.register(usageRoutes, { usage: ctx.services.usage })
  await v1.register(applicationsRoutes, { applications: ctx.services.applications, packages: ctx.services.applicationPackages, operations: ctx.services.operations })
  await v1.register(templatesRoutes, { templates: ctx.services.templates })
  await v1.register(operationsRoutes, { operations: ctx.services.operations })
  await v1.register(partsRoutes, { parts: ctx.services.parts })
  await v1.register(alertRulesV1CompatRoutes, { alerts: ctx.services.alerts })
  await v1.register(alertRulesV1Routes, { alerts: ctx.services.alerts })
  await v1.register(streamRoutes, {
    stream: ctx.services.stream,
    auth: ctx.services.auth,
    companies: ctx.services.companiesRepo,
    ...rate,
    maxBufferBytes: ctx.config.STREAM_MAX_BUFFER_BYTES,
    recheckMs: ctx.config.STREAM_RECHECK_MS,
    corsOrigins: ctx.config.CORS_ORIGINS,
    publicUrl: ctx.config.PUBLIC_URL
  })
}

/** The HTTP API, built but not listening (docs/architecture.md#house-rules: build, don't listen). */
export async function buildApi (ctx: AppContext, opts: ApiOptions = {}): Promise<FastifyInstance> {
  const app = createServer(ctx)
  await registerCommon(app, ctx, opts)
  if (opts.api === false) {
    for (const plugin of opts.plugins ?? []) await app.register(plugin)
    return app
  }
  if (opts.docs !== false) await registerDocs(app)
  const rate = { rateCounter: ctx.rateCounter, ratePerSecond: ctx.config.RATE_LIMIT_PER_S }
  await app.register(oauthRoutes, { prefix: '/api/oauth', auth: ctx.services.auth, ...rate })
  await app.register(authorizeRoutes, { prefix: '/api/oauth', auth: ctx.services.auth, ...rate, publicUrl: ctx.config.PUBLIC_URL, httpHost: ctx.config.HTTP_HOST })
  await app.register(async (v1) => { await registerV1(v1, ctx, rate) }, { prefix: '/api/v1' })
  // AirVantage's v2 resources (the alert rules and alerts), behind the same bearer token as /api/v1.
  await app.register(async (v2) => {
    await v2.register(auth, { auth: ctx.services.auth, companies: ctx.services.companiesRepo, ...rate })
    await v2.register(alertRulesV2Routes, { alerts: ctx.services.alerts })
    await v2.register(alertsV2Routes, { alerts: ctx.services.alerts })
  }, { prefix: '/api/v2' })
  // The web console: served where the API is, bundled on first use.
  await app.register(consoleRoutes, { publicUrl: ctx.config.PUBLIC_URL, httpHost: ctx.config.HTTP_HOST })
  await app.register(faviconRoute)
  await app.register(packageDownloadRoutes, { downloads: ctx.services.downloads, artifacts: ctx.artifacts })
  for (const plugin of opts.plugins ?? []) await app.register(plugin)
  return app
}
