// Data queries over HTTP: raw and aggregated points on 50 systems × 30 days of one-minute data; p50/p99 per kind,
// each asked of a service folding the hourly rollups and then of one reading the raw points only (DATA_ROLLUPS=false)
// on the same store, with the speed-up of the rollups beside.
//
// The store gets BENCH_SYSTEMS systems with BENCH_DATA_IDS series each, one point a minute for BENCH_DAYS days
// (inserted with generate_series, indexes built after the load, the rollups rebuilt from them as the ingest would
// have kept them), then a worker thread asks the API each query kind
// below in turn, for BENCH_SECONDS seconds over BENCH_CONCURRENCY keep-alive connections (a request started before
// the end is waited for).
//
// Env: BENCH_SYSTEMS (50), BENCH_DAYS (30), BENCH_DATA_IDS (series per system: 4 on PGlite, 10 on PostgreSQL),
// BENCH_SECONDS (10 per kind), BENCH_CONCURRENCY (2), DATABASE_URL (a PostgreSQL server: the bench also runs there,
// on a database of its own that it drops after, or keeps with BENCH_KEEP_DB=1), BENCH_STORES (pglite,postgres).
import { randomInt } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../core/ports/store.js'
import { createPointPartitionsService, type PointPartitionsService } from '../core/services/data/point-partitions.service.js'
import { createRepositories } from '../storage/repositories/index.js'
import { runLoadInWorker, type LoadKind } from './lib/load.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedSystems } from './lib/seed-systems.js'
import { startBenchService, type BenchService } from './lib/service.js'
import { rebuildRollups } from '../storage/repositories/rollups.sql.js'
import { summarize, type Summary } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'

const SYSTEMS = Number(process.env.BENCH_SYSTEMS ?? 50)
const DAYS = Number(process.env.BENCH_DAYS ?? 30)
// PGlite writes a point about five times slower than PostgreSQL: by default it gets 4 of the 10 series (the kinds
// asking 10 ids then find 6 empty), PostgreSQL all 10.
const dataIdsOf = (store: Store): number => Math.min(10, Number(process.env.BENCH_DATA_IDS ?? (store === 'pglite' ? 4 : 10)))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2)
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((x) => x.trim())
// BENCH_KEEP_DB=1: the PostgreSQL scratch database is kept (its URL printed), to look at the queries' plans after.
const KEEP_DB = process.env.BENCH_KEEP_DB === '1'
const PATHS_PER_KIND = 100
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

type Store = 'pglite' | 'postgres'

const IDS = ['machine.temperature', 'machine.humidity', 'machine.pressure', 'machine.speed', 'machine.vibration',
  'machine.current', 'machine.voltage', '_RSSI', '_BYTES_SENT', '_BOARD_TEMPERATURE']

/** uid of seed-systems row i (bench/lib/seed-systems.ts: md5('s' || i)). */
async function systemUids (db: Db): Promise<string[]> {
  return (await db.query<{ uid: string }>(`SELECT md5('s' || i) AS uid FROM generate_series(1, ${SYSTEMS}) AS i`)).rows.map((r) => r.uid)
}

/** The points partitions service on the bench's store, its clock at `now`. */
function pointPartitions (db: Db, now: number): PointPartitionsService {
  return createPointPartitionsService({
    repos: createRepositories(db),
    inTransaction: async (fn) => await db.transaction(async (tx) => await fn(createRepositories(tx))),
    clock: { now: () => now },
    retentionDays: 0
  })
}

/**
 * One point a minute per system and data id over [end - DAYS, end): a daily cycle plus noise, each id around its own
 * level. The series index is dropped during the load and built after it, which is much faster than row by row.
 */
async function seedPoints (db: Db, end: number, dataIds: number): Promise<void> {
  const minutes = DAYS * 24 * 60
  const start = end - minutes * MINUTE
  // The monthly partitions of the whole range first, so that no point lands in the default partition; dropping the
  // partitioned indexes drops every partition's, and creating them again builds every partition's.
  await pointPartitions(db, end).ensureMonths(start, end)
  await db.exec('DROP INDEX IF EXISTS data_points_series_idx; DROP INDEX IF EXISTS data_points_message_idx')
  const { rows: [role] } = await db.query<{ super: boolean }>('SELECT rolsuper AS super FROM pg_roles WHERE rolname = current_user')
  for (const [d, id] of IDS.slice(0, dataIds).entries()) {
    await db.transaction(async (tx) => {
      // The rows reference systems that exist: a superuser (PGlite's user is one) skips the foreign-key triggers.
      if (role?.super === true) await tx.query('SET LOCAL session_replication_role = replica')
      await tx.query(`INSERT INTO data_points (system_uid, data_id, ts, num, str, message_uid)
        SELECT md5('s' || s), $1, $2::bigint + m::bigint * 60000, $3::float8 + 5 * sin(m / 229.1831) + random() * 2, NULL, 'bench'
        FROM generate_series(1, $4::int) AS s, generate_series(0, $5::int - 1) AS m`, [id, start, 10 * (d + 1), SYSTEMS, minutes])
    })
    process.stdout.write(`   ${id}: ${SYSTEMS * minutes} points\n`)
  }
  await db.exec("SET maintenance_work_mem = '256MB'")
  await db.exec(`CREATE INDEX data_points_series_idx ON data_points (system_uid, data_id, ts DESC);
    CREATE INDEX data_points_message_idx ON data_points (message_uid)`)
  await db.exec('VACUUM ANALYZE data_points')
}

const pick = <T>(xs: readonly T[], n: number): T[] => {
  const copy = [...xs]
  for (let i = copy.length - 1; i > 0; i--) { const j = randomInt(i + 1); [copy[i], copy[j]] = [copy[j] as T, copy[i] as T] }
  return copy.slice(0, Math.min(n, copy.length))
}

/** The companies of the fleet kind: the bench's own and four more, the bench administrator a member of each. */
const FLEET_COMPANIES = 5

async function fleetCompanies (db: Db, home: string): Promise<string[]> {
  const uids = [home]
  for (let i = 2; i <= FLEET_COMPANIES; i++) {
    const uid = `bench-company-${i}`
    uids.push(uid)
    await db.query('INSERT INTO companies (uid, name, created_at) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING', [uid, `Bench ${i}`])
    // The rights come with a profile of the company's own: a copy of the administrator's profile at home.
    await db.query(`INSERT INTO profiles (uid, company_uid, name, rights)
      SELECT $2 || '-admin', $2, p.name, p.rights FROM memberships m JOIN profiles p ON p.uid = m.profile_uid
      WHERE m.company_uid = $1 AND m.administrator LIMIT 1 ON CONFLICT DO NOTHING`, [home, uid])
    await db.query(`INSERT INTO memberships (user_uid, company_uid, profile_uid, administrator)
      SELECT user_uid, $2, $2 || '-admin', true FROM memberships WHERE company_uid = $1 AND administrator ON CONFLICT DO NOTHING`, [home, uid])
  }
  return uids
}

/**
 * Deals the systems out to the fleet companies (row i to company i % 5) for the fleet kind, or back to the bench's
 * company for the others (the aggregated endpoint reads the caller's own company's systems).
 */
async function dealSystems (db: Db, companies: string[], spread: boolean): Promise<void> {
  await db.query(`UPDATE systems s SET company_uid = CASE WHEN $3 THEN ($1::text[])[1 + i % $2::int] ELSE ($1::text[])[1] END
    FROM generate_series(1, ${SYSTEMS}) AS i WHERE s.uid = md5('s' || i)`, [companies, companies.length, spread])
}

/** The mix: a dashboard's last values and charts, and fleet reports over the whole month. */
function kinds (uids: string[], end: number, seeded: number, companies: string[]): LoadKind[] {
  // d ids among the seeded series, or all the seeded ones and empty ones to make up d.
  const idsOf = (d: number): string[] => d <= seeded ? pick(IDS.slice(0, seeded), d) : IDS.slice(0, d)
  const paths = (make: () => string): string[] => Array.from({ length: PATHS_PER_KIND }, make)
  const q = (path: string, params: Record<string, string | number>): string =>
    `${path}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`
  const raw = (t: number, d: number, extra: Record<string, string | number> = {}): string =>
    q('/api/v1/systems/data/raw', { targetIds: pick(uids, t).join(','), dataIds: idsOf(d).join(','), ...extra })
  const agg = (t: number, d: number, interval: string, fn: string, days: number): string =>
    q('/api/v1/systems/data/aggregated', { targetIds: pick(uids, t).join(','), dataIds: idsOf(d).join(','), interval, fn, from: end - days * DAY, to: end, size: 500 })
  const aDay = (): number => end - (1 + randomInt(DAYS - 1)) * DAY
  return [
    { name: 'raw 1 sys × 1 id, latest 100', paths: paths(() => raw(1, 1)) },
    { name: 'raw 5 sys × 10 ids, one day, 500', paths: paths(() => { const from = aDay(); return raw(5, 10, { from, to: from + DAY, size: 500 }) }) },
    { name: 'agg 1hour mean, 1 sys × 1 id, 7 d', paths: paths(() => agg(1, 1, '1hour', 'mean', 7)) },
    { name: 'agg 1hour max, 10 sys × 3 ids, 7 d', paths: paths(() => agg(10, 3, '1hour', 'max', 7)) },
    { name: 'agg 1hour mean, 1 sys × 10 ids, 30 d', paths: paths(() => agg(1, 10, '1hour', 'mean', DAYS)) },
    { name: 'agg 1day mean, 50 sys × 1 id, 30 d', paths: paths(() => agg(50, 1, '1day', 'mean', DAYS)) },
    { name: 'agg 1day max, 50 sys × 10 ids, 30 d', paths: paths(() => agg(50, 10, '1day', 'max', DAYS)) },
    {
      name: 'fleet 1day mean, 5 companies × 3 ids, 30 d',
      paths: paths(() => q('/api/v1/systems/data/fleet', { targetIds: companies.join(','), dataIds: idsOf(3).join(','), interval: '1day', fn: 'mean', fleetFn: 'mean', from: end - DAYS * DAY, to: end, size: 500 }))
    }
  ]
}

interface KindFigures { name: string, rollups: Summary, raw: Summary }
interface Figures { store: string, dataIds: number, seedSeconds: number, rollupSeconds: number, points: number, kinds: KindFigures[] }

/** Each kind in turn on one service (the fleet kind with the systems dealt out to the fleet companies). */
async function runKinds (service: BenchService, mix: LoadKind[], companies: string[]): Promise<Map<string, Summary>> {
  const load = { origin: service.origin, headers: { authorization: `Bearer ${await service.login()}` }, concurrency: CONCURRENCY }
  const out = new Map<string, Summary>()
  for (const kind of mix) {
    const fleet = kind.name.startsWith('fleet')
    if (fleet) await dealSystems(service.db, companies, true)
    await runLoadInWorker({ ...load, concurrency: 1, kinds: [{ name: kind.name, paths: kind.paths.slice(0, 2) }], durationMs: 1 }) // warm up
    const result = await runLoadInWorker({ ...load, kinds: [kind], durationMs: SECONDS * 1000 })
    if (fleet) await dealSystems(service.db, companies, false)
    for (const k of result.kinds) {
      if (k.errors > 0) console.error(`  ${k.name}: ${k.errors} errors, first: ${k.firstError ?? ''}`)
      out.set(k.name, summarize(k.latencies, k.errors, result.seconds))
      console.log(`   ${k.name}: ${k.latencies.length} requests`)
    }
  }
  return out
}

async function benchOn (store: Store): Promise<Figures> {
  const dataIds = dataIdsOf(store)
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_query')
  // One DATA_DIR for both services, so that on PGlite the raw-path service opens the store the first one seeded.
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-query-'))
  try {
    console.log(`\n== ${store}: ${SYSTEMS} systems × ${dataIds} data ids × ${DAYS} days of one-minute points`)
    const end = Math.floor(Date.now() / MINUTE) * MINUTE
    let mix: LoadKind[] = []
    let companies: string[] = []
    const figures: Figures = { store, dataIds, seedSeconds: 0, rollupSeconds: 0, points: 0, kinds: [] }
    let viaRollups = new Map<string, Summary>()
    const service = await startBenchService(scratch?.url, { dataDir })
    try {
      const t0 = performance.now()
      await seedSystems(service.db, service.companyUid, SYSTEMS, end)
      await seedPoints(service.db, end, dataIds)
      figures.seedSeconds = (performance.now() - t0) / 1000
      // The load wrote points behind the ingest's back: their rollups are rebuilt from them.
      const t1 = performance.now()
      const rows = await service.db.transaction(async (tx) => await rebuildRollups(tx, { from: null, to: null }))
      figures.rollupSeconds = (performance.now() - t1) / 1000
      figures.points = (await service.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM data_points')).rows[0]?.n ?? 0
      // The load's dirty pages written out before the queries run, as the checkpoints of a store that took its points
      // over a month would have: PGlite has no background writer, so the first queries would write them instead.
      await service.db.exec('CHECKPOINT')
      console.log(`   seeded ${figures.points} points in ${figures.seedSeconds.toFixed(1)} s, ${rows} hourly rollups in ${figures.rollupSeconds.toFixed(1)} s`)
      companies = await fleetCompanies(service.db, service.companyUid)
      mix = kinds(await systemUids(service.db), end, dataIds, companies)
      // One kind at a time, so that a month-long fleet aggregation does not show up in the latency of a chart.
      console.log(`   each kind: ${SECONDS} s over ${CONCURRENCY} connections, through the rollups`)
      viaRollups = await runKinds(service, mix, companies)
    } finally {
      await service.close()
    }
    const rawService = await startBenchService(scratch?.url, { dataDir, env: { DATA_ROLLUPS: 'false' } })
    try {
      console.log('   the same kinds, the raw points only (DATA_ROLLUPS=false)')
      const viaPoints = await runKinds(rawService, mix, companies)
      for (const kind of mix) {
        const rollups = viaRollups.get(kind.name)
        const raw = viaPoints.get(kind.name)
        if (rollups !== undefined && raw !== undefined) figures.kinds.push({ name: kind.name, rollups, raw })
      }
    } finally {
      await rawService.close()
    }
    print(figures)
    return figures
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    if (KEEP_DB && scratch !== undefined) console.log(`   kept ${scratch.url} (BENCH_KEEP_DB)`)
    else await scratch?.drop()
  }
}

/** How many times faster the rollups answer at the median (raw-only kinds read no aggregate: about 1). */
const speedUp = (k: KindFigures): string => k.rollups.p50 > 0 ? `${(k.raw.p50 / k.rollups.p50).toFixed(1)}×` : '-'

function print (f: Figures): void {
  const line = (k: KindFigures): Cell[] => [k.name, k.rollups.requests, k.rollups.p50, k.rollups.p99, k.rollups.errors, k.raw.requests, k.raw.p50, k.raw.p99, k.raw.errors, speedUp(k)]
  console.log()
  console.log(table(['query kind', 'requests', 'p50 ms', 'p99 ms', 'errors', 'raw requests', 'raw p50 ms', 'raw p99 ms', 'raw errors', 'speed-up p50'], f.kinds.map(line)))
}

const results: Figures[] = []
if (STORES.includes('pglite')) results.push(await benchOn('pglite'))
if (!STORES.includes('postgres')) { /* not asked for */ } else if (SERVER_URL !== undefined) results.push(await benchOn('postgres'))
else console.log('\n(DATABASE_URL not set: PostgreSQL skipped)')

console.log('\n== summary (p50 / p99 ms: through the rollups | raw points only | speed-up at p50)')
const names = results[0]?.kinds.map((k) => k.name) ?? []
console.log(table(['query kind', ...results.map((r) => r.store)], names.map((name) => [name, ...results.map((r) => {
  const k = r.kinds.find((x) => x.name === name)
  return k === undefined ? '-' : `${k.rollups.p50.toFixed(1)} / ${k.rollups.p99.toFixed(1)} | ${k.raw.p50.toFixed(1)} / ${k.raw.p99.toFixed(1)} | ${speedUp(k)}`
})])))
console.log(table(['store', 'series per system', 'points', 'seed s', 'rollups rebuild s'], results.map((r) => [r.store, r.dataIds, r.points, r.seedSeconds, r.rollupSeconds])))
