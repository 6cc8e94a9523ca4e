// GET /metrics: the Prometheus exposition (docs/monitoring.md). Open unless METRICS_TOKEN is set; then it needs
// `Authorization: Bearer <METRICS_TOKEN>` (a scraper's bearer_token), compared in constant time.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { MetricsRegistry } from '../../core/metrics.js'
import { FleetError } from '../../core/errors.js'
import { sha256 } from '../../core/security/secrets.js'
import '../types.js'

export interface MetricsRoutesOptions { metrics: MetricsRegistry, token: string | undefined }

function sameSecret (given: string, expected: string): boolean {
  // Hashes first: timingSafeEqual needs equal lengths, and the length of the token must not leak either.
  return timingSafeEqual(Buffer.from(sha256(given), 'hex'), Buffer.from(sha256(expected), 'hex'))
}

export default async function metricsRoutes (app: FastifyInstance, opts: MetricsRoutesOptions): Promise<void> {
  // Said once at start: the exposition names companies' traffic and the service's internals to whoever asks.
  if (opts.token === undefined) app.log.warn('GET /metrics is open to anyone who reaches the HTTP port: set METRICS_TOKEN to require a token')
  app.get('/metrics', { config: { public: true, shed: false }, schema: { hide: true } }, async (req, reply) => {
    if (opts.token !== undefined) {
      const header = req.headers.authorization ?? ''
      const given = /^bearer /i.test(header) ? header.slice(7).trim() : ''
      if (!sameSecret(given, opts.token)) throw new FleetError('invalid_token', [], { message: 'the metrics token is required' })
    }
    const { contentType, body } = await opts.metrics.scrape()
    return await reply.type(contentType).send(body)
  })
}
