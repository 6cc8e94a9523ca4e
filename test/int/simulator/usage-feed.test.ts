// A simulated fleet plays its SIMs' usage feed through the service ("The simulator can play an operator's
// usage feed"; docs/usage.md, dataUsage): the
// fleet registers its devices through the API, the feed's first play sends two days of history, the later ones
// what the operator reported since, as CSV files through POST /operations/systems/usages/import; every record is
// then read back through the usage endpoints, the DATA_BYTES_TOTAL and DATA_SESSION aggregations and dataUsage.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../../simulator/fleet.js'
import type { FeedRecord } from '../../../simulator/usage/feed.js'
import { eventually } from '../../helpers/devices.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../helpers/stack.js'
import { getSystem } from '../../helpers/systems.js'

type Json = Record<string, any>

const DAY = 86_400_000
let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack?.close() })

const get = async (url: string): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)
const monthStart = (t: number): number => { const d = new Date(t); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) }

describe('simulator usage feed', { timeout: 240_000 }, () => {
  it('imports the feed of a running fleet: every record readable through the API, the aggregations and dataUsage', async () => {
    const files: Array<readonly FeedRecord[]> = []
    const t0 = Date.now()
    // The operator's clock runs 600 times as fast as the test's, from a day ago: each live play brings minutes of
    // traffic (sessions that end, interim records of open ones), and every record stays in the past.
    const operatorNow = (): number => t0 - DAY + (Date.now() - t0) * 600
    const fleet = startFleet({
      api: { url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      devices: 3,
      protocol: 'rest',
      rate: 0.2,
      taskPollMs: 60_000,
      usage: {
        seed: 11,
        periodMs: 300,
        historyMs: 2 * DAY,
        profile: { eventsPerHour: 4, interimMs: 20 * 60_000, longSessionShare: 0.3 },
        limits: { maxRows: 80 },
        pollMs: 50,
        now: operatorNow,
        onImported: (records) => { files.push(records) }
      }
    })
    onTestFinished(async () => { await fleet.stop() })
    await fleet.ready
    const firstPlayEnd = t0 - DAY
    // Live plays after the history, until one of them brought records.
    await eventually(async () => files.flat().some((r) => r.reportedAt >= firstPlayEnd + 10 * 60_000) && (fleet.stats().usage?.plays ?? 0) >= 3, 120_000, 'live plays')
    await fleet.stop()

    const stats = fleet.stats().usage
    const records = files.flat()
    expect(stats).toMatchObject({ seed: 11, files: files.length, records: records.length, failed: 0, held: 0, errors: 0 })
    expect(files.length).toBeGreaterThan(3) // files of at most 80 rows
    expect(files.every((f) => f.length <= 80)).toBe(true)
    // An interim record is imported in the same file as its session's final record or in an earlier one.
    const fileOf = new Map<string, number>()
    files.forEach((f, i) => { for (const r of f) fileOf.set(`${r.uid} ${r.start} ${r.end ?? ''}`, i) })
    const finals = new Map(records.filter((r) => r.type === 'DATA' && !r.partial).map((r) => [r.uid, r]))
    const interims = records.filter((r) => r.partial)
    expect(interims.length).toBeGreaterThan(0)
    for (const r of interims) {
      const final = finals.get(r.uid)
      if (final !== undefined) expect(fileOf.get(`${r.uid} ${r.start} ${r.start}`)).toBeLessThanOrEqual(fileOf.get(`${final.uid} ${final.start} ${final.end ?? ''}`) ?? -1)
    }

    const from = t0 - 4 * DAY
    const to = Date.now() + 1000
    const devices = fleet.devices
    expect(new Set(records.map((r) => r.subscriptionIdentifier))).toEqual(new Set(devices.map((d) => d.identity.iccid)))
    for (const d of devices) {
      const own = records.filter((r) => r.subscriptionIdentifier === d.identity.iccid)
      const key = (r: Json): string => `${r.type as string} ${r.uid as string} ${r.start as number} ${(r.end as number | null) ?? ''} ${String(r.partial ?? false)} ${(r.bytesTotal as number | null) ?? ''}`
      // One system's records: every one of its SIM's records, most recent first.
      const listed = await get(`/api/v1/systems/${d.systemUid}/usages/records?from=${from}&to=${to}&size=500`) as Json[]
      expect(own.length).toBeLessThan(500)
      expect(listed.map(key).sort()).toEqual(own.map(key).sort())
      expect(listed.map((r) => r.start)).toEqual([...listed.map((r) => r.start)].sort((a, b) => b - a))
      // Field by field, as the operator filled them; the rounded bytes come from the default increment (1 KiB).
      const session = own.find((r) => r.type === 'DATA' && !r.partial) as FeedRecord
      const detail = await get(`/api/v1/systems/${d.systemUid}/usages/records/${session.uid}`)
      // A DATA record answers every field of the feed's record but the import's own columns and the peer number.
      const fields = Object.fromEntries(Object.entries(session).filter(([k]) => !['subscriptionIdentifier', 'reportedAt', 'phoneNumber'].includes(k)))
      expect(detail).toEqual({ ...fields, roundedBytesTotal: Math.ceil((session.bytesTotal ?? 0) / 1024) * 1024 })
      expect([detail.servedImei, detail.servedMsisdn, detail.apn]).toEqual([d.identity.imei, d.identity.mobileNumber, 'internet'])
      const call = own.find((r) => r.type === 'VOICE_OUT' || r.type === 'VOICE_IN')
      if (call !== undefined) {
        const c = listed.find((r) => r.uid === call.uid)
        expect(c).toMatchObject({ end: call.end, phoneNumber: call.phoneNumber, roundedDuration: Math.ceil(((call.end ?? 0) - call.start) / 60_000) * 60 })
      }

      // dataUsage: the DATA bytes of the records that start in the current month.
      const month = sum(own.filter((r) => r.type === 'DATA' && r.start >= monthStart(Date.now())).map((r) => r.bytesTotal ?? 0))
      expect((await getSystem(stack, d.systemUid)).dataUsage).toMatchObject({ bytesTotal: month, status: 'WITHIN_PLAN' })
    }

    // Several systems at once: {uid: {type: [{ts, v: {uid, end?}}]}}.
    const targets = devices.map((d) => d.systemUid).join(',')
    const many = await get(`/api/v1/systems/usages/records?targetIds=${targets}&from=${from}&to=${to}&size=500`)
    for (const d of devices) {
      const own = records.filter((r) => r.subscriptionIdentifier === d.identity.iccid)
      for (const type of ['DATA', 'SMS_SENT', 'SMS_RECEIVED', 'VOICE_IN', 'VOICE_OUT', 'MSU']) {
        const expected = own.filter((r) => r.type === type).map((r) => JSON.stringify({ ts: r.start, v: r.end === null ? { uid: r.uid } : { uid: r.uid, end: r.end } })).sort()
        expect(((many[d.systemUid]?.[type] ?? []) as Json[]).map((p) => JSON.stringify(p)).sort(), `${d.systemUid} ${type}`).toEqual(expected)
      }
    }

    // DATA_BYTES_TOTAL adds interim and final records up; DATA_SESSION counts a session once, whatever its records.
    const agg = await get(`/api/v1/systems/data/aggregated?targetIds=${targets}&dataIds=DATA_BYTES_TOTAL,DATA_SESSION&interval=1day&fn=sum&from=${from}&to=${to}`)
    for (const d of devices) {
      const data = records.filter((r) => r.subscriptionIdentifier === d.identity.iccid && r.type === 'DATA')
      const total = (id: string): number => sum(((agg[d.systemUid]?.[id] ?? []) as Array<{ v: number | null }>).map((p) => p.v ?? 0))
      expect(total('DATA_BYTES_TOTAL')).toBe(sum(data.map((r) => r.bytesTotal ?? 0)))
      expect(total('DATA_SESSION')).toBe(new Set(data.map((r) => r.uid)).size)
    }
  })
})
