// dataUsage of systems kept by the usage import (docs/api.md#systems: dataUsage, docs/api.md#systems: the usageStatus
// filter and the dataUsage.bytesTotal / dataUsage.status sorts), and the usage data ids over imported records (§System
// usage data ids: invoiced values rounded to the offer's billing increment). docs/usage.md gives the threshold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../../helpers/stack.js'
import { seed, uniq } from '../../helpers/factories.js'
import { createSystem, getSystem, type Json } from '../../helpers/systems.js'
import { count, started, waitFinished } from '../../helpers/operations.js'
import { csvOf, getJson, importUsage, postUsageCsv } from './usage-helpers.js'

let stack: Stack
let offerUid: string
const LIMIT = 10_000

const monthStart = (t: number): number => { const d = new Date(t); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) }
const now = Date.now()
const M0 = monthStart(now)
// Records of this month, just before now (or at the month's first millisecond right after it began).
const T = Math.max(M0, now - 10 * 60_000)

async function systemWithOffer (label: string): Promise<string> {
  const uid = (await createSystem(stack, { name: uniq('du'), labels: [label] })).uid
  await stack.db.query('UPDATE systems SET offer_uid = $1 WHERE uid = $2', [offerUid, uid])
  return uid
}

const data = (system: string, uid: string, start: number, bytes: number): Array<string | number> => [system, uid, 'DATA', start, start + 1000, bytes]
const HEADER = ['system', 'uid', 'type', 'start', 'end', 'bytesTotal']
const find = async (q: string): Promise<string[]> => (await getJson(stack, `/api/v1/systems?${q}`)).items.map((s: Json) => s.uid)

beforeAll(async () => {
  stack = await startStack()
  // The seed file's offers carry the billing increments (docs/usage.md).
  const name = uniq('plan')
  await seed(stack, { offers: [{ company: COMPANY_NAME, name, limit: LIMIT, types: ['DATA'], dataIncrementBytes: 1000 }] })
  const { rows: [offer] } = await stack.db.query<{ uid: string }>('SELECT uid FROM offers WHERE name = $1', [name])
  offerUid = offer?.uid ?? ''
})
afterAll(async () => { await stack?.close() })

describe('dataUsage', () => {
  it('is the start of the month and WITHIN_PLAN without usage', async () => {
    const s = await getSystem(stack, await systemWithOffer(uniq('none')))
    expect(s.dataUsage).toMatchObject({ bytesTotal: 0, timestamp: M0, status: 'WITHIN_PLAN', limit: LIMIT })
  })

  it('adds up the month\'s DATA bytes as records arrive and moves WITHIN → NEARING (80 %) → EXCEEDING the offer\'s limit', async () => {
    const s = await systemWithOffer(uniq('grow'))
    const lastMonth = M0 - 86_400_000
    await importUsage(stack, csvOf([HEADER, data(s, 'a', T, 5000), data(s, 'old', lastMonth, 99_999)]))
    const first = (await getSystem(stack, s)).dataUsage
    expect(first).toMatchObject({ bytesTotal: 5000, status: 'WITHIN_PLAN' })
    expect(first.timestamp).toBeGreaterThanOrEqual(M0)
    await importUsage(stack, csvOf([HEADER, data(s, 'b', T, 3000)]))
    expect((await getSystem(stack, s)).dataUsage).toMatchObject({ bytesTotal: 8000, status: 'NEARING_PLAN' })
    await importUsage(stack, csvOf([HEADER, data(s, 'c', T, 2001), data(s, 'b', T, 3000)])) // b again: stored once
    expect((await getSystem(stack, s)).dataUsage).toMatchObject({ bytesTotal: 10_001, status: 'EXCEEDING_PLAN' })
    // SMS and voice are no data: they leave it as it is.
    await importUsage(stack, csvOf([['system', 'type', 'start'], [s, 'SMS_SENT', T]]))
    expect((await getSystem(stack, s)).dataUsage).toMatchObject({ bytesTotal: 10_001, status: 'EXCEEDING_PLAN' })
  })

  it('stays WITHIN_PLAN without an offer limit', async () => {
    const s = (await createSystem(stack, { name: uniq('free') })).uid
    await importUsage(stack, csvOf([HEADER, data(s, 'a', T, 10_000_000)]))
    expect((await getSystem(stack, s)).dataUsage).toMatchObject({ bytesTotal: 10_000_000, status: 'WITHIN_PLAN', limit: null })
  })

  it('is found by usageStatus and sorted by dataUsage.bytesTotal and dataUsage.status; a past month no longer counts', async () => {
    const L = uniq('filter')
    const [within, nearing, exceeding, stale] = [await systemWithOffer(L), await systemWithOffer(L), await systemWithOffer(L), await systemWithOffer(L)]
    await importUsage(stack, csvOf([HEADER, data(within, 'w', T, 100), data(nearing, 'n', T, 9000), data(exceeding, 'e', T, 20_000)]))
    // A system whose last computation was last month: its figures are over, whatever the columns hold.
    await stack.db.query("UPDATE systems SET month_bytes_total = 50000, month_bytes_time = $2, usage_status = 'EXCEEDING_PLAN' WHERE uid = $1", [stale, M0 - 1])
    expect((await getSystem(stack, stale)).dataUsage).toMatchObject({ bytesTotal: 0, timestamp: M0, status: 'WITHIN_PLAN' })
    expect(await find(`labels=${L}&usageStatus=EXCEEDING_PLAN`)).toEqual([exceeding])
    expect(await find(`labels=${L}&usageStatus=NEARING_PLAN`)).toEqual([nearing])
    expect((await find(`labels=${L}&usageStatus=WITHIN_PLAN`)).sort()).toEqual([within, stale].sort())
    expect(await find(`labels=${L}&orderBy=dataUsage.bytesTotal:desc`)).toEqual([exceeding, nearing, within, stale])
    expect(await find(`labels=${L}&orderBy=dataUsage.bytesTotal:asc`)).toEqual([stale, within, nearing, exceeding])
    const byStatus = await find(`labels=${L}&orderBy=dataUsage.status:asc,dataUsage.bytesTotal:asc`)
    expect(byStatus).toEqual([exceeding, nearing, stale, within]) // the status names in text order
  })
})

describe('concurrent imports', () => {
  it('add up on the same systems: every row stored, dataUsage the sum (on a server, chunks run side by side)', async () => {
    const L = uniq('conc')
    const systems = [await systemWithOffer(L), await systemWithOffer(L), await systemWithOffer(L)]
    const file = (k: number): string => csvOf([HEADER, ...Array.from({ length: 300 }, (_, i) => data(systems[i % 3] ?? '', `f${k}-${i}`, T, 1))])
    const ops = await Promise.all([1, 2, 3, 4].map(async (k) => await started(postUsageCsv(stack, file(k)))))
    for (const uid of ops) expect(count(await waitFinished(stack, uid, 60_000), 'SUCCESS')).toBe(300)
    for (const s of systems) expect((await getSystem(stack, s)).dataUsage.bytesTotal).toBe(400)
  })
})

describe('usage data ids over imported records', () => {
  it('counts by session start and bills by the offer\'s increment on the processing date', async () => {
    const s = await systemWithOffer(uniq('agg'))
    await importUsage(stack, csvOf([
      ['system', 'uid', 'type', 'start', 'end', 'partial', 'bytesSent', 'bytesReceived', 'phoneNumber'],
      [s, 'sess', 'DATA', T, '', 'true', 100, 50, ''],
      [s, 'sess', 'DATA', T, T + 60_000, 'false', 300, 51, ''],
      [s, 'call', 'VOICE_OUT', T, T + 61_000, '', '', '', '+331'],
      [s, 'sms', 'SMS_SENT', T, '', '', '', '', '+332'],
      [s, 'msu', 'MSU', T, '', '', '', '', '']
    ]))
    const ids = 'DATA_SESSION,DATA_BYTES_TOTAL,INVOICED_DATA_BYTES_TOTAL,VOICE_OUT_SESSION,VOICE_OUT_DURATION,INVOICED_VOICE_OUT_DURATION,SMS_SENT,INVOICED_SMS_SENT,MSU,INVOICED_MSU'
    const res = await getJson(stack, `/api/v1/systems/data/aggregated?targetIds=${s}&dataIds=${ids}&interval=1month&fn=sum&from=${M0}&to=${Date.now() + 1000}`)
    const v = (id: string): unknown => res[s][id][0].v
    expect([v('DATA_SESSION'), v('DATA_BYTES_TOTAL'), v('INVOICED_DATA_BYTES_TOTAL')]).toEqual([1, 501, 2000]) // 150 → 1000, 351 → 1000
    expect([v('VOICE_OUT_SESSION'), v('VOICE_OUT_DURATION'), v('INVOICED_VOICE_OUT_DURATION')]).toEqual([1, 61, 120])
    expect([v('SMS_SENT'), v('INVOICED_SMS_SENT'), v('MSU'), v('INVOICED_MSU')]).toEqual([1, 1, 1, 1])
  })
})
