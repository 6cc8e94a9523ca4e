// docs/store.md#rollups: aggregated and fleet queries answer through the hourly and daily rollups what they answer from the
// raw points, for every fn × fleetFn × interval, on generated points(numbers, nulls, booleans, strings, values at the
// edges of hours, days, months and years, written in several batches out of order) and ranges on and off the hour.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Db } from '../../../core/ports/store.js'
import type { DataValue } from '../../../core/domain/device-message.js'
import { AGGREGATE_FNS, TIMESCALES, USAGE_DATA_IDS, bucketsOf, type AggregateFn, type Interval } from '../../../core/domain/aggregation.js'
import type { AggregateQuery, AggregateRow } from '../../../core/ports/data-queries.js'
import { createDataQueriesRepository } from '../../../storage/repositories/data-queries.repository.js'
import { createTelemetryRepository } from '../../../storage/repositories/telemetry.repository.js'
import { createUsageRepository } from '../../../storage/repositories/usage.repository.js'
import { rebuildRollups } from '../../../storage/repositories/rollups.sql.js'
import { createTestDb, type TestDb } from '../../helpers/test-db.js'

const H = 3_600_000
/** Edges of a day and a month (Jan 31 → Feb 1), of a leap day, and of a year, in UTC. */
const ANCHORS = [Date.UTC(2024, 1, 1), Date.UTC(2024, 2, 1), Date.UTC(2025, 0, 1)]
const COMPANIES = ['c-a', 'c-b', 'c-c']
/** Systems by company: c-c has one, c-a three. */
const SYSTEMS: Record<string, string> = { s1: 'c-a', s2: 'c-a', s3: 'c-a', s4: 'c-b', s5: 'c-b', s6: 'c-c' }
const IDS = ['t', 'u', 'flag']
const SMS_SENT = USAGE_DATA_IDS.SMS_SENT

let testDb: TestDb
let db: Db

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  for (const c of COMPANIES) await db.query('INSERT INTO companies (uid, name, created_at) VALUES ($1, $1, 0)', [c])
  for (const [s, c] of Object.entries(SYSTEMS)) {
    await db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
      VALUES ($1, $2, $1, 'INVENTORY', 'INVENTORY', 'INVENTORY', 0, 0)`, [s, c])
  }
}, 60_000)
afterAll(async () => { await testDb.drop() })

/** A time near the anchor: often on an hour edge or one ms from it, else anywhere in the 3 hours around. */
const timeNear = (anchor: number): fc.Arbitrary<number> => fc.oneof(
  fc.constantFrom(-H, -1, 0, 1, H - 1, H, 2 * H),
  { weight: 3, arbitrary: fc.integer({ min: 0, max: H - 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: -H, max: 2 * H }) },
  fc.integer({ min: -3 * H, max: 3 * H })
).map((d) => anchor + d)

const value: fc.Arbitrary<DataValue> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
  { weight: 3, arbitrary: fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 100) },
  { weight: 1, arbitrary: fc.constantFrom(1e12 + 0.5, -1e12, 123456.789) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom('on', 'off', '') },
  { weight: 1, arbitrary: fc.constant(null) }
)

interface GenPoint { system: string, dataId: string, ts: number, value: DataValue }
const point = (anchor: number): fc.Arbitrary<GenPoint> => fc.record({
  // Mostly one series, so that batches often meet in the same hour.
  system: fc.oneof({ weight: 2, arbitrary: fc.constant('s1') }, fc.constantFrom(...Object.keys(SYSTEMS))),
  dataId: fc.oneof({ weight: 4, arbitrary: fc.constant('t') }, fc.constantFrom(...IDS)),
  ts: timeNear(anchor),
  value
})

interface GenQuery { fn: AggregateFn, fleetFn: AggregateFn, interval: Interval, from: number | null, span: number, size: number, targets: string[], fleet: boolean, ids: string[], usage: boolean }
const query = (anchor: number): fc.Arbitrary<GenQuery> => fc.record({
  fn: fc.constantFrom(...AGGREGATE_FNS),
  fleetFn: fc.constantFrom(...AGGREGATE_FNS),
  interval: fc.record({ n: fc.constantFrom(1, 1, 2, 3), unit: fc.constantFrom(...TIMESCALES) }),
  from: fc.option(timeNear(anchor - 2 * H), { freq: 6 }),
  // From a few ms to three days: from and to land on and off the hour.
  span: fc.oneof(fc.constantFrom(H, 2 * H, 4 * H, 24 * H), fc.integer({ min: 1, max: 6 * H }), fc.integer({ min: 1, max: 3 * 24 * H })),
  size: fc.oneof(fc.constant(500), fc.integer({ min: 1, max: 5 })),
  targets: fc.subarray(Object.keys(SYSTEMS), { minLength: 1 }),
  fleet: fc.boolean(),
  ids: fc.subarray(IDS, { minLength: 1 }),
  usage: fc.boolean()
})

/** Writes the points in batches of one transaction each, as the ingest does, in the generated (unsorted) order. */
async function store (points: GenPoint[], cuts: number[]): Promise<void> {
  await db.query('DELETE FROM data_points')
  await db.query('DELETE FROM data_rollups')
  await db.query('DELETE FROM data_rollups_daily')
  await db.query('DELETE FROM data_rollup_deltas')
  await db.query('DELETE FROM usage_records')
  const bounds = [0, ...cuts.map((c) => Math.floor(c * points.length)).sort((a, b) => a - b), points.length]
  for (let i = 0; i + 1 < bounds.length; i++) {
    const batch = points.slice(bounds[i], bounds[i + 1])
    await db.transaction(async (tx) => {
      await createTelemetryRepository(tx).insertPoints(batch.map((p) => ({ systemUid: p.system, dataId: p.dataId, ts: p.ts, value: p.value, messageUid: randomUUID() })))
    })
    // Increments folded after every other batch, so that answers mix folded rows and increments not folded yet.
    if (i % 2 === 1) await db.transaction(async (tx) => { await createTelemetryRepository(tx).foldRollups(1_000_000) })
  }
  // A usage series too (daily rollups of its own, usage-rollups-property.test.ts): it must fold beside the hours.
  await db.query('DELETE FROM usage_rollups')
  for (const [i, p] of points.slice(0, 5).entries()) {
    await db.transaction(async (tx) => {
      await createUsageRepository(tx).insert([{ systemUid: p.system, uid: `u${i}`, type: 'SMS_SENT', start: p.ts, end: null, partial: false, bytesSent: null, bytesReceived: null, bytesTotal: null, roundedBytesTotal: null, roundedDuration: null, processedAt: null, text: {} }])
    })
  }
}

function aggregateQuery (g: GenQuery, to: number): AggregateQuery | undefined {
  const buckets = bucketsOf(g.from, to, g.interval, g.size)
  if (buckets.length === 0) return undefined
  const first = buckets[0] ?? to
  const targets = g.fleet
    ? { companies: [...new Set(g.targets.map((s) => SYSTEMS[s] ?? ''))] }
    : { systems: g.targets }
  return {
    targets,
    dataIds: g.ids,
    usage: g.usage && SMS_SENT !== undefined ? { SMS_SENT } : {},
    buckets,
    from: g.from ?? first,
    to,
    fn: g.fn,
    ...g.fleet ? { fleetFn: g.fleetFn } : {}
  }
}

/**
 * How far two answers may differ: sums of floats in another order differ by rounding only, bounded here by 1e-9 of
 * the magnitude the function works at over the bucket's own points (the values for mean, min, max, stddev; their sum
 * for sum; sums of squares for ss). Per-system results that are exact (min, max, cnt) folded by an exact fleetFn
 * must be equal.
 */
function tolerance (g: GenQuery, q: AggregateQuery, points: GenPoint[], key: string, dataId: string, bucket: number): number {
  const systems = g.fleet ? Object.keys(SYSTEMS).filter((s) => SYSTEMS[s] === key) : [key]
  const lo = Math.max(q.from, q.buckets[bucket] ?? q.from)
  const hi = Math.min(q.to, q.buckets[bucket + 1] ?? q.to)
  const nums = points.filter((p) => systems.includes(p.system) && p.dataId === dataId && p.ts >= lo && p.ts < hi)
    .map((p) => typeof p.value === 'number' ? p.value : typeof p.value === 'boolean' ? 1 : 0)
  const a = Math.max(1, ...nums.map(Math.abs))
  const n = Math.max(5, nums.length)
  const scale = (fn: AggregateFn, x: number, count: number): number =>
    fn === 'sum' ? x * count : fn === 'ss' ? x * x * count : fn === 'cnt' ? count : x
  const exact = (fn: AggregateFn): boolean => fn === 'min' || fn === 'max' || fn === 'cnt'
  if (!g.fleet) return exact(g.fn) ? 0 : 1e-9 * scale(g.fn, a, n)
  if (exact(g.fn) && exact(g.fleetFn)) return 0
  return 1e-9 * scale(g.fleetFn, scale(g.fn, a, n), systems.length)
}

const answered = (rows: AggregateRow[]): Map<string, AggregateRow> =>
  // Rows of points before the first bucket (a `size` shorter than the range) never reach an answer.
  new Map(rows.filter((r) => r.bucket >= 0).map((r) => [`${r.key} ${r.dataId} ${r.bucket}`, r]))

function expectSame (rollup: AggregateRow[], raw: AggregateRow[], tol: (r: AggregateRow) => number, what: string): void {
  const a = answered(rollup)
  const b = answered(raw)
  expect([...a.keys()].sort(), what).toEqual([...b.keys()].sort())
  for (const [k, r] of b) {
    const v = r.v
    const w = a.get(k)?.v ?? null
    const t = tol(r)
    if (v === null || w === null || t === 0) expect(w, `${what} ${k}`).toBe(v)
    else expect(Math.abs(w - v), `${what} ${k}: rollups ${w}, raw ${v}`).toBeLessThanOrEqual(t)
  }
}

describe('aggregations through the rollups', () => {
  it('answer what the raw points answer, for every fn, fleetFn and interval', async () => {
    const rollups = createDataQueriesRepository(db)
    const raw = createDataQueriesRepository(db, { rollups: false })
    const run = fc.constantFrom(...ANCHORS).chain((anchor) => fc.record({
      anchor: fc.constant(anchor),
      points: fc.array(point(anchor), { minLength: 1, maxLength: 120 }),
      cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
      queries: fc.array(query(anchor), { minLength: 1, maxLength: 12 })
    }))
    await fc.assert(fc.asyncProperty(run, async ({ anchor, points, cuts, queries }) => {
      await store(points, cuts)
      for (const g of queries) {
        const to = (g.from ?? anchor - 2 * H) + g.span
        const q = aggregateQuery(g, to)
        if (q === undefined) continue
        const what = JSON.stringify({ ...g, to })
        expectSame(await rollups.aggregate(q), await raw.aggregate(q), (r) => tolerance(g, q, points, r.key, r.dataId, r.bucket), what)
      }
    }), { numRuns: 100 })
  }, 600_000)

  it('merges the batches of one hour (sums, extremes, deviation) as one fold of their points', async () => {
    const t0 = ANCHORS[2] ?? 0
    const batches: DataValue[][] = [[1, 3, 'x'], [10, null], [true, -7.5, 2.25], [1e12]]
    const points = batches.flatMap((b, i) => b.map((v, j): GenPoint => ({ system: 's2', dataId: 'u', ts: t0 + 60_000 * (10 * j + i), value: v })))
    await store(points, [3 / 9, 5 / 9, 8 / 9])
    const q = (fn: AggregateFn): AggregateQuery => ({ targets: { systems: ['s2'] }, dataIds: ['u'], usage: {}, buckets: [t0 - H], from: t0 - H, to: t0 + 2 * H, fn })
    const rollups = createDataQueriesRepository(db)
    const raw = createDataQueriesRepository(db, { rollups: false })
    const tol = (fn: AggregateFn): number => fn === 'min' || fn === 'max' || fn === 'cnt' ? 0 : 1e-9 * (fn === 'ss' ? 1e24 : 1e12)
    for (const fn of AGGREGATE_FNS) expectSame(await rollups.aggregate(q(fn)), await raw.aggregate(q(fn)), () => tol(fn), fn)
    // The population deviation of the seven numbers, computed here in two passes.
    const nums = [1, 3, 10, 1, -7.5, 2.25, 1e12]
    const mean = nums.reduce((a, b) => a + b) / nums.length
    const sd = Math.sqrt(nums.reduce((a, b) => a + (b - mean) ** 2, 0) / nums.length)
    expect(Math.abs(((await rollups.aggregate(q('stddev')))[0]?.v ?? 0) - sd)).toBeLessThan(1e-3)
  })

  it('answers from the raw points when an hour holds a value the rollups leave out (1e100 or more)', async () => {
    const t0 = ANCHORS[0] ?? 0
    await store([
      { system: 's1', dataId: 't', ts: t0 + 10, value: 2 },
      { system: 's1', dataId: 't', ts: t0 + H + 10, value: 1e120 },
      { system: 's1', dataId: 't', ts: t0 + 2 * H + 10, value: 4 }
    ], [])
    const q: AggregateQuery = { targets: { systems: ['s1'] }, dataIds: ['t'], usage: {}, buckets: [t0], from: t0, to: t0 + 3 * H, fn: 'max' }
    expect(await createDataQueriesRepository(db).aggregate(q)).toEqual([{ key: 's1', dataId: 't', bucket: 0, v: 1e120 }])
    expect(await createDataQueriesRepository(db).aggregate({ ...q, fn: 'cnt' })).toEqual([{ key: 's1', dataId: 't', bucket: 0, v: 3 }])
  })

  it('rebuilds from the raw points the rollups the increments wrote', async () => {
    const t0 = ANCHORS[1] ?? 0
    const points: GenPoint[] = []
    for (let i = 0; i < 200; i++) points.push({ system: `s${1 + (i % 6)}`, dataId: IDS[i % 7 % 3] ?? 't', ts: t0 + ((i * 7) % 31) * H + ((i * 7919) % H) - 5 * H, value: i % 11 === 0 ? null : i % 13 === 0 ? 'x' : i % 17 === 0 ? true : (i * 37) % 101 - 50.25 })
    await store(points, [0.3, 0.6])
    await db.transaction(async (tx) => { await createTelemetryRepository(tx).foldRollups(1_000_000) })
    type Row = Record<string, number | string | null | boolean>
    const read = async (table: string, column: string): Promise<Row[]> =>
      (await db.query<Row>(`SELECT system_uid, data_id, ${column}, cnt, n_num, sum, ss, min, max, m2, wide FROM ${table} ORDER BY 1, 2, 3`)).rows
    const incremental = await read('data_rollups', 'hour')
    const incrementalDays = await read('data_rollups_daily', 'day')
    expect(incremental.length).toBeGreaterThan(50)
    expect(incrementalDays.length).toBeGreaterThan(10)
    // A rollup gone wrong (as if written behind the store's back) is put right by the rebuild of its range.
    for (const table of ['data_rollups', 'data_rollups_daily']) {
      await db.query(`UPDATE ${table} SET cnt = cnt + 5, max = 1e6 WHERE system_uid = 's1'`)
      await db.query(`DELETE FROM ${table} WHERE system_uid = 's2'`)
    }
    expect(await rebuildRollups(db, { from: t0 - 6 * H, to: t0 + 26 * H })).toBe(incremental.length)
    for (const [before, after, column] of [[incremental, await read('data_rollups', 'hour'), 'hour'], [incrementalDays, await read('data_rollups_daily', 'day'), 'day']] as const) {
      expect(after.length, column).toBe(before.length)
      for (const [i, row] of before.entries()) {
        const other = after[i] ?? {}
        for (const [col, v] of Object.entries(row)) {
          if (typeof v === 'number' && col !== column) expect(Math.abs(Number(other[col]) - v), col).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)))
          else expect(String(other[col]), col).toBe(String(v))
        }
      }
    }
  })

  it('folds every increment once when folds run at once, in pieces: one at a time holds the lock, the others fold nothing', async () => {
    const t0 = ANCHORS[2] ?? 0
    const points: GenPoint[] = []
    for (let i = 0; i < 300; i++) points.push({ system: `s${1 + (i % 6)}`, dataId: IDS[i % 3] ?? 't', ts: t0 + ((i * 11) % 29) * H + ((i * 7919) % H) - 3 * H, value: (i * 37) % 101 - 50.25 })
    await db.query('DELETE FROM data_points')
    await db.query('DELETE FROM data_rollups')
    await db.query('DELETE FROM data_rollups_daily')
    await db.query('DELETE FROM data_rollup_deltas')
    for (let i = 0; i < points.length; i += 30) {
      const batch = points.slice(i, i + 30)
      await db.transaction(async (tx) => {
        await createTelemetryRepository(tx).insertPoints(batch.map((p) => ({ systemUid: p.system, dataId: p.dataId, ts: p.ts, value: p.value, messageUid: randomUUID() })))
      })
    }
    const increments = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM data_rollup_deltas')).rows[0]?.n ?? 0
    expect(increments).toBeGreaterThan(100)
    // Four folders at once, 7 increments a transaction: on PostgreSQL they overlap on connections of their own.
    const folder = async (): Promise<number> => {
      let total = 0
      for (;;) {
        const n = await db.transaction(async (tx) => await createTelemetryRepository(tx).foldRollups(7))
        if (n === 0) return total
        total += n
      }
    }
    if (db.kind === 'postgres') {
      // While another session's fold holds the lock (here a transaction that took it and waits), a fold folds
      // nothing and deletes nothing, at once instead of waiting.
      let release: () => void = () => {}
      const held = new Promise<void>((resolve) => { release = resolve })
      let locked: () => void = () => {}
      const taken = new Promise<void>((resolve) => { locked = resolve })
      const holder = db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(7146202)')
        locked()
        await held
      })
      await taken
      expect(await db.transaction(async (tx) => await createTelemetryRepository(tx).foldRollups(1_000_000))).toBe(0)
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM data_rollup_deltas')).rows[0]?.n).toBe(increments)
      release()
      await holder
    } else {
      // The embedded store has one session: the lock it takes never keeps its own folds out.
      await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(7146202)')
        expect(await createTelemetryRepository(tx).foldRollups(7)).toBe(7)
      })
    }
    const folded = (await Promise.all([folder(), folder(), folder(), folder()])).reduce((a, b) => a + b, 0)
    const rest = await db.transaction(async (tx) => await createTelemetryRepository(tx).foldRollups(1_000_000))
    expect(folded + rest + (db.kind === 'postgres' ? 0 : 7)).toBe(increments)
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM data_rollup_deltas')).rows[0]?.n).toBe(0)
    // What the folds wrote is what a rebuild from the raw points writes.
    type Row = Record<string, number | string | null | boolean>
    const read = async (table: string, column: string): Promise<Row[]> =>
      (await db.query<Row>(`SELECT system_uid, data_id, ${column} AS period, cnt, n_num, sum, min, max FROM ${table} ORDER BY 1, 2, 3`)).rows
    const before = [await read('data_rollups', 'hour'), await read('data_rollups_daily', 'day')]
    await rebuildRollups(db, { from: null, to: null })
    const after = [await read('data_rollups', 'hour'), await read('data_rollups_daily', 'day')]
    expect(after.map((rows) => rows.length)).toEqual(before.map((rows) => rows.length))
    expect(before[0]?.reduce((n, r) => n + Number(r.cnt), 0)).toBe(points.length)
    for (const [t, rows] of before.entries()) {
      for (const [i, row] of rows.entries()) {
        const other = after[t]?.[i] ?? {}
        for (const [col, v] of Object.entries(row)) {
          if (typeof v === 'number') expect(Math.abs(Number(other[col]) - v), col).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)))
          else expect(String(other[col]), col).toBe(String(v))
        }
      }
    }
  })
})
