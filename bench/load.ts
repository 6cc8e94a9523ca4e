// Overload: 200 concurrent API clients for 10 s on a mix of reads, beside 5 clients on the same mix (the baseline); answered p50/p95/p99/max, the share over 1 s, and how many were shed (503).
//
// The whole service is started as `npm start` starts it (bin/serve.ts: store, migrations, MQTT listener, workers, the
// API with its load shedding), on PGlite in a temporary DATA_DIR, and on PostgreSQL too when DATABASE_URL is set (a
// database of its own, dropped after). The store gets BENCH_SYSTEMS systems and a few label operations. Then two
// phases on keep-alive connections, each request given up after BENCH_TIMEOUT_MS: first BENCH_BASELINE_CLIENTS
// clients (the baseline: the same requests without overload), then BENCH_CLIENTS clients, each phase for
// BENCH_SECONDS after BENCH_WARMUP_MS in which its connections open (not in the figures). Every client asks, in turn,
// the systems list (a page of 10), one system, that system's last data values and the operations list. Meanwhile a
// few other connections ask GET /health and GET /ready: what an operator watches must answer under load too.
//
// A request answered with anything but 503 counts as answered; its latency is what the target bounds (every answered
// request under 1 s). A client answered 503 waits Retry-After before its next request, as a client should;
// BENCH_IGNORE_RETRY_AFTER=1 makes them ask again at once. The API's rate limit, which would slow such clients down,
// is lifted for the run (one token for every client). The OVERLOAD_* variables of the environment reach the service
// (unset: its defaults), so that `OVERLOAD_MAX_IN_FLIGHT=0 npm run bench -- load` shows the service without
// admission control.
//
// Env: BENCH_CLIENTS (200), BENCH_BASELINE_CLIENTS (5), BENCH_SECONDS (10), BENCH_WARMUP_MS (2000),
// BENCH_TIMEOUT_MS (30000), BENCH_SYSTEMS (1000), BENCH_HEALTH_CLIENTS (2), BENCH_IGNORE_RETRY_AFTER, DATABASE_URL,
// BENCH_STORES (pglite,postgres), OVERLOAD_*.
import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { runLoadInWorker, type KindResult, type LoadKind } from './lib/load.js'
import { benchConfig } from './lib/service.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedSystems } from './lib/seed-systems.js'
import { percentile } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200)
const BASELINE_CLIENTS = Number(process.env.BENCH_BASELINE_CLIENTS ?? 5)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 2000)
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 30_000)
const SYSTEMS = Number(process.env.BENCH_SYSTEMS ?? 1000)
const HEALTH_CLIENTS = Number(process.env.BENCH_HEALTH_CLIENTS ?? 2)
/** Clients that ignore Retry-After and ask again at once (by default each waits as told, as a client should). */
const IGNORE_RETRY_AFTER = process.env.BENCH_IGNORE_RETRY_AFTER === '1'
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((s) => s.trim())
const OVERLOAD = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OVERLOAD_')))
const ADMIN = { email: 'load@fleet.local', password: 'load-bench-password', client: 'load-bench', secret: 'load-bench-secret' }
/** Systems the clients read one by one (seeded rows 1..n have the uid md5('s' || i): bench/lib/seed-systems.ts). */
const READ_SYSTEMS = 100
const SLOW_MS = 1000

type Store = 'pglite' | 'postgres'

interface Row { name: string, answered: number, rps: number, p50: number, p95: number, p99: number, max: number, over1s: number, shed: number, shedP99: number, timeouts: number, failed: number }

/** A row of figures; `probe`: /health and /ready, never shed, whose 503 is a failed check (counted as failed). */
function row (name: string, k: Pick<KindResult, 'latencies' | 'latencyStatuses' | 'timeouts' | 'errors'>, seconds: number, probe = false): Row {
  const isShed = (i: number): boolean => !probe && k.latencyStatuses[i] === 503
  const answered = Float64Array.from(k.latencies.filter((_, i) => !isShed(i))).sort()
  const shed = Float64Array.from(k.latencies.filter((_, i) => isShed(i))).sort()
  const over = answered.filter((ms) => ms > SLOW_MS).length
  return {
    name,
    answered: answered.length,
    rps: seconds > 0 ? answered.length / seconds : 0,
    p50: percentile(answered, 50),
    p95: percentile(answered, 95),
    p99: percentile(answered, 99),
    max: answered.length === 0 ? Number.NaN : answered[answered.length - 1] ?? Number.NaN,
    over1s: answered.length === 0 ? 0 : (100 * over) / answered.length,
    shed: shed.length,
    shedP99: percentile(shed, 99),
    timeouts: k.timeouts,
    // Answers other than 200 and 503, and connections that failed.
    failed: k.errors - shed.length - k.timeouts
  }
}

/** Every kind of a run as one. */
function all (kinds: KindResult[]): Pick<KindResult, 'latencies' | 'latencyStatuses' | 'timeouts' | 'errors'> {
  return {
    latencies: kinds.flatMap((k) => k.latencies),
    latencyStatuses: kinds.flatMap((k) => k.latencyStatuses),
    timeouts: kinds.reduce((n, k) => n + k.timeouts, 0),
    errors: kinds.reduce((n, k) => n + k.errors, 0)
  }
}

async function token (origin: string): Promise<string> {
  const qs = new URLSearchParams({ grant_type: 'password', username: ADMIN.email, password: ADMIN.password, client_id: ADMIN.client, client_secret: ADMIN.secret })
  const res = await fetch(`${origin}/api/oauth/token?${qs.toString()}`)
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

/** A few finished label operations, so that the operations list has something to page. */
async function labelOperations (origin: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${origin}/api/v1/operations/systems/label`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ labels: { add: [`load-${i}`] }, criteria: { labels: ['vip'] } })
    })
    if (!res.ok) throw new Error(`label operation: ${res.status} ${await res.text()}`)
  }
}

/** The mix: the systems list, one system, its last data values, the operations list. */
function mix (): LoadKind[] {
  const uids = Array.from({ length: Math.min(READ_SYSTEMS, SYSTEMS) }, (_, i) => createHash('md5').update(`s${i + 1}`).digest('hex'))
  const pages = Math.max(1, Math.min(50, Math.floor(SYSTEMS / 10)))
  return [
    { name: 'GET /systems?size=10', paths: Array.from({ length: pages }, (_, p) => `/api/v1/systems?size=10&offset=${p * 10}`) },
    { name: 'GET /systems/:uid', paths: uids.map((u) => `/api/v1/systems/${u}`) },
    { name: 'GET /systems/:uid/data', paths: uids.map((u) => `/api/v1/systems/${u}/data`) },
    { name: 'GET /operations?size=10', paths: ['/api/v1/operations?size=10'] }
  ]
}

const PROBES: LoadKind[] = [{ name: 'GET /health', paths: ['/health'] }, { name: 'GET /ready', paths: ['/ready'] }]

/** One phase: `clients` on the mix and the probes' clients beside them. */
async function phase (label: string, origin: string, headers: Record<string, string>, clients: number): Promise<Row[]> {
  const common = { origin, durationMs: SECONDS * 1000, timeoutMs: TIMEOUT_MS, warmupMs: WARMUP_MS, honourRetryAfter: !IGNORE_RETRY_AFTER }
  const [api, probes] = await Promise.all([
    runLoadInWorker({ ...common, headers, concurrency: clients, kinds: mix() }),
    runLoadInWorker({ ...common, headers: {}, concurrency: HEALTH_CLIENTS, kinds: PROBES })
  ])
  for (const k of [...api.kinds, ...probes.kinds]) {
    if (k.firstError !== undefined && (probes.kinds.includes(k) || !k.firstError.startsWith('503'))) console.log(`   ${label} ${k.name}, first error: ${k.firstError.slice(0, 160)}`)
  }
  return [
    row(`${label}: all`, all(api.kinds), api.seconds),
    ...api.kinds.map((k) => row(`${label}: ${k.name}`, k, api.seconds)),
    ...probes.kinds.map((k) => row(`${label}: ${k.name}`, k, probes.seconds, true))
  ]
}

async function benchOn (store: Store): Promise<void> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_load')
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-load-'))
  try {
    const config = benchConfig(dataDir, scratch?.url, {
      // The service's own default unless the environment says otherwise (benchConfig turns it off for the others).
      OVERLOAD_MAX_IN_FLIGHT: undefined,
      ...OVERLOAD,
      FLEET_ADMIN_EMAIL: ADMIN.email,
      FLEET_ADMIN_PASSWORD: ADMIN.password,
      FLEET_CLIENT_ID: ADMIN.client,
      FLEET_CLIENT_SECRET: ADMIN.secret
    })
    const log = pino({ level: 'silent' })
    const infra = await openInfra(config, log)
    const service = await assembleService(config, log, infra)
    try {
      const { httpPort } = await service.listen({ anyPort: true, host: '127.0.0.1' })
      const origin = `http://127.0.0.1:${httpPort}`
      const company = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
      await seedSystems(infra.db, company, SYSTEMS, Date.now())
      const headers = { authorization: `Bearer ${await token(origin)}` }
      await labelOperations(origin, headers)
      console.log(`\n== ${store}: the mix (systems list, a system, its last data, operations list; ${SYSTEMS} systems) at ${BASELINE_CLIENTS}, then ${CLIENTS} clients, ${SECONDS} s each after ${WARMUP_MS / 1000} s of warm-up, ${HEALTH_CLIENTS} on /health and /ready beside; timeout ${TIMEOUT_MS} ms`)
      console.log(`   admission: ${config.OVERLOAD_MAX_IN_FLIGHT === 0 ? 'off' : `at most ${config.OVERLOAD_MAX_IN_FLIGHT} API requests at once (adapting to ${config.OVERLOAD_TARGET_MS || '-'} ms), a wait of at most ${config.OVERLOAD_MAX_QUEUE_MS} ms for a place`}; event loop delay ≤ ${config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS || 'not checked'} ms; a shed client ${IGNORE_RETRY_AFTER ? 'asks again at once' : 'waits Retry-After'}`)
      await runLoadInWorker({ origin, headers, concurrency: 2, kinds: mix(), durationMs: 1000 })
      const load = [loadavg()[0]]
      const baseline = await phase(`${BASELINE_CLIENTS} clients`, origin, headers, BASELINE_CLIENTS)
      load.push(loadavg()[0])
      const overload = await phase(`${CLIENTS} clients`, origin, headers, CLIENTS)
      load.push(loadavg()[0])
      print([...baseline, ...overload])
      console.log(`   machine load average (1 min) before, between and after the phases: ${load.map((l) => (l ?? 0).toFixed(2)).join(', ')}`)
      await printServerSide(origin)
    } finally {
      await service.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

function print (rows: Row[]): void {
  const line = (r: Row): Cell[] => [r.name, r.answered, r.rps, r.p50, r.p95, r.p99, r.max, r.over1s, r.shed, r.shedP99, r.timeouts, r.failed]
  console.log(table(['clients: route', 'answered', 'per s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', '% > 1 s', '503 shed', 'shed p99 ms', 'timeouts', 'failed'], rows.map(line)))
}

/** What the service itself counted (GET /metrics): requests shed by signal. */
async function printServerSide (origin: string): Promise<void> {
  const text = await (await fetch(`${origin}/metrics`)).text()
  const shed = [...text.matchAll(/^fleet_http_requests_shed_total\{reason="([a-z_]+)"\} (\d+)/gm)].map((m) => `${m[1] ?? ''} ${m[2] ?? ''}`)
  console.log(`   shed by signal, as the service counted: ${shed.join(', ') || 'none'}`)
}

for (const store of ['pglite', 'postgres'] as const) {
  if (!STORES.includes(store)) continue
  if (store === 'postgres' && SERVER_URL === undefined) { console.log('\n== postgres: skipped (DATABASE_URL unset)'); continue }
  await benchOn(store)
}
process.exit(0)
