import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { loadConfig, type Config } from '../../core/config.js'
import type { AppContext } from '../../core/context.js'
import type { Clock, Db } from '../../core/ports/store.js'
import type { Logger } from '../../core/logger.js'
import { openOperationParts, systemClock } from '../../bin/context.js'
import { assembleService, type BoundPorts, type Service } from '../../bin/serve.js'
import type { ProtocolEntry } from '../../ingest/protocol-module.js'
import { createMemoryCounter } from '../../storage/rate/memory-counter.js'
import { createRedisCounter } from '../../storage/rate/redis-counter.js'
import { createTestDb, type TestDb } from './test-db.js'
import { TEST_REDIS_URL } from './env.js'
import { openEventBus } from '../../storage/events/open-event-bus.js'

export const ADMIN_EMAIL = 'admin@test.local'
export const ADMIN_PASSWORD = 'admin-password'
export const CLIENT_ID = 'test-client'
export const CLIENT_SECRET = 'test-secret'
export const COMPANY_NAME = 'Test Company'

export interface Stack {
  ctx: AppContext
  db: Db
  api: FastifyInstance
  config: Readonly<Config>
  companyUid: string
  adminUid: string
  /** An access token of the bootstrap administrator. */
  adminToken: string
  /** A token by the password grant. */
  login (email: string, password: string): Promise<string>
  service: Service
  /** Set when started with `listen: true`: real ports on 127.0.0.1. */
  httpUrl: string
  /** `https://127.0.0.1:<port>` when started with `listen: true` and TLS_CERT_FILE / TLS_KEY_FILE in `env`; else ''. */
  httpsUrl: string
  /** The bound port of each transport that listens on its own, by its name (`ports.mqtt`...). */
  ports: Record<string, number>
  /** `mqtt://127.0.0.1:<ports.mqtt>`, for the many tests with MQTT clients. */
  mqttUrl: string
  /** inject() with a bearer token. */
  call (token: string, opts: InjectOptions): Promise<LightMyRequestResponse>
  close (): Promise<void>
}

export interface StackOptions {
  env?: Record<string, string>
  db?: 'pglite' | 'postgres' | 'default'
  /** Listen on real ports (HTTP and MQTT on port 0) for tests with real clients. */
  listen?: boolean
  /** What the service gets instead of the store itself (a fault-injecting wrapper); `stack.db` stays the store. */
  wrapDb?: (db: Db) => Db
  /** The service's clock (default: the system's); tests of waits move it instead of sleeping. */
  clock?: Clock
  /** The service's logger (default: silent); tests of what is logged pass one writing to a captured stream. */
  log?: Logger
  /** The device protocols (default: the list of bin/transports.ts). */
  transports?: readonly ProtocolEntry[]
  /** Run on the store of this other stack: two services on one database (it is dropped with that stack, not this one). */
  storeOf?: Stack
  /** With REDIS_URL in `env`: the live stream's pub/sub channel (stacks that give the same one share events). */
  eventsChannel?: string
}

/** The whole API on a fresh store, built with the same functions as bin/serve.ts (not listening). */
export async function startStack (opts: StackOptions = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-test-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    HTTP_PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_S: '100000',
    FLEET_COMPANY_NAME: COMPANY_NAME,
    FLEET_ADMIN_EMAIL: ADMIN_EMAIL,
    FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FLEET_CLIENT_ID: CLIENT_ID,
    FLEET_CLIENT_SECRET: CLIENT_SECRET,
    // Tests run long chains of store calls on PGlite in which the loop never turns: the inline event loop delay check
    // of load shedding (api/plugins/overload.ts) would refuse their requests. Its own tests turn it on.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    // Nor does the admission of API requests hold a test's bursts of requests in line: its own tests turn it on.
    OVERLOAD_MAX_IN_FLIGHT: '0',
    // Sign-ins at the lowest scrypt cost: a test stack checks hundreds of passwords (at the default cost, about a
    // tenth of the suite's CPU). test/unit/auth-timing.test.ts checks the default cost.
    PASSWORD_HASH_COST: '10',
    ...opts.env
  })
  // A store shared with another stack stays open when this one closes (its service closes the store it was given).
  const testDb: TestDb = opts.storeOf === undefined ? await createTestDb(opts.db) : { db: { ...opts.storeOf.db, close: async () => {} }, url: undefined, drop: async () => {} }
  const rateCounter = TEST_REDIS_URL !== undefined
    ? await createRedisCounter(TEST_REDIS_URL, `fleet-test:${Math.random().toString(36).slice(2)}:`)
    : createMemoryCounter()
  const log = opts.log ?? pino({ level: 'silent' })
  const serviceDb = opts.wrapDb?.(testDb.db) ?? testDb.db
  const parts = await openOperationParts(config, serviceDb, log, `fleet-test-${Math.random().toString(36).slice(2)}`)
  const events = config.REDIS_URL === undefined ? undefined : await openEventBus({ redisUrl: config.REDIS_URL, channel: opts.eventsChannel ?? `fleet-test:events:${Math.random().toString(36).slice(2)}` })
  const service = await assembleService(config, log, { db: serviceDb, rateCounter, clock: opts.clock ?? systemClock, events, ...parts },
    opts.transports === undefined ? {} : { transports: opts.transports })
  const { ctx, api } = service
  let bound: BoundPorts = { httpPort: 0, httpsPort: undefined, ports: {} }
  if (opts.listen === true) bound = await service.listen({ anyPort: true, host: '127.0.0.1' })
  else await api.ready()

  const login = async (email: string, password: string): Promise<string> => {
    const res = await api.inject({
      method: 'POST',
      url: '/api/oauth/token',
      payload: { grant_type: 'password', username: email, password, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
    })
    if (res.statusCode !== 200) throw new Error(`login ${email} failed: ${res.statusCode} ${res.body}`)
    return (res.json() as { access_token: string }).access_token
  }
  const adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD)
  const me = (await api.inject({ method: 'GET', url: '/api/v1/users/current', headers: { authorization: `Bearer ${adminToken}` } })).json() as
    { uid: string, company: { uid: string } }

  return {
    ctx,
    db: testDb.db,
    api,
    config,
    companyUid: me.company.uid,
    adminUid: me.uid,
    adminToken,
    login,
    service,
    httpUrl: `http://127.0.0.1:${bound.httpPort ?? 0}`,
    httpsUrl: bound.httpsPort === undefined ? '' : `https://127.0.0.1:${bound.httpsPort}`,
    ports: bound.ports,
    mqttUrl: `mqtt://127.0.0.1:${bound.ports.mqtt ?? 0}`,
    async call (token, o) {
      return await api.inject({ ...o, headers: { ...o.headers, authorization: `Bearer ${token}` } })
    },
    async close () {
      await service.close() // closes the rate counter and the store too
      await testDb.drop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
