import type { FastifyInstance } from 'fastify'
import { tlsEnabled, type Config } from '../core/config.js'
import type { Logger } from '../core/logger.js'
import type { AppContext } from '../core/context.js'
import type { BootstrapResult } from '../core/services/bootstrap.service.js'
import { LISTEN_BACKLOG, type DeviceTransport } from '../ingest/transport.js'
import { asModule, type ProtocolDeps, type ProtocolEntry } from '../ingest/protocol-module.js'
import { createCapabilities } from '../ingest/capabilities.js'
import { buildApi } from '../api/app.js'
import { readinessChecks, registerDeviceGauges } from './operability.js'
import { bootstrapStore, createContext, openInfra, type Infrastructure } from './context.js'
import { portFailure } from './start-failure.js'
import { transports as defaultTransports } from './transports.js'
import { brokerUpkeep, openBrokerSync } from './broker.js'
import { alertJobs } from './alert-jobs.js'
import { createTaskPushers } from '../core/services/ingest/task-pushers.js'
import type { TaskPushers } from '../core/ports/devices.js'
import { createRepositories } from '../storage/repositories/index.js'
import { createTlsListeners, type TlsListeners } from '../ingest/tls/tls-listeners.js'
import { createHttpsListener, type HttpsListener } from './https-listener.js'
import { followCertificates } from './certificate-events.js'

/**
 * The bound ports: HTTP (undefined with HTTP_PORT=off), HTTPS (undefined without TLS), and each transport listener on a
 * port of its own by its name ("mqtt", "mqtts", "m3da"...).
 */
export interface BoundPorts { httpPort: number | undefined, httpsPort: number | undefined, ports: Record<string, number> }

export interface Service {
  ctx: AppContext
  api: FastifyInstance
  /** The device transports, in the order of the protocols' list (bin/transports.ts). */
  transports: readonly DeviceTransport[]
  /**
   * The TLS listeners' context (TLS_CERT_FILE and TLS_KEY_FILE set): reload() on SIGHUP, setClientCAs() with the
   * companies' registered CAs.
   */
  tls: TlsListeners | undefined
  /**
   * Starts listening: HTTP and HTTPS (API and the transports' routes), then each transport's own ports, on the
   * configured ports (HTTP_PORT, HTTPS_PORT and each listener's variable); `anyPort`: every one on an ephemeral port
   * (tests, benchmarks).
   */
  listen (opts?: { host?: string, anyPort?: boolean }): Promise<BoundPorts>
  close (): Promise<void>
}

export interface AssembleOptions {
  bootstrap?: boolean
  /** The device protocols to run (default: bin/transports.ts). */
  transports?: readonly ProtocolEntry[]
}

// docs/devices.md: commStatus follows the expected period; checking every 30 s is precise enough for periods
// counted in minutes or hours.
const COMM_SWEEP_MS = 30_000
// Operation timeouts are looked for this often (docs/operations.md#bulk-operations: operation.timeout).
const TIMEOUT_SWEEP_MS = 5_000
// The points partitions are made two months ahead (core/domain/point-partitions.ts): hourly is ample for that, and
// takes the points of a device with an odd clock out of the default partition within the hour.
const PARTITIONS_MS = 3_600_000
const NO_CAS: ReadonlySet<string> = new Set()

/**
 * Builds every part of the service on the given infrastructure, nothing listening yet (tests use it on port 0).
 * With bootstrap (the default) the first company, administrator and client are created now when the store is empty;
 * startService instead creates them once every port is bound (see there).
 */
export async function assembleService (config: Readonly<Config>, log: Logger, infra: Infrastructure, opts: AssembleOptions = {}): Promise<Service> {
  // The task dispatch (core/services/ingest/task-dispatch.ts) is given the registry now; the transports, built below
  // after the services, register in it as pushers.
  const pushers = createTaskPushers()
  const brokerSync = openBrokerSync(config, infra.db, log)
  // Read now: a bad TLS file stops the start with its variable (fleet serve has checked them before the store too).
  // Its client CAs are the operator's, trusted by certificate logins for every company (docs/security.md).
  const tls = tlsEnabled(config) ? await createTlsListeners(config, log) : undefined
  const ctx = createContext(config, log, infra, { pushers, ...(brokerSync === undefined ? {} : { brokerSync }), operatorCAs: () => tls?.operatorCAs() ?? NO_CAS })
  if (opts.bootstrap !== false) await bootstrapStore(ctx, infra.db)
  // Before any device traffic: the points partitions of the months around now (the points.partitions job below
  // keeps them ahead afterwards).
  await ctx.services.pointPartitions.ensureAhead()
  const { ingest, devices } = ctx.services
  // Roles: every process builds the transports, so that any of them can deliver tasks (through the
  // external broker) and run the transports' jobs; only an ingest process accepts device traffic.
  const roles = new Set(config.FLEET_ROLES)
  const repos = createRepositories(infra.db, { rollups: config.DATA_ROLLUPS })
  const protocolDeps: ProtocolDeps = {
    config, devices, ingest, log, metrics: ctx.metrics, now: infra.clock.now, accept: roles.has('ingest'), db: infra.db, repos, capabilities: createCapabilities(), artifacts: ctx.artifacts, ...(tls === undefined ? {} : { tls })
  }
  const transports = await buildTransports(opts.transports ?? defaultTransports, protocolDeps, pushers)
  registerDeviceGauges(ctx.metrics, transports)
  const api = await buildApi(ctx, {
    api: roles.has('api'),
    readiness: readinessChecks(infra.db, roles.has('ingest') ? transports : []),
    plugins: (roles.has('ingest') ? transports : []).flatMap((t) => t.http === undefined ? [] : [t.http]).map((http) => async (app: FastifyInstance) => { await app.register(http) })
  })
  // Revocations close this process's device connections; the companies' CAs go to the TLS listeners.
  const stopCertificates = await followCertificates(ctx, tls, transports, log)
  // Operation workers run in every process with the worker role (one process by default: docs/cluster.md). The sweepers are
  // repeatable jobs of the queue, not timers: in a cluster each runs once per period, in whichever process claims it.
  // A failed sweep goes to the queue's onError (logged); the next period sweeps again.
  const { engine } = ctx.services.operations
  const broker = await brokerUpkeep(config, infra.db, ctx.services.certificates, brokerSync, log, roles.has('worker'))
  if (roles.has('worker')) {
    await engine.work(config.WORKER_CONCURRENCY, {
      'sweep.timeouts': { everyMs: TIMEOUT_SWEEP_MS, run: engine.sweepTimeouts },
      'sweep.comm-status': { everyMs: COMM_SWEEP_MS, run: async () => { await ctx.services.sweepCommStatus() } },
      'points.partitions': { everyMs: PARTITIONS_MS, run: async () => { await ctx.services.pointPartitions.upkeep() } }
    }, Object.assign({}, ...transports.map((t) => t.jobs ?? {}), broker.jobs, alertJobs(config, ctx.services.alertChecks)), ctx.services.alertNotify.handlers)
    await engine.recover()
  }
  const https = tls === undefined ? undefined : createHttpsListener(api, tls)
  let closing: Promise<void> | undefined
  return {
    ctx,
    api,
    transports,
    tls,
    async listen ({ host = config.HTTP_HOST, anyPort = false } = {}) {
      const { httpPort, httpsPort } = await listenHttp(config, api, https, host, anyPort)
      // Download links name the bound port when PUBLIC_URL does not say where devices reach the service.
      if (httpPort !== undefined) ctx.services.downloads.listening(host, httpPort)
      else if (httpsPort !== undefined) ctx.services.downloads.listening(host, httpsPort, 'https')
      const ports: Record<string, number> = {}
      for (const l of roles.has('ingest') ? transports.flatMap((t) => t.listeners ?? []) : []) {
        const wanted = anyPort ? 0 : Number(config[l.variable])
        // Another broker often holds 1883 already: the failure names the variable that moves the embedded one.
        ports[l.name] = await l.listen(wanted, host).catch((err: unknown) => { throw portFailure(l.variable, wanted, host, err) })
      }
      return { httpPort, httpsPort, ports }
    },
    async close () {
      // Stop accepting (HTTP, HTTPS, then every transport), let what was accepted be committed, then close the store.
      closing ??= (async () => {
        stopCertificates()
        await api.close()
        await https?.close()
        tls?.close()
        for (const t of transports) await t.close()
        await ingest.drain()
        await broker.close()
        await ctx.close()
      })()
      await closing
    }
  }
}

/** Each protocol's transport, in the list's order; those that push tasks are registered as pushers. */
async function buildTransports (entries: readonly ProtocolEntry[], deps: ProtocolDeps, pushers: TaskPushers): Promise<DeviceTransport[]> {
  const transports: DeviceTransport[] = []
  for (const entry of entries) {
    const t = await asModule(entry).transport(deps)
    transports.push(t)
    if (t.push !== undefined) pushers.register({ name: t.name, protocols: t.protocols, connected: (uid) => t.connected(uid), push: async (uid, tasks) => await t.push?.(uid, tasks) ?? false })
  }
  return transports
}

/** HTTP_PORT (unless off) and HTTPS_PORT (with TLS): the same instance on both; off, it is made ready and never listens. */
async function listenHttp (config: Readonly<Config>, api: FastifyInstance, https: HttpsListener | undefined, host: string, anyPort: boolean): Promise<Omit<BoundPorts, 'ports'>> {
  let httpPort: number | undefined
  if (config.HTTP_PORT === 'off') {
    await api.ready()
  } else {
    const http = anyPort ? 0 : config.HTTP_PORT
    await api.listen({ port: http, host, backlog: LISTEN_BACKLOG }).catch((err: unknown) => { throw portFailure('HTTP_PORT', http, host, err) })
    const address = api.server.address()
    httpPort = typeof address === 'object' && address !== null ? address.port : http
  }
  if (https === undefined) return { httpPort, httpsPort: undefined }
  const wanted = anyPort ? 0 : config.HTTPS_PORT
  const httpsPort = await https.listen(wanted, host).catch((err: unknown) => { throw portFailure('HTTPS_PORT', wanted, host, err) })
  return { httpPort, httpsPort }
}

export interface Running extends Service, BoundPorts { bootstrap: BootstrapResult }

/**
 * Starts every part of the service in this process on the configured ports (`fleet serve` has tried them all
 * before: bin/port-check.ts). Every port is bound before the first company and administrator are created: a
 * start that fails (a busy port) creates nothing, so the generated password is never stored without being printed
 * (the next start would otherwise have nothing to show).
 */
export async function startService (config: Readonly<Config>, log: Logger): Promise<Running> {
  const infra = await openInfra(config, log)
  const service = await assembleService(config, log, infra, { bootstrap: false })
  try {
    const ports = await service.listen()
    // The first company and administrator come from an api process (the one a newcomer signs in to).
    const bootstrap = config.FLEET_ROLES.includes('api')
      ? await bootstrapStore(service.ctx, infra.db)
      : { created: false, companyName: config.FLEET_COMPANY_NAME, adminEmail: config.FLEET_ADMIN_EMAIL, clientId: config.FLEET_CLIENT_ID }
    return { ...service, ...ports, bootstrap }
  } catch (err) {
    await service.close()
    throw err
  }
}

/** Where a newcomer on this machine reaches the service: the HTTP port, or the HTTPS one when HTTP is off. */
export function localOrigin (ports: Omit<BoundPorts, 'ports'>): string {
  return ports.httpPort !== undefined ? `http://localhost:${ports.httpPort}` : `https://localhost:${ports.httpsPort ?? 0}`
}

/** What a newcomer needs after the first start: how to get a token, and where the console is. */
export function welcome (r: BootstrapResult, origin: string): string {
  if (!r.created) return ''
  const lines = [
    `Created company "${r.companyName}", administrator ${r.adminEmail} and API client ${r.clientId}.`
  ]
  if (r.generatedPassword !== undefined) lines.push(`  administrator password (shown once): ${r.generatedPassword}`)
  if (r.generatedSecret !== undefined) lines.push(`  client secret (shown once):          ${r.generatedSecret}`)
  lines.push('Get a token:',
    `  curl -s "${origin}/api/oauth/token?grant_type=password&username=${r.adminEmail}&password=<password>&client_id=${r.clientId}&client_secret=<secret>"`,
    `Or open the console and sign in as ${r.adminEmail}:`,
    `  ${origin}/console/`)
  return lines.join('\n')
}
