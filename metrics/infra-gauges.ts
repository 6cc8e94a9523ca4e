// Gauges of the infrastructure the services run on (docs/monitoring.md): the store's connections and the job
// queue's depth, read at scrape time from the ports (core/ports/store.ts Db.poolStats, core/ports/queue.ts JobQueue.depth).
import type { MetricsRegistry } from '../core/metrics.js'
import type { Db } from '../core/ports/store.js'
import type { JobQueue } from '../core/ports/queue.js'

export function registerInfraGauges (metrics: MetricsRegistry, infra: { db: Db, queue: Pick<JobQueue, 'depth'> }): void {
  const stats = (): ReturnType<NonNullable<Db['poolStats']>> | undefined => infra.db.poolStats?.()
  metrics.gauge<'store' | 'state'>({
    name: 'fleet_store_pool_connections',
    help: 'Store connections by state (PostgreSQL pool: total, idle; PGlite: its one connection)',
    labels: ['store', 'state'],
    collect: () => {
      const s = stats()
      return s === undefined ? [] : [{ labels: { store: infra.db.kind, state: 'total' }, value: s.total }, { labels: { store: infra.db.kind, state: 'idle' }, value: s.idle }]
    }
  })
  metrics.gauge<'store'>({
    name: 'fleet_store_pool_waiting',
    help: 'Callers waiting for a store connection',
    labels: ['store'],
    collect: () => { const s = stats(); return s === undefined ? [] : [{ labels: { store: infra.db.kind }, value: s.waiting }] }
  })
  metrics.gauge<'store'>({
    name: 'fleet_store_queries_in_flight',
    help: 'Store statements and transactions running or queued for the connection',
    labels: ['store'],
    collect: () => { const s = stats(); return s === undefined ? [] : [{ labels: { store: infra.db.kind }, value: s.inFlight }] }
  })
  metrics.gauge<'state'>({
    name: 'fleet_queue_jobs',
    help: 'Jobs of the operations queue by state: waiting (due), delayed, active (running)',
    labels: ['state'],
    collect: async () => {
      const d = await infra.queue.depth()
      return [{ labels: { state: 'waiting' }, value: d.waiting }, { labels: { state: 'delayed' }, value: d.delayed }, { labels: { state: 'active' }, value: d.active }]
    }
  })
}
