// DataQueriesRepository (storage/repositories/data-queries.repository.ts, aggregate.sql.ts, rollups.sql.ts): raw
// series as rows and as JSON text, message paging, and aggregations whose buckets (width_bucket over the starts) and
// folding functions must give the same figures from the points, from the rollup increments and from folded rollups.
import { expect } from 'vitest'
import { HOUR_MS } from '../../../core/domain/rollup.js'
import type { AggregateFn } from '../../../core/domain/aggregation.js'
import { createDataQueriesRepository } from '../../../storage/repositories/data-queries.repository.js'
import { newCompany, newSystem, uniq, defineContract, type Repos } from './store.js'

const T = Date.UTC(2026, 0, 1)
const MIN = 60_000

async function points (repos: Repos, systemUid: string, list: Array<[string, number, number | string | boolean | null]>): Promise<string> {
  const m = uniq('m')
  await repos.telemetry.insertMessages([{ uid: m, systemUid, protocol: 'MQTT', ts: T, receivedAt: T, nbDataPoints: list.length }], { again: false })
  await repos.telemetry.insertPoints(list.map(([dataId, ts, value]) => ({ systemUid, dataId, ts, value, messageUid: m })))
  return m
}

export const dataQueriesContract = defineContract('DataQueriesRepository', {

  'answers raw points most recent first, at most `size` per pair, values decoded, as rows and as JSON text': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    await points(repos, s, [['n', T + 1, 1.5], ['n', T + 2, -0.1], ['n', T + 3, 1e21], ['b', T + 1, true], ['t', T + 1, 'a"é'], ['z', T + 1, null]])
    const m = uniq('m')
    await repos.telemetry.insertMessages([{ uid: m, systemUid: s, protocol: 'MQTT', ts: T, receivedAt: T, nbDataPoints: 1 }], { again: false })
    await db.query("INSERT INTO data_points (system_uid, data_id, ts, num, str, message_uid) VALUES ($1, 'nan', $2, 'NaN', NULL, $3)", [s, T + 1, m])
    const range = { from: T, to: T + 3 }
    const raw = await repos.dataQueries.raw([s], ['n', 'b', 't', 'z', 'nan', 'none'], range, 1)
    expect(raw.sort((x, y) => x.dataId.localeCompare(y.dataId))).toEqual([
      { systemUid: s, dataId: 'b', ts: T + 1, value: true }, { systemUid: s, dataId: 'n', ts: T + 2, value: -0.1 },
      { systemUid: s, dataId: 'nan', ts: T + 1, value: null }, { systemUid: s, dataId: 't', ts: T + 1, value: 'a"é' },
      { systemUid: s, dataId: 'z', ts: T + 1, value: null }])
    const json = await repos.dataQueries.rawJson([s], ['n', 'b', 't', 'z', 'nan', 'none'], { from: T, to: T + 4 }, 5)
    expect(new Map(json.map((j) => [j.dataId, JSON.parse(j.json)]))).toEqual(new Map<string, unknown>([
      ['n', [{ ts: T + 3, v: 1e21 }, { ts: T + 2, v: -0.1 }, { ts: T + 1, v: 1.5 }]], ['b', [{ ts: T + 1, v: 1 }]],
      ['t', [{ ts: T + 1, v: 'a"é' }]], ['z', [{ ts: T + 1, v: null }]], ['nan', [{ ts: T + 1, v: null }]]]))
    expect(await repos.dataQueries.systemsOf(co, [s, 'other'])).toEqual([s])
    expect(await repos.dataQueries.systemsOf(co, [])).toEqual([])
  },

  'pages messages most recent first, ties by uid, after a cursor; answers a message\'s points': async ({ repos }) => {
    const s = await newSystem(repos, await newCompany(repos))
    const rows = [['b', T + 2], ['a', T + 2], ['c', T + 1], ['d', T + 5]] as const
    await repos.telemetry.insertMessages(rows.map(([uid, ts]) => ({ uid: `${s}-${uid}`, systemUid: s, protocol: 'REST', ts, receivedAt: ts, nbDataPoints: 0 })), { again: false })
    const range = { from: T, to: T + 5 }
    const page1 = await repos.dataQueries.messages(s, range, null, 2)
    expect(page1.map((x) => x.uid)).toEqual([`${s}-a`, `${s}-b`])
    const last = page1[1]!
    const page2 = await repos.dataQueries.messages(s, range, { ts: last.timestamp, uid: last.uid }, 2)
    expect(page2.map((x) => x.uid)).toEqual([`${s}-c`])
    expect(await repos.dataQueries.message(s, 'nope')).toBeUndefined()
    expect(await repos.dataQueries.messages(s, { from: T + 6, to: T + 9 }, null, 10)).toEqual([])
    const m = await points(repos, s, [['p', T + 1, 1], ['o', T + 1, 2], ['p', T + 3, 3]])
    expect(await repos.dataQueries.messagePoints(s, m)).toEqual([
      { dataId: 'o', ts: T + 1, value: 2 }, { dataId: 'p', ts: T + 3, value: 3 }, { dataId: 'p', ts: T + 1, value: 1 }])
    expect(await repos.dataQueries.messagePoints('other', m)).toEqual([])
  },

  'aggregates into buckets the same from points, rollup increments and folded rollups': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co)
    const b = await newSystem(repos, co)
    // Whole hours [T, T+3h) plus partial edges, a bucket of two hours then one of one hour.
    await points(repos, a, [['v', T + 10 * MIN, 1], ['v', T + 20 * MIN, 3], ['v', T + 70 * MIN, 5], ['v', T + 130 * MIN, 2], ['v', T + 200 * MIN, 'off'], ['w', T + 5 * MIN, 7]])
    await points(repos, b, [['v', T + 30 * MIN, 10], ['v', T + 150 * MIN, null]])
    const query = (fn: AggregateFn, targets: { systems: string[] } | { companies: string[] }, fleetFn?: AggregateFn): Parameters<Repos['dataQueries']['aggregate']>[0] =>
      ({ targets, dataIds: ['v'], usage: {}, buckets: [T, T + 2 * HOUR_MS], from: T, to: T + 4 * HOUR_MS, fn, ...(fleetFn === undefined ? {} : { fleetFn }) })
    const rawRepo = createDataQueriesRepository(db, { rollups: false })
    const sorted = (rows: Array<{ key: string, dataId: string, bucket: number, v: number | null }>): string[] =>
      rows.map((r) => `${r.key === a ? 'a' : r.key === b ? 'b' : r.key === co ? 'co' : r.key} ${r.dataId} ${r.bucket} ${r.v === null ? 'null' : Number(r.v.toPrecision(12))}`).sort()
    const expected: Record<string, string[]> = {
      mean: ['a v 0 3', 'a v 1 2', 'b v 0 10'],
      sum: ['a v 0 9', 'a v 1 2', 'b v 0 10'],
      min: ['a v 0 1', 'a v 1 2', 'b v 0 10'],
      max: ['a v 0 5', 'a v 1 2', 'b v 0 10'],
      cnt: ['a v 0 3', 'a v 1 2', 'b v 0 1', 'b v 1 0'],
      ss: ['a v 0 35', 'a v 1 4', 'b v 0 100'],
      stddev: ['a v 0 1.63299316186', 'a v 1 0', 'b v 0 0']
    }
    const check = async (): Promise<void> => {
      for (const [fn, rows] of Object.entries(expected)) {
        const q = query(fn as AggregateFn, { systems: [a, b] })
        const got = { raw: sorted(await rawRepo.aggregate(q)), rollups: sorted(await repos.dataQueries.aggregate(q)) }
        expect({ fn, ...got }).toEqual({ fn, raw: got.raw, rollups: got.raw })
        expect(got.raw.filter((r) => !r.endsWith(' null'))).toEqual(rows)
      }
      const fleet = query('max', { companies: [co] }, 'sum')
      expect(sorted(await repos.dataQueries.aggregate(fleet))).toEqual(sorted(await rawRepo.aggregate(fleet)))
      expect(sorted(await repos.dataQueries.aggregate(fleet)).filter((r) => !r.endsWith(' null'))).toEqual(['co v 0 15', 'co v 1 2'])
    }
    await check()
    while (await repos.telemetry.foldRollups(1000) > 0) { /* fold every increment */ }
    await check()
    expect(await repos.dataQueries.aggregate({ ...query('mean', { systems: [a] }), buckets: [] })).toEqual([])
    expect(await repos.dataQueries.aggregate(query('mean', { companies: [uniq('none')] }))).toEqual([])
  }
})
