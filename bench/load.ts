// Overload: 200 concurrent API clients for 30 s on a started service; p50/p99, requests/s, 503 shed vs timeouts vs other.
//
// The whole service is started as `npm start` starts it (bin/serve.ts: store, migrations, MQTT listener, workers, the
// API with its load shedding), on PGlite in a temporary DATA_DIR, and on PostgreSQL too when DATABASE_URL is set (a
// database of its own, dropped after). BENCH_CLIENTS keep-alive connections ask an authenticated route in a loop for
// BENCH_SECONDS, each request given up after BENCH_TIMEOUT_MS, after a warm-up of BENCH_WARMUP_MS in which the
// connections open (not in the figures, its longest request is printed: opening 200 connections at once against a
// busy loop leaves some of them to the kernel's SYN retries, 1, 3, 7 s later). Meanwhile a few other connections ask
// GET /health, the trivial route, in the same run: the ratio of the two is what the load costs an API call beyond the
// HTTP layer. The API's rate limit is lifted for the run (one token for every client); the OVERLOAD_* variables of
// the environment reach the service (unset: its defaults), so `OVERLOAD_MAX_EVENT_LOOP_DELAY_MS=0 npm run bench --
// load` shows the service without shedding.
//
// Env: BENCH_CLIENTS (200), BENCH_SECONDS (30), BENCH_WARMUP_MS (10000), BENCH_TIMEOUT_MS (30000),
// BENCH_PATH (/api/v1/systems?size=10), BENCH_SYSTEMS (systems in the store, 1000), BENCH_HEALTH_CLIENTS (4),
// DATABASE_URL, OVERLOAD_*.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { runLoadInWorker, type KindResult } from './lib/load.js'
import { benchConfig } from './lib/service.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedSystems } from './lib/seed-systems.js'
import { summarize, type Summary } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 30_000)
const PATH = process.env.BENCH_PATH ?? '/api/v1/systems?size=10'
const SYSTEMS = Number(process.env.BENCH_SYSTEMS ?? 1000)
const HEALTH_CLIENTS = Number(process.env.BENCH_HEALTH_CLIENTS ?? 4)
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 10_000)
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const OVERLOAD = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OVERLOAD_')))
const ADMIN = { email: 'load@fleet.local', password: 'load-bench-password', client: 'load-bench', secret: 'load-bench-secret' }

type Store = 'pglite' | 'postgres'
interface Row extends Summary { name: string, ok: number, shed: number, timeouts: number, other: number }

function row (name: string, k: KindResult, seconds: number): Row {
  const ok = k.statuses[200] ?? 0
  const shed = k.statuses[503] ?? 0
  const answered = Object.values(k.statuses).reduce((a, b) => a + b, 0)
  return { name, ...summarize(k.latencies, k.errors, seconds), ok, shed, timeouts: k.timeouts, other: answered - ok - shed + (k.errors - (answered - ok) - k.timeouts) }
}

async function token (origin: string): Promise<string> {
  const qs = new URLSearchParams({ grant_type: 'password', username: ADMIN.email, password: ADMIN.password, client_id: ADMIN.client, client_secret: ADMIN.secret })
  const res = await fetch(`${origin}/api/oauth/token?${qs.toString()}`)
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

async function benchOn (store: Store): Promise<Row[]> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_load')
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-load-'))
  try {
    const config = benchConfig(dataDir, scratch?.url, {
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
      console.log(`\n== ${store}: ${CLIENTS} clients on GET ${PATH} (${SYSTEMS} systems), ${HEALTH_CLIENTS} on GET /health, ${SECONDS} s after ${WARMUP_MS / 1000} s of warm-up, timeout ${TIMEOUT_MS} ms`)
      console.log(`   shedding: in flight ≤ ${config.OVERLOAD_MAX_IN_FLIGHT || 'no cap'}, event loop delay ≤ ${config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS || 'not checked'} ms`)
      await runLoadInWorker({ origin, headers, concurrency: 2, kinds: [{ name: 'warm-up', paths: [PATH] }], durationMs: 500 })
      const common = { origin, headers, durationMs: SECONDS * 1000, timeoutMs: TIMEOUT_MS, warmupMs: WARMUP_MS }
      const [api, health] = await Promise.all([
        runLoadInWorker({ ...common, concurrency: CLIENTS, kinds: [{ name: PATH, paths: [PATH] }] }),
        runLoadInWorker({ ...common, concurrency: HEALTH_CLIENTS, kinds: [{ name: '/health', paths: ['/health'] }] })
      ])
      const rows = [...api.kinds.map((k) => row(`GET ${k.name}`, k, api.seconds)), ...health.kinds.map((k) => row('GET /health', k, health.seconds))]
      for (const k of [...api.kinds, ...health.kinds]) {
        // Opening 200 connections at once against a busy loop: some wait for the kernel's SYN retries (1 s, 3 s, 7 s...).
        console.log(`   ${k.name}: warm-up ${k.warmup.requests} requests, the longest ${Math.round(k.warmup.maxMs)} ms`)
        if (k.firstError !== undefined) console.log(`   ${k.name}, first error: ${k.firstError.slice(0, 160)}`)
      }
      print(rows)
      await printServerSide(origin)
      return rows
    } finally {
      await service.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

function print (rows: Row[]): void {
  const line = (r: Row): Cell[] => [r.name, r.requests, r.rps, r.p50, r.p99, r.max, r.ok, r.shed, r.timeouts, r.other]
  console.log(table(['route', 'answered', 'req/s', 'p50 ms', 'p99 ms', 'max ms', '200', '503 shed', 'timeouts', 'other'], rows.map(line)))
  const [api, health] = rows
  if (api !== undefined && health !== undefined) {
    console.log(`   API / health: p50 ×${(api.p50 / health.p50).toFixed(1)}, p99 ×${(api.p99 / health.p99).toFixed(1)}`)
  }
}

/** What the service itself counted (GET /metrics): requests shed by signal, and requests answered by status. */
async function printServerSide (origin: string): Promise<void> {
  const text = await (await fetch(`${origin}/metrics`)).text()
  const sum = (re: RegExp): number => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0)
  const shed = [...text.matchAll(/^fleet_http_requests_shed_total\{reason="([a-z_]+)"\} (\d+)/gm)].map((m) => `${m[1] ?? ''} ${m[2] ?? ''}`)
  const served = sum(/^fleet_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/systems",status="200"\} (\d+)/gm)
  const withinS = sum(/^fleet_http_request_duration_seconds_bucket\{le="1",method="GET",route="\/api\/v1\/systems",status="200"\} (\d+)/gm)
  console.log(`   service side (from reading the request to the answer): ${served} answered 200 on /api/v1/systems, ${withinS} of them within 1 s; shed by signal: ${shed.join(', ') || 'none'}`)
}

const stores: Store[] = SERVER_URL === undefined ? ['pglite'] : ['pglite', 'postgres']
for (const store of stores) await benchOn(store)
process.exit(0)
