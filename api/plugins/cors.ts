// CORS for browser applications (docs/monitoring.md): CORS_ORIGINS lists the origins allowed to call the API (or '*');
// unset, no CORS header is sent and browsers keep other origins out. Registered before every route, so a preflight
// (OPTIONS with Origin and Access-Control-Request-Method) is answered before authentication, rate limits and shedding.
import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

export interface CorsOptions { origins: string[] | '*' | undefined }

export default fp(async (app: FastifyInstance, opts: CorsOptions) => {
  if (opts.origins === undefined) return
  await app.register(cors, {
    origin: opts.origins === '*' ? '*' : opts.origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // Bearer tokens travel in Authorization (docs/api.md#get-a-token); no cookies, so no credentials mode.
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
    maxAge: 600
  })
}, { name: 'cors' })
