// docs/store.md#rollups("Usage data ids get the same treatment"): aggregated and fleet queries of the usage data ids
// answer through the daily usage rollups what they answer from the usage records, for every fn × fleetFn × interval,
// on generated records (every type; sessions of several records, interim ones among them; counters left empty;
// invoiced values rounded with various increments; start and processing dates at the edges of days, months and
// years) written in several imports out of order, some records twice, and ranges on and off the day.
//
// "The same answer" is checked bit for bit wherever the raw path's float8 arithmetic is exact (whole numbers whose
// sums stay below 2^53, and always for min, max and cnt); elsewhere (stddev, durations with milliseconds, sums past
// 2^53) the raw answer itself depends on the order it reads the records in, and the two must agree to 1e-12 of the
// magnitude of the values (storage/repositories/usage-aggregate.sql.ts). The rollups themselves must be exactly those
// that a rebuild from the records, and the migration's backfill, write.
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Db } from '../../../core/ports/store.js'
import type { NewUsageRecord } from '../../../core/ports/usage.js'
import { AGGREGATE_FNS, TIMESCALES, USAGE_DATA_IDS, bucketsOf, type AggregateFn, type Interval, type UsageRecordType } from '../../../core/domain/aggregation.js'
import { hasEnd } from '../../../core/domain/usage-record.js'
import { roundedBytes, roundedDuration, type BillingIncrements } from '../../../core/domain/usage-billing.js'
import { rollupDays } from '../../../core/domain/usage-rollup.js'
import type { AggregateQuery, AggregateRow } from '../../../core/ports/data-queries.js'
import { createDataQueriesRepository } from '../../../storage/repositories/data-queries.repository.js'
import { createUsageRepository } from '../../../storage/repositories/usage.repository.js'
import { rebuildUsageRollups } from '../../../storage/repositories/usage-rollups.sql.js'
import { usagePointSql, usageSeries } from '../../../storage/repositories/usage-points.sql.js'
import { createTestDb, type TestDb } from '../../helpers/test-db.js'

const H = 3_600_000
const D = 24 * H
/** A month edge (Jan 31 → Feb 1), a leap day's, and a year's, in UTC. */
const ANCHORS = [Date.UTC(2024, 1, 1), Date.UTC(2024, 2, 1), Date.UTC(2025, 0, 1)]
const COMPANIES = ['c-a', 'c-b', 'c-c']
const SYSTEMS: Record<string, string> = { s1: 'c-a', s2: 'c-a', s3: 'c-a', s4: 'c-b', s5: 'c-b', s6: 'c-c' }
const USAGE_IDS = Object.keys(USAGE_DATA_IDS)
const TWO_53 = 2 ** 53

let testDb: TestDb
let db: Db
let migrationBackfill: string

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  for (const c of COMPANIES) await db.query('INSERT INTO companies (uid, name, created_at) VALUES ($1, $1, 0)', [c])
  for (const [s, c] of Object.entries(SYSTEMS)) {
    await db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
      VALUES ($1, $2, $1, 'INVENTORY', 'INVENTORY', 'INVENTORY', 0, 0)`, [s, c])
  }
  // The backfill statement of the migration, split as storage/migrate.ts splits it.
  const sql = await readFile(new URL('../../../storage/migrations/0026_usage_rollups.sql', import.meta.url), 'utf8')
  const statements = sql.split(/;\s*(?:\n|$)/).map((s) => s.replace(/^\s*--.*$/gm, '').trim())
  migrationBackfill = statements.find((s) => s.startsWith('INSERT INTO usage_rollups')) ?? ''
  expect(migrationBackfill).not.toBe('')
}, 60_000)
afterAll(async () => { await testDb.drop() })

/** A time near the anchor: often on a day edge or one ms from it, else anywhere in the 3 days around. */
const timeNear = (anchor: number): fc.Arbitrary<number> => fc.oneof(
  fc.constantFrom(-D, -1, 0, 1, H, D - 1, D, 2 * D),
  { weight: 3, arbitrary: fc.integer({ min: -D, max: 2 * D }) },
  fc.integer({ min: -3 * D, max: 3 * D })
).map((d) => anchor + d)

/** A counter: empty, small, or (rarely) large enough for sums of squares past 2^53. */
const counter: fc.Arbitrary<number | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 1_000_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }) }
)

/** A duration in ms: none, whole seconds, or with milliseconds (up to 3 days). */
const duration: fc.Arbitrary<number> = fc.oneof(
  fc.constant(0),
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 * 86_400 }).map((s) => s * 1000) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 * D }) }
)

const TYPES: UsageRecordType[] = ['DATA', 'VOICE_IN', 'VOICE_OUT', 'SMS_SENT', 'SMS_RECEIVED', 'MSU']

interface GenRecord { system: string, uid: string, type: UsageRecordType, start: number, partial: boolean, dur: number, processedAt: number | null, sent: number | null, received: number | null, total: number | null, rounded: 'offer' | 'given' | 'none', given: number }
const record = (anchor: number): fc.Arbitrary<GenRecord> => fc.record({
  system: fc.oneof({ weight: 2, arbitrary: fc.constant('s1') }, fc.constantFrom(...Object.keys(SYSTEMS))),
  // Few uids: the records of one session (interim and final) share one, and so may calls.
  uid: fc.constantFrom('k0', 'k1', 'k2', 'k3', 'k4'),
  type: fc.oneof({ weight: 4, arbitrary: fc.constant<UsageRecordType>('DATA') }, fc.constantFrom(...TYPES)),
  start: timeNear(anchor),
  partial: fc.boolean(),
  dur: duration,
  // The date of the import, or none (a record of an older store): INVOICED_ counters then take its end, else its start.
  processedAt: fc.option(timeNear(anchor), { freq: 5 }),
  sent: counter,
  received: counter,
  total: fc.oneof(fc.constant(null), counter),
  rounded: fc.constantFrom<GenRecord['rounded']>('offer', 'offer', 'given', 'none'),
  given: fc.integer({ min: 0, max: 2_000_000 })
})

/** The record as the import would store it (core/services/usage/usage-row.ts): interim DATA ends where it starts. */
function toRecord (g: GenRecord, inc: BillingIncrements): NewUsageRecord {
  const data = g.type === 'DATA'
  const voice = g.type === 'VOICE_IN' || g.type === 'VOICE_OUT'
  const partial = data && g.partial
  const end = !hasEnd(g.type) ? null : partial ? g.start : g.start + g.dur
  const bytesTotal = !data ? null : g.total ?? (g.sent ?? 0) + (g.received ?? 0)
  const rounded = (offer: () => number): number | null => g.rounded === 'none' ? null : g.rounded === 'given' ? g.given : offer()
  return {
    systemUid: g.system,
    uid: g.uid,
    type: g.type,
    start: g.start,
    end,
    partial,
    bytesSent: data ? g.sent : null,
    bytesReceived: data ? g.received : null,
    bytesTotal,
    roundedBytesTotal: bytesTotal === null ? null : rounded(() => roundedBytes(bytesTotal, inc)),
    roundedDuration: voice ? rounded(() => roundedDuration(g.start, end ?? g.start, inc)) : null,
    processedAt: g.processedAt,
    text: {}
  }
}

/** The offers' increments per system: the defaults, or others. */
const increments = fc.array(fc.record({
  dataBytes: fc.constantFrom(null, 1, 1000, 1024, 1_000_000),
  voiceSeconds: fc.constantFrom(null, 1, 30, 60)
}), { minLength: 6, maxLength: 6 })

/** Imports the records in batches of one transaction each, in the generated order, some a second time. */
async function store (records: NewUsageRecord[], cuts: number[], repeats: number[]): Promise<void> {
  await db.query('DELETE FROM usage_records')
  await db.query('DELETE FROM usage_rollups')
  const bounds = [0, ...cuts.map((c) => Math.floor(c * records.length)).sort((a, b) => a - b), records.length]
  for (let i = 0; i + 1 < bounds.length; i++) {
    const batch = records.slice(bounds[i], bounds[i + 1])
    // A repeat of an earlier record: stored once (docs/usage.md), counted once.
    for (const r of repeats) { const again = records[Math.floor(r * (bounds[i] ?? 0))]; if (again !== undefined && i > 0) batch.push(again) }
    await db.transaction(async (tx) => { await createUsageRepository(tx).insert(batch) })
  }
}

interface GenQuery { fn: AggregateFn, fleetFn: AggregateFn, interval: Interval, from: number | null, span: number, size: number, targets: string[], fleet: boolean, ids: string[] }
const query = (anchor: number): fc.Arbitrary<GenQuery> => fc.record({
  fn: fc.constantFrom(...AGGREGATE_FNS),
  fleetFn: fc.constantFrom(...AGGREGATE_FNS),
  // 24hour and 48hour buckets start on days: the rollups answer them too.
  interval: fc.oneof(
    fc.record({ n: fc.constantFrom(1, 1, 2, 3), unit: fc.constantFrom(...TIMESCALES) }),
    fc.record({ n: fc.constantFrom(24, 48), unit: fc.constant<Interval['unit']>('hour') })),
  from: fc.option(timeNear(anchor - 2 * D), { freq: 6 }),
  // From a few ms to six weeks: from and to land on and off the day.
  span: fc.oneof(fc.constantFrom(D, 2 * D, 4 * D, 7 * D), fc.integer({ min: 1, max: 2 * D }), fc.integer({ min: 1, max: 42 * D })),
  size: fc.oneof(fc.constant(500), fc.integer({ min: 1, max: 5 })),
  targets: fc.subarray(Object.keys(SYSTEMS), { minLength: 1 }),
  fleet: fc.boolean(),
  ids: fc.subarray(USAGE_IDS, { minLength: 1, maxLength: 6 })
})

function aggregateQuery (g: GenQuery, to: number): AggregateQuery | undefined {
  const buckets = bucketsOf(g.from, to, g.interval, g.size)
  if (buckets.length === 0) return undefined
  const targets = g.fleet ? { companies: [...new Set(g.targets.map((s) => SYSTEMS[s] ?? ''))] } : { systems: g.targets }
  const usage = Object.fromEntries(g.ids.flatMap((id) => { const u = USAGE_DATA_IDS[id]; return u === undefined ? [] : [[id, u]] }))
  return { targets, dataIds: [], usage, buckets, from: g.from ?? buckets[0] ?? to, to, fn: g.fn, ...g.fleet ? { fleetFn: g.fleetFn } : {} }
}

/** The raw path's own points (system, data id, ts, value as float8), to tell where its arithmetic is exact. */
type Points = Map<string, Array<{ ts: number, v: number }>>
async function rawPoints (): Promise<Points> {
  const sql = usageSeries().map(([id, u]) => usagePointSql(id, u, { filter: () => 'true', type: 'float8' })).join(' UNION ALL ')
  const out: Points = new Map()
  for (const r of (await db.query<{ system_uid: string, data_id: string, ts: string | number, num: number | null }>(sql)).rows) {
    if (r.num === null) continue
    const key = `${r.system_uid} ${r.data_id}`
    out.set(key, [...out.get(key) ?? [], { ts: Number(r.ts), v: r.num }])
  }
  return out
}

const whole = (xs: number[], limit: number): boolean => xs.every(Number.isInteger) && xs.reduce((a, x) => a + Math.abs(x), 0) < limit
/** Whether float8 folds fn over xs without rounding (then the order of the values cannot matter). */
function exactFold (fn: AggregateFn, xs: number[]): boolean {
  switch (fn) {
    case 'min': case 'max': case 'cnt': return true
    case 'sum': case 'mean': return whole(xs, TWO_53)
    case 'ss': return whole(xs, TWO_53) && whole(xs.map((x) => x * x), TWO_53)
    case 'stddev': return false
  }
}
/** The raw path's value of fn over xs when exactFold holds; the per-system values a fleetFn folds. */
function exactValue (fn: AggregateFn, xs: number[]): number | null {
  if (fn === 'cnt') return xs.length
  if (xs.length === 0) return null
  const sum = xs.reduce((a, x) => a + x, 0)
  switch (fn) {
    case 'min': return Math.min(...xs)
    case 'max': return Math.max(...xs)
    case 'sum': return sum
    case 'mean': return sum / xs.length
    case 'ss': return xs.reduce((a, x) => a + x * x, 0)
    case 'stddev': return null
  }
}

/** 1e-12 of the magnitude fn works at over xs (the values for mean, min, max, stddev; sums for sum and ss). */
function scale (fn: AggregateFn, a: number, n: number): number {
  return fn === 'sum' ? a * n : fn === 'ss' ? a * a * n : fn === 'cnt' ? n : a
}

/** 0 where both paths must answer the same bits, else how far apart rounding may take them. */
function tolerance (g: GenQuery, q: AggregateQuery, points: Points, row: AggregateRow): number {
  const systems = g.fleet ? Object.keys(SYSTEMS).filter((s) => SYSTEMS[s] === row.key) : [row.key]
  const lo = Math.max(q.from, q.buckets[row.bucket] ?? q.from)
  const hi = Math.min(q.to, q.buckets[row.bucket + 1] ?? q.to)
  const per = systems.map((s) => (points.get(`${s} ${row.dataId}`) ?? []).filter((p) => p.ts >= lo && p.ts < hi).map((p) => p.v))
  const all = per.flat()
  const a = Math.max(1, ...all.map(Math.abs))
  const n = Math.max(5, all.length)
  if (!g.fleet) return exactFold(g.fn, all) ? 0 : 1e-12 * scale(g.fn, a, n)
  const perSystemExact = per.every((xs) => exactFold(g.fn, xs))
  const values = per.filter((xs) => xs.length > 0 || g.fn === 'cnt').map((xs) => exactValue(g.fn, xs)).filter((v): v is number => v !== null)
  if (perSystemExact && exactFold(g.fleetFn, values)) return 0
  return 1e-12 * scale(g.fleetFn, scale(g.fn, a, n), systems.length)
}

const answered = (rows: AggregateRow[]): Map<string, AggregateRow> =>
  new Map(rows.filter((r) => r.bucket >= 0).map((r) => [`${r.key} ${r.dataId} ${r.bucket}`, r]))

function expectSame (rollup: AggregateRow[], raw: AggregateRow[], tol: (r: AggregateRow) => number, what: string): void {
  const a = answered(rollup)
  const b = answered(raw)
  expect([...a.keys()].sort(), what).toEqual([...b.keys()].sort())
  for (const [k, r] of b) {
    const w = a.get(k)?.v ?? null
    const t = tol(r)
    if (r.v === null || w === null || t === 0) expect(w, `${what} ${k}`).toBe(r.v)
    else expect(Math.abs(w - r.v), `${what} ${k}: rollups ${w}, raw ${r.v}`).toBeLessThanOrEqual(t)
  }
}

const ROLLUP_COLUMNS = 'system_uid, data_id, day, n, sum, ss, min, max'
/** The rollups as text, numerics normalised (a sum's display scale depends on the values it adds). */
async function rollupRows (): Promise<string[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT system_uid, data_id, day, n, trim_scale(sum) AS sum, trim_scale(ss) AS ss, trim_scale(min) AS min, trim_scale(max) AS max
     FROM usage_rollups ORDER BY system_uid, data_id, day`)
  return rows.map((r) => ROLLUP_COLUMNS.split(', ').map((c) => String(r[c])).join(' '))
}

describe('usage aggregations through the daily rollups', () => {
  it('answer what the usage records answer, for every fn, fleetFn and interval', async () => {
    const rollups = createDataQueriesRepository(db)
    const raw = createDataQueriesRepository(db, { rollups: false })
    let throughDays = 0
    let compared = 0
    const run = fc.constantFrom(...ANCHORS).chain((anchor) => fc.record({
      anchor: fc.constant(anchor),
      records: fc.array(record(anchor), { minLength: 1, maxLength: 150, size: 'medium' }),
      increments,
      cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
      repeats: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 3 }),
      queries: fc.array(query(anchor), { minLength: 1, maxLength: 20, size: 'medium' })
    }))
    await fc.assert(fc.asyncProperty(run, async ({ anchor, records, increments: inc, cuts, repeats, queries }) => {
      const systems = Object.keys(SYSTEMS)
      await store(records.map((g) => toRecord(g, inc[systems.indexOf(g.system)] ?? { dataBytes: null, voiceSeconds: null })), cuts, repeats)
      // The increments wrote what a rebuild from the records writes, and what the migration's backfill writes.
      const incremental = await rollupRows()
      await db.transaction(async (tx) => { await rebuildUsageRollups(tx) })
      expect(await rollupRows(), 'rebuild').toEqual(incremental)
      await db.query('DELETE FROM usage_rollups')
      await db.query(migrationBackfill)
      expect(await rollupRows(), 'migration').toEqual(incremental)

      const points = await rawPoints()
      for (const g of queries) {
        const to = (g.from ?? anchor - 2 * D) + g.span
        const q = aggregateQuery(g, to)
        if (q === undefined) continue
        if (rollupDays(q.buckets, Math.max(q.from, q.buckets[0] ?? q.from), q.to) !== undefined) throughDays++
        compared++
        const what = JSON.stringify({ ...g, to })
        expectSame(await rollups.aggregate(q), await raw.aggregate(q), (r) => tolerance(g, q, points, r), what)
      }
    }), { numRuns: 100 })
    // Most queries must have gone through the days, or this compared the raw path with itself.
    expect(throughDays).toBeGreaterThan(compared / 3)
  }, 600_000)

  it('moves a session to the day of its earliest record, counting it once, when an earlier record comes later', async () => {
    const t0 = ANCHORS[2] ?? 0
    const rec = (start: number, end: number, partial: boolean, bytes: number): NewUsageRecord => ({
      systemUid: 's2', uid: 'sess', type: 'DATA', start, end, partial, bytesSent: null, bytesReceived: null, bytesTotal: bytes, roundedBytesTotal: bytes, roundedDuration: null, processedAt: t0 + 5 * D, text: {}
    })
    // The final record first (day 2), then an interim record of the day before, then one more of day 2.
    await store([rec(t0 + D + 10, t0 + D + 5000, false, 7), rec(t0 + 20, t0 + 20, true, 3), rec(t0 + D + 10, t0 + D + 10, true, 1)], [1 / 3, 2 / 3], [])
    const q = (fn: AggregateFn, ids: string[]): AggregateQuery => ({
      targets: { systems: ['s2'] }, dataIds: [], usage: Object.fromEntries(ids.map((id) => [id, USAGE_DATA_IDS[id] ?? { type: 'DATA', measure: 'count', date: 'start' }])), buckets: [t0, t0 + D], from: t0, to: t0 + 2 * D, fn
    })
    const rows = await createDataQueriesRepository(db).aggregate(q('cnt', ['DATA_SESSION', 'DATA_BYTES_TOTAL', 'INVOICED_DATA_BYTES_TOTAL']))
    expect(rows.sort((a, b) => a.dataId.localeCompare(b.dataId) || a.bucket - b.bucket)).toEqual([
      { key: 's2', dataId: 'DATA_BYTES_TOTAL', bucket: 0, v: 1 },
      { key: 's2', dataId: 'DATA_BYTES_TOTAL', bucket: 1, v: 2 },
      // Day 2 still holds two records of the session: its bucket is answered, with no session in it.
      { key: 's2', dataId: 'DATA_SESSION', bucket: 0, v: 1 },
      { key: 's2', dataId: 'DATA_SESSION', bucket: 1, v: 0 }
    ])
    const { rows: days } = await db.query<{ day: string | number, n: string | number, min: string | null }>(
      "SELECT day, n, min FROM usage_rollups WHERE system_uid = 's2' AND data_id = 'DATA_SESSION' ORDER BY day")
    expect(days.map((d) => [Number(d.day), Number(d.n), d.min === null ? null : Number(d.min)])).toEqual([[t0, 1, 1], [t0 + D, 0, null]])
  })
})
