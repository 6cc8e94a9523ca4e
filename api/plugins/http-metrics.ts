// Request durations for Prometheus (docs/monitoring.md), labelled by the route pattern (/api/v1/systems/:uid), never
// the raw URL, so that uids and query strings do not make one series each.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { MetricsRegistry } from '../../core/metrics.js'
import type { ShedReason } from './overload.js'
import type { AdmissionStats } from './admission.js'

export interface HttpMetrics {
  /** Counts a request refused by load shedding. */
  shed (reason: ShedReason): void
  /** Reports the admission of API requests at each scrape: served, waiting, and the current limit. */
  admission (stats: () => AdmissionStats): void
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
  const admission = (stats: () => AdmissionStats): void => {
    metrics.gauge<'state'>({
      name: 'fleet_http_admission_requests',
      help: 'API requests being served (in_flight) and waiting for a place (waiting) under admission control',
      labels: ['state'],
      collect: () => { const s = stats(); return [{ labels: { state: 'in_flight' }, value: s.inFlight }, { labels: { state: 'waiting' }, value: s.waiting }] }
    })
    metrics.gauge({
      name: 'fleet_http_admission_limit',
      help: 'API requests admission control serves at once now (it adapts to their service time)',
      collect: () => [{ value: stats().limit }]
    })
  }
  return {
    shed: (reason) => { shed.inc({ reason }) },
    admission,
    register: async (app) => { await app.register(plugin) }
  }
}
