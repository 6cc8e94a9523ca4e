// Request durations for Prometheus (issue 8, Operability), labelled by the route pattern (/api/v1/systems/:uid), never
// the raw URL, so that uids and query strings do not make one series each.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { MetricsRegistry } from '../../core/metrics.js'
import type { ShedReason } from './overload.js'

export interface HttpMetrics {
  /** Counts a request refused by load shedding. */
  shed (reason: ShedReason): void
}

/** The HTTP metrics of one API instance; register() adds the timing hook to the app. */
export function createHttpMetrics (metrics: MetricsRegistry): HttpMetrics & { register: (app: FastifyInstance) => Promise<void> } {
  const durations = metrics.histogram<'method' | 'route' | 'status'>({
    name: 'fleet_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status, and how long they took to answer',
    labels: ['method', 'route', 'status']
  })
  const shed = metrics.counter<'reason'>({
    name: 'fleet_http_requests_shed_total',
    help: 'HTTP requests refused with 503 by load shedding, by signal',
    labels: ['reason']
  })
  const plugin = fp(async (app: FastifyInstance) => {
    app.addHook('onResponse', async (req, reply) => {
      // An unknown URL has no pattern: one series for all of them.
      const route = req.routeOptions.url ?? 'unmatched'
      durations.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000)
    })
  }, { name: 'http-metrics' })
  return {
    shed: (reason) => { shed.inc({ reason }) },
    register: async (app) => { await app.register(plugin) }
  }
}
