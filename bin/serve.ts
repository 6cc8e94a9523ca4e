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
import { bootstrapStore, createContext, openInfra, type Infrastructure } from './context.js'

export interface Service {
  ctx: AppContext
  api: FastifyInstance
  mqtt: MqttIngest
  bootstrap: BootstrapResult
  /** Starts listening: HTTP (API, REST devices, MQTT over WebSocket) and MQTT over TCP. */
  listen (ports: { http: number, mqtt: number, host?: string }): Promise<{ httpPort: number, mqttPort: number }>
  close (): Promise<void>
}

// conventions.md §Data: commStatus follows the expected period; checking every 30 s is precise enough for periods
// counted in minutes or hours.
const COMM_SWEEP_MS = 30_000
// Operation timeouts are looked for this often (conventions.md §Operations: operation.timeout).
const TIMEOUT_SWEEP_MS = 5_000

/** Builds every part of the service on the given infrastructure, nothing listening yet (tests use it on port 0). */
export async function assembleService (config: Readonly<Config>, log: Logger, infra: Infrastructure): Promise<Service> {
  const ctx = createContext(config, log, infra)
  const boot = await bootstrapStore(ctx, infra.db)
  const { ingest, devices } = ctx.services
  const pendingTasks = async (s: DeviceSession): Promise<string | undefined> => {
    const tasks = await ingest.pendingTasks(s.systemUid)
    return tasks.length === 0 ? undefined : JSON.stringify(tasks)
  }
  const mqtt = await createMqttIngest({ devices, ingest, log, now: infra.clock.now, pendingTasks })
  const api = await buildApi(ctx, {
    plugins: [
      async (app) => { await app.register(deviceRoutes, { devices, ingest, now: infra.clock.now }) },
      async (app) => { await app.register(mqttWebSocketRoutes, { mqtt }) }
    ]
  })
  // Operation workers run in every process that serves (shared/design.md: one process by default).
  const { engine } = ctx.services.operations
  await engine.work(config.WORKER_CONCURRENCY)
  await engine.recover()
  const timeouts = setInterval(() => { engine.sweepTimeouts().catch((err: unknown) => { log.warn({ err }, 'timeout sweep failed') }) }, TIMEOUT_SWEEP_MS)
  timeouts.unref()
  let sweeper: NodeJS.Timeout | undefined
  let closing: Promise<void> | undefined
  return {
    ctx,
    api,
    mqtt,
    bootstrap: boot,
    async listen (ports) {
      const host = ports.host ?? config.HTTP_HOST
      await api.listen({ port: ports.http, host })
      const address = api.server.address()
      const httpPort = typeof address === 'object' && address !== null ? address.port : ports.http
      const mqttPort = await mqtt.listen(ports.mqtt, host).catch((err: NodeJS.ErrnoException) => {
        // Another broker often holds 1883 already: say which variable moves the embedded one.
        if (err.code === 'EADDRINUSE') throw new Error(`MQTT_PORT ${ports.mqtt} is already in use (another MQTT broker?): set MQTT_PORT to a free port`)
        throw err
      })
      sweeper = setInterval(() => { ctx.services.sweepCommStatus().catch((err: unknown) => { log.warn({ err }, 'comm status sweep failed') }) }, COMM_SWEEP_MS)
      sweeper.unref()
      return { httpPort, mqttPort }
    },
    async close () {
      // Stop accepting (HTTP, MQTT), let what was accepted be committed, then close the store.
      closing ??= (async () => {
        clearInterval(sweeper)
        clearInterval(timeouts)
        await api.close()
        await mqtt.close()
        await ingest.drain()
        await ctx.close()
      })()
      await closing
    }
  }
}

export interface Running extends Service { httpPort: number, mqttPort: number }

/** Starts every part of the service in this process on the configured ports. */
export async function startService (config: Readonly<Config>, log: Logger): Promise<Running> {
  const infra = await openInfra(config, log)
  const service = await assembleService(config, log, infra)
  try {
    const ports = await service.listen({ http: config.HTTP_PORT, mqtt: config.MQTT_PORT })
    return { ...service, ...ports }
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
