import type { FastifyInstance } from 'fastify'
import type { Config } from '../core/config.js'
import type { Logger } from '../core/logger.js'
import type { AppContext } from '../core/context.js'
import type { BootstrapResult } from '../core/services/bootstrap.service.js'
import type { DeviceSession } from '../core/services/ingest/devices.service.js'
import { buildApi } from '../api/app.js'
import { createMqttIngest, type MqttIngest } from '../ingest/mqtt/mqtt-ingest.js'
import mqttWebSocketRoutes from '../ingest/mqtt/ws.routes.js'
import deviceRoutes from '../ingest/rest/device.routes.js'
import { readinessChecks, registerDeviceGauges } from './operability.js'
import { bootstrapStore, createContext, openInfra, type Infrastructure } from './context.js'
import { portFailure } from './start-failure.js'

export interface Service {
  ctx: AppContext
  api: FastifyInstance
  mqtt: MqttIngest
  /** Starts listening: HTTP (API, REST devices, MQTT over WebSocket) and MQTT over TCP. */
  listen (ports: { http: number, mqtt: number, host?: string }): Promise<{ httpPort: number, mqttPort: number }>
  close (): Promise<void>
}

// conventions.md §Data: commStatus follows the expected period; checking every 30 s is precise enough for periods
// counted in minutes or hours.
const COMM_SWEEP_MS = 30_000
// Operation timeouts are looked for this often (conventions.md §Operations: operation.timeout).
const TIMEOUT_SWEEP_MS = 5_000

/**
 * Builds every part of the service on the given infrastructure, nothing listening yet (tests use it on port 0).
 * With bootstrap (the default) the first company, administrator and client are created now when the store is empty;
 * startService instead creates them once every port is bound (see there).
 */
export async function assembleService (config: Readonly<Config>, log: Logger, infra: Infrastructure, opts: { bootstrap?: boolean } = {}): Promise<Service> {
  const ctx = createContext(config, log, infra)
  if (opts.bootstrap !== false) await bootstrapStore(ctx, infra.db)
  const { ingest, devices } = ctx.services
  const pendingTasks = async (s: DeviceSession): Promise<string | undefined> => {
    const tasks = await ingest.pendingTasks(s.systemUid)
    return tasks.length === 0 ? undefined : JSON.stringify(tasks)
  }
  const mqtt = await createMqttIngest({ devices, ingest, log, now: infra.clock.now, pendingTasks })
  registerDeviceGauges(ctx.metrics, mqtt)
  const api = await buildApi(ctx, {
    readiness: readinessChecks(infra.db, mqtt),
    plugins: [
      async (app) => { await app.register(deviceRoutes, { devices, ingest, now: infra.clock.now }) },
      async (app) => { await app.register(mqttWebSocketRoutes, { mqtt }) }
    ]
  })
  // Operation workers run in every process that serves (shared/design.md: one process by default). The sweepers are
  // repeatable jobs of the queue, not timers: in a cluster each runs once per period, in whichever process claims it.
  // A failed sweep goes to the queue's onError (logged); the next period sweeps again.
  const { engine } = ctx.services.operations
  await engine.work(config.WORKER_CONCURRENCY, {
    'sweep.timeouts': { everyMs: TIMEOUT_SWEEP_MS, run: engine.sweepTimeouts },
    'sweep.comm-status': { everyMs: COMM_SWEEP_MS, run: async () => { await ctx.services.sweepCommStatus() } }
  })
  await engine.recover()
  let closing: Promise<void> | undefined
  return {
    ctx,
    api,
    mqtt,
    async listen (ports) {
      const host = ports.host ?? config.HTTP_HOST
      await api.listen({ port: ports.http, host }).catch((err: unknown) => { throw portFailure('HTTP_PORT', ports.http, host, err) })
      const address = api.server.address()
      const httpPort = typeof address === 'object' && address !== null ? address.port : ports.http
      // Another broker often holds 1883 already: the failure names the variable that moves the embedded one.
      const mqttPort = await mqtt.listen(ports.mqtt, host).catch((err: unknown) => { throw portFailure('MQTT_PORT', ports.mqtt, host, err) })
      return { httpPort, mqttPort }
    },
    async close () {
      // Stop accepting (HTTP, MQTT), let what was accepted be committed, then close the store.
      closing ??= (async () => {
        await api.close()
        await mqtt.close()
        await ingest.drain()
        await ctx.close()
      })()
      await closing
    }
  }
}

export interface Running extends Service { httpPort: number, mqttPort: number, bootstrap: BootstrapResult }

/**
 * Starts every part of the service in this process on the configured ports. Every port is bound before the first
 * company and administrator are created: a start that fails (a busy port) creates nothing, so the generated
 * password is never stored without being printed (the next start would otherwise have nothing to show).
 */
export async function startService (config: Readonly<Config>, log: Logger): Promise<Running> {
  const infra = await openInfra(config, log)
  const service = await assembleService(config, log, infra, { bootstrap: false })
  try {
    const ports = await service.listen({ http: config.HTTP_PORT, mqtt: config.MQTT_PORT })
    const bootstrap = await bootstrapStore(service.ctx, infra.db)
    return { ...service, ...ports, bootstrap }
  } catch (err) {
    await service.close()
    throw err
  }
}

/** What a newcomer needs after the first start: how to get a token. */
export function welcome (r: BootstrapResult, port: number): string {
  if (!r.created) return ''
  const lines = [
    `Created company "${r.companyName}", administrator ${r.adminEmail} and API client ${r.clientId}.`
  ]
  if (r.generatedPassword !== undefined) lines.push(`  administrator password (shown once): ${r.generatedPassword}`)
  if (r.generatedSecret !== undefined) lines.push(`  client secret (shown once):          ${r.generatedSecret}`)
  lines.push('Get a token:',
    `  curl -s "http://localhost:${port}/api/oauth/token?grant_type=password&username=${r.adminEmail}&password=<password>&client_id=${r.clientId}&client_secret=<secret>"`)
  return lines.join('\n')
}
