// Usage records: import 1,000,000 records through the usage import, then the multi-system list and aggregations of
// usage data ids over 50 systems (monthly DATA_BYTES_TOTAL, daily DATA_SESSION and DATA_BYTES_TOTAL); rows/s and
// p50/p99. The aggregations are asked of the service folding the daily usage rollups, then of one reading
// the usage records only (DATA_ROLLUPS=false) on the same store, with the speed-up beside.
//
// The service runs in this process as bin/serve.ts assembles it (engine workers included; PGlite in a temporary
// DATA_DIR; with DATABASE_URL also PostgreSQL, on a database of its own that is dropped after). BENCH_SYSTEMS systems
// are seeded by SQL (bench/lib/seed-systems.ts); the records, spread over the last 3 months, are sent through HTTP as
// CSV files of BENCH_ROWS_PER_FILE rows (about 1.4 MB each), one import operation each, at most BENCH_INFLIGHT (4) of
// them unfinished at a time. The import is timed from the first request to the last operation FINISHED. Then a worker
// thread asks each query kind for BENCH_SECONDS seconds over BENCH_CONCURRENCY keep-alive connections.
//
// The mix of records per system: 70 % DATA sessions (a third of them with an interim record first), 15 % SMS_SENT,
// 5 % SMS_RECEIVED, 5 % VOICE_OUT, 3 % VOICE_IN, 2 % MSU.
//
// Env: BENCH_RECORDS (1000000), BENCH_SYSTEMS (50), BENCH_ROWS_PER_FILE (20000), BENCH_INFLIGHT (4), BENCH_SECONDS
// (10 per kind), BENCH_CONCURRENCY (2), WORKER_CONCURRENCY (16), DATABASE_URL (a PostgreSQL server), BENCH_STORES (pglite,postgres:
// the stores to run on; postgres needs DATABASE_URL).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import type { Db } from '../core/ports/store.js'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { minusMonths } from '../core/domain/aggregation.js'
import { benchConfig } from './lib/service.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedSystems } from './lib/seed-systems.js'
import { runLoadInWorker } from './lib/load.js'
import { summarize, type Summary } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'
import { pollUntilFinished } from './lib/operation-poll.js'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const SYSTEMS = Number(process.env.BENCH_SYSTEMS ?? 50)
const ROWS_PER_FILE = Number(process.env.BENCH_ROWS_PER_FILE ?? 20_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2)
const WORKERS = process.env.WORKER_CONCURRENCY ?? '16'
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 4)
const POLL_MS = 200
/** The name of a kind asked of the service reading the records only. */
const RAW = ' (records only)'

interface Figures {
  store: string
  records: number
  files: number
  /** Request sent → answered, the slowest file (read, checked, operation and its tasks written). */
  requestMaxMs: number
  /** First request sent → last operation FINISHED. */
  importS: number
  failures: number
  stored: number
  kinds: Array<{ name: string } & Summary>
}

/** A deterministic generator (the same files on both stores). */
function lcg (seed: number): () => number {
  let s = seed >>> 0
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 }
}

/** The CSV files: RECORDS rows in all, round robin over the systems, dates spread over [from, to). */
function files (uids: string[], from: number, to: number): string[] {
  const rnd = lcg(42)
  const header = 'system,uid,type,start,end,partial,bytesSent,bytesReceived,phoneNumber\n'
  const out: string[] = []
  let rows: string[] = []
  const push = (line: string): void => {
    rows.push(line)
    if (rows.length === ROWS_PER_FILE) { out.push(header + rows.join('')); rows = [] }
  }
  let n = 0
  while (n < RECORDS) {
    const system = uids[n % uids.length] ?? ''
    const start = from + Math.floor(rnd() * (to - from - 3_600_000))
    const kind = rnd() * 100
    const id = `r${n}`
    if (kind < 70) {
      const sent = Math.floor(rnd() * 50_000)
      const received = Math.floor(rnd() * 200_000)
      if (rnd() < 1 / 3 && n + 1 < RECORDS) {
        push(`${system},${id},DATA,${start},,true,${Math.floor(sent / 2)},${Math.floor(received / 2)},\n`)
        n++
      }
      push(`${system},${id},DATA,${start},${start + Math.floor(rnd() * 3_600_000)},false,${sent},${received},\n`)
    } else if (kind < 85) push(`${system},${id},SMS_SENT,${start},,,,,+336${String(n).padStart(8, '0')}\n`)
    else if (kind < 90) push(`${system},${id},SMS_RECEIVED,${start},,,,,+336${String(n).padStart(8, '0')}\n`)
    else if (kind < 95) push(`${system},${id},VOICE_OUT,${start},${start + Math.floor(rnd() * 600_000)},,,,+336${String(n).padStart(8, '0')}\n`)
    else if (kind < 98) push(`${system},${id},VOICE_IN,${start},${start + Math.floor(rnd() * 600_000)},,,,+336${String(n).padStart(8, '0')}\n`)
    else push(`${system},${id},MSU,${start},,,,,\n`)
    n++
  }
  if (rows.length > 0) out.push(header + rows.join(''))
  return out
}

interface Running { origin: string, auth: Record<string, string>, db: Db, close: () => Promise<void> }

/** The service on the store of dataDir (PGlite) or url (PostgreSQL), listening, with an administrator's token. */
async function startService (dataDir: string, url: string | undefined, env: Record<string, string> = {}): Promise<Running> {
  const config = benchConfig(dataDir, url, { WORKER_CONCURRENCY: WORKERS, FLEET_ADMIN_PASSWORD: 'bench-password', FLEET_CLIENT_SECRET: 'bench-secret', ...env })
  const infra = await openInfra(config)
  const service = await assembleService(config, pino({ level: 'silent' }), infra)
  const { httpPort } = await service.listen({ anyPort: true, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${httpPort}`
  const qs = new URLSearchParams({ grant_type: 'password', username: config.FLEET_ADMIN_EMAIL, password: 'bench-password', client_id: config.FLEET_CLIENT_ID, client_secret: 'bench-secret' })
  const token = ((await (await fetch(`${origin}/api/oauth/token?${qs.toString()}`)).json()) as { access_token: string }).access_token
  return { origin, auth: { authorization: `Bearer ${token}` }, db: infra.db, close: async () => { await service.close() } }
}

interface Kind { name: string, paths: string[] }

/** Each kind for SECONDS over CONCURRENCY connections, after a short warm-up; its figures go to `into`. */
async function runKinds (running: Running, kinds: Kind[], into: Figures['kinds'], suffix = ''): Promise<void> {
  const load = { origin: running.origin, headers: running.auth, concurrency: CONCURRENCY }
  for (const kind of kinds) {
    await runLoadInWorker({ ...load, concurrency: 1, kinds: [{ name: kind.name, paths: kind.paths.slice(0, 2) }], durationMs: 1 }) // warm up
    const result = await runLoadInWorker({ ...load, kinds: [kind], durationMs: SECONDS * 1000 })
    for (const k of result.kinds) {
      if (k.errors > 0) console.error(`  ${k.name}: ${k.errors} errors, first: ${k.firstError ?? ''}`)
      into.push({ name: k.name + suffix, ...summarize(k.latencies, k.errors, result.seconds) })
    }
  }
}

async function benchOn (store: 'pglite' | 'postgres'): Promise<Figures> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_usage')
  // One DATA_DIR for both services, so that on PGlite the raw-path service opens the store the first one filled.
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-usage-'))
  try {
    console.log(`\n== ${store}: ${SYSTEMS} systems, ${RECORDS} usage records in files of ${ROWS_PER_FILE} rows`)
    let figures: Figures
    let aggregations: Kind[]
    const service = await startService(dataDir, scratch?.url)
    try {
      const { origin, auth, db } = service
      const companyUid = (await db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
      const now = Date.now()
      await seedSystems(db, companyUid, SYSTEMS, now)
      const uids = (await db.query<{ uid: string }>(`SELECT md5('s' || i) AS uid FROM generate_series(1, ${SYSTEMS}) AS i`)).rows.map((r) => r.uid)
      const from = minusMonths(now, 3)
      const csvs = files(uids, from, now)

      const t0 = performance.now()
      let requestMaxMs = 0
      let failures = 0
      // At most INFLIGHT imports unfinished at once, as an operator's feed sends them: with every file posted at once,
      // a request waited behind the tasks of all the earlier files and, at a million records, past the API's 60 s
      // request timeout (PGlite has one connection for all of them).
      const inFlight = new Set<Promise<void>>()
      for (const csv of csvs) {
        while (inFlight.size >= INFLIGHT) await Promise.race(inFlight)
        const t = performance.now()
        const res = await fetch(`${origin}/api/v1/operations/systems/usages/import`, { method: 'POST', headers: { ...auth, 'content-type': 'application/octet-stream' }, body: csv })
        if (res.status !== 200) throw new Error(`import: ${res.status} ${await res.text()}`)
        requestMaxMs = Math.max(requestMaxMs, performance.now() - t)
        const uid = ((await res.json()) as { operation: string }).operation
        const done: Promise<void> = pollUntilFinished(origin, uid, auth, POLL_MS).then(({ op }) => {
          failures += op.total - (op.counters.find((c) => c.state === 'SUCCESS')?.count ?? 0)
          inFlight.delete(done)
        })
        inFlight.add(done)
      }
      await Promise.all(inFlight)
      const importS = (performance.now() - t0) / 1000
      const stored = Number((await db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM usage_records')).rows[0]?.n ?? 0)
      console.log(`   imported ${RECORDS} rows in ${importS.toFixed(1)} s (${(RECORDS / importS).toFixed(0)} rows/s), ${stored} records stored, ${failures} rows failed`)
      await db.exec('VACUUM ANALYZE usage_records')
      await db.exec('VACUUM ANALYZE usage_rollups')

      const targets = uids.slice(0, 50).join(',')
      const n = Math.min(50, SYSTEMS)
      const paths = (make: (i: number) => string): string[] => Array.from({ length: 50 }, (_, i) => make(i))
      const lists = [
        { name: `usage list, ${n} systems, 3 months, size 100`, paths: paths(() => `/api/v1/systems/usages/records?targetIds=${targets}`) },
        { name: 'usage list, 1 system, 3 months, size 500', paths: paths((i) => `/api/v1/systems/${uids[i % uids.length] ?? ''}/usages/records?size=500`) }
      ]
      // `from` 3 months back to the ms: the first day is cut, read from the records; the others from the daily rollups.
      aggregations = [
        { name: `DATA_BYTES_TOTAL 1month sum, ${n} systems, 3 months`, paths: paths(() => `/api/v1/systems/data/aggregated?targetIds=${targets}&dataIds=DATA_BYTES_TOTAL&interval=1month&fn=sum&from=${from}`) },
        { name: `DATA_SESSION,DATA_BYTES_TOTAL 1day sum, ${n} systems, 3 months`, paths: paths(() => `/api/v1/systems/data/aggregated?targetIds=${targets}&dataIds=DATA_SESSION,DATA_BYTES_TOTAL&interval=1day&fn=sum&from=${from}&size=100`) }
      ]
      figures = { store, records: RECORDS, files: csvs.length, requestMaxMs, importS, failures, stored, kinds: [] }
      console.log(`   each kind: ${SECONDS} s over ${CONCURRENCY} connections; aggregations through the daily usage rollups`)
      await runKinds(service, [...lists, ...aggregations], figures.kinds)
    } finally {
      await service.close()
    }
    const rawService = await startService(dataDir, scratch?.url, { DATA_ROLLUPS: 'false' })
    try {
      console.log('   the aggregations again, from the usage records only (DATA_ROLLUPS=false)')
      await runKinds(rawService, aggregations, figures.kinds, RAW)
    } finally {
      await rawService.close()
    }
    return figures
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((x) => x.trim())
const results: Figures[] = []
if (STORES.includes('pglite')) results.push(await benchOn('pglite'))
if (STORES.includes('postgres') && SERVER_URL !== undefined) results.push(await benchOn('postgres'))
else if (STORES.includes('postgres')) console.log('\n(DATABASE_URL not set: PostgreSQL skipped)')

console.log(`\nUsage import: ${RECORDS} records, ${SYSTEMS} systems (WORKER_CONCURRENCY ${WORKERS})\n`)
console.log(table(['store', 'files', 'slowest request ms', 'request → all FINISHED s', 'rows/s', 'stored', 'failed rows'],
  results.map((f): Cell[] => [f.store, f.files, f.requestMaxMs, f.importS, f.records / f.importS, f.stored, f.failures])))
console.log('\nQueries (p50 / p99 ms)\n')
console.log(table(['store', 'query', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
  results.flatMap((f) => f.kinds.map((k): Cell[] => [f.store, k.name, k.requests, k.rps, k.p50, k.p99, k.max, k.errors]))))
console.log('\nAggregations: daily usage rollups beside the records only (p50 ms, speed-up at p50)\n')
console.log(table(['store', 'query', 'rollups p50 ms', 'records p50 ms', 'speed-up'],
  results.flatMap((f) => f.kinds.flatMap((k): Cell[][] => {
    const raw = f.kinds.find((r) => r.name === k.name + RAW)
    return raw === undefined ? [] : [[f.store, k.name, k.p50, raw.p50, k.p50 > 0 ? `${(raw.p50 / k.p50).toFixed(1)}×` : '-']]
  }))))
