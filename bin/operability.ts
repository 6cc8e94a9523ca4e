// What GET /ready checks and the device gauges of GET /metrics, wired from the parts they look at (docs/monitoring.md).
import type { ReadinessCheck } from '../api/routes/health.routes.js'
import type { MetricsRegistry } from '../core/metrics.js'
import type { Db } from '../core/ports/store.js'
import type { DeviceTransport } from '../ingest/transport.js'
import { pendingMigrations } from '../storage/migrate.js'

/** The store answers, every migration is applied, every transport's own listener accepts connections. */
export function readinessChecks (db: Db, transports: readonly DeviceTransport[]): ReadinessCheck[] {
  const listeners = transports.flatMap((t) => t.listeners ?? [])
  return [
    { name: 'store', check: async () => (await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one === 1 },
    { name: 'migrations', check: async () => (await pendingMigrations(db)).length === 0 },
    ...listeners.map((l) => ({ name: l.name, check: async () => l.listening() }))
  ]
}

/** Connections of every transport, labelled by its protocol and the kind it reports (the MQTT version...). */
export function registerDeviceGauges (metrics: MetricsRegistry, transports: readonly DeviceTransport[]): void {
  metrics.gauge<'protocol' | 'version'>({
    name: 'fleet_devices_connected',
    help: 'Device connections authenticated now, by protocol and version',
    labels: ['protocol', 'version'],
    collect: () => transports.flatMap((t) => t.connections().map((c) => ({ labels: { protocol: t.protocols[0] ?? t.name, version: c.kind }, value: c.count })))
  })
}
