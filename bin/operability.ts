// What GET /ready checks and the device gauges of GET /metrics, wired from the parts they look at (issue 8, Operability).
import type { ReadinessCheck } from '../api/routes/health.routes.js'
import type { MetricsRegistry } from '../core/metrics.js'
import type { Db } from '../core/ports.js'
import type { MqttIngest } from '../ingest/mqtt/mqtt-ingest.js'
import { pendingMigrations } from '../storage/migrate.js'

/** The store answers, every migration is applied, the MQTT listener accepts connections. */
export function readinessChecks (db: Db, mqtt: Pick<MqttIngest, 'listening'>): ReadinessCheck[] {
  return [
    { name: 'store', check: async () => (await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one === 1 },
    { name: 'migrations', check: async () => (await pendingMigrations(db)).length === 0 },
    { name: 'mqtt', check: async () => mqtt.listening() }
  ]
}

export function registerDeviceGauges (metrics: MetricsRegistry, mqtt: Pick<MqttIngest, 'connected'>): void {
  metrics.gauge<'protocol' | 'version'>({
    name: 'fleet_devices_connected',
    help: 'Device connections authenticated now, by protocol and version',
    labels: ['protocol', 'version'],
    collect: () => mqtt.connected().map((c) => ({ labels: { protocol: 'MQTT', version: c.version }, value: c.count }))
  })
}
