// Find systems (GET /api/v1/systems) on 100,000 systems: requests/s and p50/p99 per query kind, against a trivial route.
//
// Per store (PGlite in a temporary DATA_DIR; PostgreSQL too when DATABASE_URL names a server, on a database of its
// own that is dropped after): seeds the systems straight through the Db port, starts the real API on an ephemeral
// port, then measures over HTTP with keep-alive connections from a worker thread:
//   - each query kind alone on one connection, one request at a time (BENCH_KIND_SECONDS each): the latency a user
//     of the console sees, queueing aside (the p99 target of the issue is read here);
//   - each query kind alone (BENCH_KIND_SECONDS each), then all kinds interleaved (BENCH_SECONDS), the overall figure;
//   - GET /api/v1/users/current the same way, the baseline: the ratio says what a find costs beyond the HTTP,
//     authentication and company-context work every route does.
// Env: BENCH_SYSTEMS (100000), BENCH_SECONDS (10), BENCH_KIND_SECONDS (2), BENCH_CONCURRENCY (8), DATABASE_URL.
import { randomInt } from 'node:crypto'
import { runLoadInWorker, type LoadKind, type LoadResult } from './lib/load.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { AREAS, KINDS, row, seedSystems } from './lib/seed-systems.js'
import { startBenchService } from './lib/service.js'
import { summarize, type Summary } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'

const SYSTEMS = Number(process.env.BENCH_SYSTEMS ?? 100_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const KIND_SECONDS = Number(process.env.BENCH_KIND_SECONDS ?? 2)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const PATHS_PER_KIND = 300

const some = (): number => 1 + randomInt(SYSTEMS)
const paths = (make: (j: number) => string): string[] => Array.from({ length: PATHS_PER_KIND }, (_, j) => `/api/v1/systems?${make(j)}`)

/** The mix: what a fleet console asks most (Systems, find + speed). */
function kinds (): LoadKind[] {
  return [
    { name: 'first page, all fields', paths: paths(() => 'size=20') },
    { name: 'labels', paths: paths((j) => `labels=fleet-${j % 20}&size=50&fields=uid,name,labels,lifeCycleState,commStatus`) },
    { name: 'lifeCycleStates+commStatus', paths: paths((j) => `lifeCycleStates=ACTIVE,TEST_READY&commStatus=${['ERROR', 'WARNING'][j % 2] ?? ''}&size=50&fields=uid,name,lifeCycleState,commStatus,lastCommDate`) },
    {
      name: 'name like',
      paths: paths(() => {
        const i = some()
        return `name=${encodeURIComponent(row.name(i).split(' ').slice(1).join(' ').toLowerCase())}&fields=uid,name,gateway`
      })
    },
    { name: 'name like (common word)', paths: paths((j) => `name=${(KINDS[j % KINDS.length] ?? '').toLowerCase()}%20${(AREAS[j % AREAS.length] ?? '').toLowerCase()}&size=50&fields=uid,name`) },
    { name: 'gateway serialNumber', paths: paths(() => `gateway=serialNumber:${row.serialNumber(some()).slice(3)}&fields=uid,name,gateway`) },
    { name: 'subscription identifier', paths: paths(() => `subscription=identifier:${row.iccid(some()).slice(-11)}&fields=uid,name,subscription`) },
    { name: 'sort name', paths: paths((j) => `orderBy=name:${j % 2 === 0 ? 'asc' : 'desc'}&size=50&fields=uid,name,commStatus`) },
    { name: 'sort lastCommDate desc', paths: paths(() => 'orderBy=lastCommDate:desc&size=100&fields=uid,name,lastCommDate,commStatus,gateway') },
    { name: 'deep page', paths: paths(() => `offset=${randomInt(Math.max(1, SYSTEMS - 100))}&size=100&fields=uid,name,creationDate`) },
    { name: 'labels+sort+page', paths: paths((j) => `labels=region-${j % 7}&orderBy=lastCommDate:desc&offset=${100 * (j % 20)}&size=100&fields=uid,name,lastCommDate`) }
  ]
}

interface KindFigures { name: string, single: Summary, alone: Summary, inMix: Summary }
interface Figures { store: string, seedSeconds: number, kinds: KindFigures[], single: Summary, overall: Summary, baseline: Summary }

function merge (r: LoadResult): Summary {
  return summarize(r.kinds.flatMap((k) => k.latencies), r.kinds.reduce((n, k) => n + k.errors, 0), r.seconds)
}

function reportErrors (r: LoadResult): void {
  for (const k of r.kinds) if (k.errors > 0) console.error(`  ${k.name}: ${k.errors} errors, first: ${k.firstError ?? ''}`)
}

async function benchOn (store: 'pglite' | 'postgres'): Promise<Figures> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench')
  try {
    console.log(`\n== ${store}: starting the API and seeding ${SYSTEMS} systems`)
    const service = await startBenchService(scratch?.url)
    try {
      const t0 = performance.now()
      const times = await seedSystems(service.db, service.companyUid, SYSTEMS, Date.now())
      const t1 = performance.now()
      await service.db.exec('VACUUM ANALYZE')
      const seedSeconds = (performance.now() - t0) / 1000
      console.log(`   seeded in ${seedSeconds.toFixed(1)} s (rows ${times.rowsSeconds.toFixed(1)} s, indexes ${times.indexesSeconds.toFixed(1)} s, vacuum analyze ${((performance.now() - t1) / 1000).toFixed(1)} s)`)
      const headers = { authorization: `Bearer ${await service.login()}` }
      const check = await (await fetch(`${service.origin}/api/v1/systems?size=1&fields=uid`, { headers })).json() as { count: number }
      if (check.count !== SYSTEMS) throw new Error(`expected ${SYSTEMS} systems, the API counts ${check.count}`)
      const mix = kinds()
      const load = { origin: service.origin, headers, concurrency: CONCURRENCY }
      await runLoadInWorker({ ...load, kinds: mix, durationMs: 2000 }) // warm up: plans, caches, JIT
      console.log(`   each kind alone: ${KIND_SECONDS} s, one request at a time`)
      const single: LoadResult[] = []
      for (const k of mix) {
        const r = await runLoadInWorker({ ...load, concurrency: 1, kinds: [k], durationMs: KIND_SECONDS * 1000 })
        reportErrors(r)
        single.push(r)
      }
      console.log(`   each kind alone: ${KIND_SECONDS} s, ${CONCURRENCY} connections`)
      const alone: Summary[] = []
      for (const k of mix) {
        const r = await runLoadInWorker({ ...load, kinds: [k], durationMs: KIND_SECONDS * 1000 })
        reportErrors(r)
        alone.push(merge(r))
      }
      console.log(`   all kinds interleaved: ${SECONDS} s`)
      const found = await runLoadInWorker({ ...load, kinds: mix, durationMs: SECONDS * 1000 })
      reportErrors(found)
      console.log('   baseline: GET /api/v1/users/current')
      const base = await runLoadInWorker({ ...load, kinds: [{ name: 'users/current', paths: ['/api/v1/users/current'] }], durationMs: Math.max(3, SECONDS / 2) * 1000 })
      reportErrors(base)
      const figures: Figures = {
        store,
        seedSeconds,
        kinds: found.kinds.map((k, i) => ({
          name: k.name,
          single: merge(single[i] ?? { seconds: 0, kinds: [] }),
          alone: alone[i] ?? merge({ seconds: 0, kinds: [] }),
          inMix: summarize(k.latencies, k.errors, found.seconds)
        })),
        // Every kind for the same time, one at a time: their latencies together.
        single: summarize(single.flatMap((r) => r.kinds.flatMap((k) => k.latencies)), 0, single.reduce((n, r) => n + r.seconds, 0)),
        overall: merge(found),
        baseline: merge(base)
      }
      print(figures)
      return figures
    } finally {
      await service.close()
    }
  } finally {
    await scratch?.drop()
  }
}

function print (f: Figures): void {
  const nan = Number.NaN
  const line = (name: string, s: Summary | undefined, a: Summary, m: Summary | undefined): Cell[] =>
    [name, s?.p50 ?? nan, s?.p99 ?? nan, a.rps, a.p50, a.p99, m?.p50 ?? nan, m?.p99 ?? nan, a.errors + (m?.errors ?? 0)]
  console.log()
  console.log(table(['query kind', '1 at a time p50 ms', 'p99 ms', `${CONCURRENCY} conns req/s`, 'p50 ms', 'p99 ms', 'in mix p50 ms', 'p99 ms', 'errors'], [
    ...f.kinds.map((k) => line(k.name, k.single, k.alone, k.inMix)),
    line('all finds', f.single, f.overall, undefined),
    line('baseline users/current', undefined, f.baseline, undefined)
  ]))
  console.log(`\n   finds/s ÷ baseline req/s = ${(f.overall.rps / f.baseline.rps).toFixed(3)}`)
}

const results: Figures[] = []
results.push(await benchOn('pglite'))
if (SERVER_URL !== undefined) results.push(await benchOn('postgres'))
else console.log('\n(DATABASE_URL not set: PostgreSQL skipped)')

console.log('\n== summary')
console.log(table(['store', 'seed s', '1 at a time p50 ms', 'p99 ms', 'finds/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio'],
  results.map((f) => [f.store, f.seedSeconds, f.single.p50, f.single.p99, f.overall.rps, f.overall.p50, f.overall.p99, f.baseline.rps, f.overall.rps / f.baseline.rps])))
