// UsageRepository (storage/repositories/usage.repository.ts, usage-rollups.sql.ts, usage-aggregate.sql.ts): records
// stored once through their unique key, jsonb[] text fields, bigint columns as numbers, the newest-first orders, the
// month's bytes, and usage aggregations that answer the same from the records and from their daily rollups.
import { expect } from 'vitest'
import { DAY_MS } from '../../../core/domain/rollup.js'
import { USAGE_DATA_IDS, type AggregateFn } from '../../../core/domain/aggregation.js'
import { createDataQueriesRepository } from '../../../storage/repositories/data-queries.repository.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './store.js'

type NewRecord = Parameters<Repos['usage']['insert']>[0][number]
const D = Date.UTC(2026, 2, 1)
const BIG = 5_000_000_000 // past int4

function record (systemUid: string, patch: Partial<NewRecord> = {}): NewRecord {
  return {
    systemUid,
    uid: uniq('rec'),
    type: 'DATA',
    start: D,
    end: D + 60_000,
    partial: false,
    bytesSent: 100,
    bytesReceived: 200,
    bytesTotal: 300,
    roundedBytesTotal: 1024,
    roundedDuration: null,
    processedAt: D + 61_000,
    text: { apn: 'internet', visitedNetwork: null },
    ...patch
  }
}

export const usageContract = defineContract('UsageRepository', {
  'stores a record once, answers the new ones, lists newest first and gets a session\'s final record': async ({ repos, db }) => {
    const s = await newSystem(repos, await newCompany(repos))
    const interim = record(s, { end: D, partial: true, bytesTotal: 10 })
    const final = record(s, { uid: interim.uid, bytesTotal: BIG, bytesSent: BIG - 1 })
    const sms = record(s, { type: 'SMS_SENT', start: D + 1000, end: null, bytesSent: null, bytesReceived: null, bytesTotal: null, roundedBytesTotal: null, text: { phoneNumber: '+33 "6"' } })
    const added = await db.transaction(async (tx) => await createRepositories(tx).usage.insert([interim, final, sms, interim]))
    expect(added).toEqual([
      { systemUid: s, type: 'DATA', start: D, bytesTotal: 10 }, { systemUid: s, type: 'DATA', start: D, bytesTotal: BIG },
      { systemUid: s, type: 'SMS_SENT', start: D + 1000, bytesTotal: null }])
    expect(await repos.usage.insert([final])).toEqual([])
    expect(await repos.usage.insert([])).toEqual([])
    expect(await repos.usage.get(s, final.uid)).toEqual(final)
    expect(await repos.usage.get(s, 'none')).toBeUndefined()
    expect((await repos.usage.list(s, { from: D, to: D + DAY_MS }, 10)).map((r) => [r.type, r.bytesTotal])).toEqual([['SMS_SENT', null], ['DATA', BIG], ['DATA', 10]])
    expect((await repos.usage.list(s, { from: D, to: D + 1000 }, 1)).map((r) => r.bytesTotal)).toEqual([BIG])
    const many = await repos.usage.listMany([s, 'none'], { from: D, to: D + DAY_MS }, 1)
    expect(many.map((r) => [r.systemUid, r.type, r.bytesTotal, r.text])).toEqual([[s, 'DATA', BIG, { apn: 'internet', visitedNetwork: null }], [s, 'SMS_SENT', null, { phoneNumber: '+33 "6"' }]])
    expect(await repos.usage.listMany([], { from: D, to: D + 1 }, 1)).toEqual([])
  },

  'finds targets by uid or ICCID, billing from the offer, and adds the month\'s bytes from 0 in a new month': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const offer = uniq('offer')
    await db.query('INSERT INTO offers (uid, company_uid, name, limit_bytes, data_increment_bytes, voice_increment_seconds) VALUES ($1, $2, $3, $4, 1024, 60)', [offer, co, offer, BIG])
    const sub = uniq('sub')
    const iccid = uniq('8933')
    await db.query("INSERT INTO subscriptions (uid, company_uid, identifier, operator, state, creation_date) VALUES ($1, $2, $3, 'UNKNOWN', 'INVENTORY', 1)", [sub, co, iccid])
    const a = await newSystem(repos, co, { name: 'A', offerUid: offer, subscriptionUid: sub })
    const b = await newSystem(repos, co, { name: 'B', monthBytesTotal: 700, monthBytesTime: D - DAY_MS })
    const targets = await repos.usage.targets(co, [b], [iccid, 'none'])
    expect(targets.sort((x, y) => x.name.localeCompare(y.name))).toEqual([{ uid: a, name: 'A', iccid }, { uid: b, name: 'B', iccid: null }])
    expect(await repos.usage.targets(await newCompany(repos), [a], [iccid])).toEqual([])
    expect(await repos.usage.billing(co, [a, b, a])).toEqual(new Map([
      [a, { limit: BIG, increments: { dataBytes: 1024, voiceSeconds: 60 } }], [b, { limit: null, increments: { dataBytes: null, voiceSeconds: null } }]]))
    const month = D
    const first = await repos.usage.addMonthBytes(new Map([[a, BIG], [b, 5]]), month, D + 10)
    expect(first.sort((x, y) => x.bytesTotal - y.bytesTotal)).toEqual([{ systemUid: b, bytesTotal: 5, limit: null }, { systemUid: a, bytesTotal: BIG, limit: BIG }])
    expect(await repos.usage.addMonthBytes(new Map([[a, 1]]), month, D + 20)).toEqual([{ systemUid: a, bytesTotal: BIG + 1, limit: BIG }])
    await repos.usage.setUsageStatus([{ systemUid: a, status: 'EXCEEDING_PLAN' }])
    await repos.usage.setUsageStatus([])
    expect(await repos.systems.findByUid(co, a)).toMatchObject({ monthBytesTotal: BIG + 1, monthBytesTime: D + 20, usageStatus: 'EXCEEDING_PLAN' })
  },

  'aggregates usage data ids the same from the records and from their daily rollups': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    await repos.usage.insert([
      record(s, { start: D + 1000, bytesTotal: 300 }), record(s, { start: D + 2000, bytesTotal: BIG }),
      record(s, { start: D + DAY_MS + 5, bytesTotal: 7, processedAt: D + 2 * DAY_MS + 1 }),
      record(s, { type: 'SMS_SENT', start: D + 3000, end: null, bytesTotal: null }), record(s, { type: 'SMS_SENT', start: D + DAY_MS, end: null, bytesTotal: null })
    ])
    const usage = { DATA_BYTES_TOTAL: USAGE_DATA_IDS.DATA_BYTES_TOTAL!, SMS_SENT: USAGE_DATA_IDS.SMS_SENT!, INVOICED_DATA_BYTES_TOTAL: USAGE_DATA_IDS.INVOICED_DATA_BYTES_TOTAL! }
    const raw = createDataQueriesRepository(db, { rollups: false })
    const rows = async (repo: Repos['dataQueries'], fn: AggregateFn): Promise<string[]> => (await repo.aggregate({
      targets: { systems: [s] }, dataIds: [], usage, buckets: [D, D + DAY_MS, D + 2 * DAY_MS], from: D, to: D + 3 * DAY_MS, fn
    })).map((r) => `${r.dataId} ${r.bucket} ${r.v}`).sort()
    for (const fn of ['sum', 'cnt', 'max'] as const) expect({ fn, rows: await rows(repos.dataQueries, fn) }).toEqual({ fn, rows: await rows(raw, fn) })
    expect((await rows(repos.dataQueries, 'sum')).filter((r) => !r.endsWith('null'))).toEqual([
      `DATA_BYTES_TOTAL 0 ${BIG + 300}`, 'DATA_BYTES_TOTAL 1 7', 'INVOICED_DATA_BYTES_TOTAL 0 2048', 'INVOICED_DATA_BYTES_TOTAL 2 1024', 'SMS_SENT 0 1', 'SMS_SENT 1 1'])
  }
})
