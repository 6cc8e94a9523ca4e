// The real API for benchmarks: the same composition as bin/serve.ts (openInfra, createContext, bootstrapStore,
// buildApi), listening on an ephemeral port, with the store handle kept so that a benchmark can seed it directly.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { loadConfig, type Config } from '../../core/config.js'
import type { Db } from '../../core/ports/store.js'
import { buildApi } from '../../api/app.js'
import { bootstrapStore, createContext, openInfra } from '../../bin/context.js'

const ADMIN_EMAIL = 'bench@fleet.local'
const ADMIN_PASSWORD = 'bench-password'
const CLIENT_ID = 'bench-client'
const CLIENT_SECRET = 'bench-secret'

/**
 * The configuration every benchmark starts its service with: ephemeral ports on loopback, no log, no rate limit
 * (the benchmarks measure the service, not the limiter), the store in dataDir or on PostgreSQL at databaseUrl.
 */
export function benchConfig (dataDir: string, databaseUrl: string | undefined, env: Record<string, string | undefined> = {}): Readonly<Config> {
  return loadConfig({
    HTTP_PORT: '0',
    MQTT_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_S: '1000000000',
    // Nor the API's admission control, which would answer some of their requests 503 (bench load turns it on).
    OVERLOAD_MAX_IN_FLIGHT: '0',
    // Every simulated device comes from 127.0.0.1: a fleet reconnecting at once would meet the per-address cap.
    UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: '1000000',
    // A benchmark may drive few devices far past one device's budget (docs/security.md#device-limits): no per-device
    // rate.
    DEVICE_RATE_MESSAGES_PER_S: '0',
    DEVICE_RATE_BYTES_PER_S: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ...env
  })
}

/** A bearer token of the password grant (docs/api.md), for a benchmark's API calls. */
export async function passwordToken (origin: string, c: { username: string, password: string, clientId: string, clientSecret: string }): Promise<string> {
  const qs = new URLSearchParams({ grant_type: 'password', username: c.username, password: c.password, client_id: c.clientId, client_secret: c.clientSecret })
  const res = await fetch(`${origin}/api/oauth/token?${qs.toString()}`)
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

export interface BenchService {
  origin: string
  db: Db
  companyUid: string
  /** A bearer token of the bootstrap administrator (the company of `companyUid`). */
  login (): Promise<string>
  close (): Promise<void>
}

/**
 * Starts the service on PostgreSQL at `databaseUrl`, or on PGlite in a temporary DATA_DIR when it is undefined.
 * `dataDir`: this DATA_DIR instead, kept at close (a second service on the same embedded store); `env`: more variables.
 */
export async function startBenchService (databaseUrl: string | undefined, opts: { dataDir?: string, env?: Record<string, string> } = {}): Promise<BenchService> {
  const dataDir = opts.dataDir ?? await mkdtemp(join(tmpdir(), 'fleet-bench-'))
  const config = benchConfig(dataDir, databaseUrl, {
    FLEET_COMPANY_NAME: 'Bench',
    FLEET_ADMIN_EMAIL: ADMIN_EMAIL,
    FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FLEET_CLIENT_ID: CLIENT_ID,
    FLEET_CLIENT_SECRET: CLIENT_SECRET,
    ...opts.env
  })
  const infra = await openInfra(config)
  const ctx = createContext(config, pino({ level: 'silent' }), infra)
  await bootstrapStore(ctx, infra.db)
  // The points partitions of now, as the service's points.partitions job makes them at start (no job runs here).
  await ctx.services.pointPartitions.upkeep()
  const api = await buildApi(ctx)
  await api.listen({ port: 0, host: '127.0.0.1' })
  const address = api.server.address()
  const origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  const close = async (): Promise<void> => {
    await api.close()
    await ctx.close()
    if (opts.dataDir === undefined) await rm(dataDir, { recursive: true, force: true })
  }
  const login = async (): Promise<string> => await passwordToken(origin, { username: ADMIN_EMAIL, password: ADMIN_PASSWORD, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })
  const { rows } = await infra.db.query<{ uid: string }>('SELECT uid FROM companies WHERE name = $1', [config.FLEET_COMPANY_NAME])
  return { origin, db: infra.db, companyUid: rows[0]?.uid ?? '', login, close }
}
