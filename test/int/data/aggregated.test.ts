// GET /api/v1/systems/data/aggregated and /api/v1/systems/data/fleet (docs/devices.md, docs/usage.md,
// docs/api.md#limits; docs/devices.md; §Errors row "aggregated and fleet data points").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, type Json } from '../../helpers/systems.js'
import { insertPoints, insertUsage, utc } from '../../helpers/telemetry.js'

let stack: Stack
let a: string
let b: string
let foreign: string
let other: TestUser
let home: string
let otherCompany: string
let both: TestUser

const H = 3_600_000
const T0 = utc('2025-01-01T00:00:00')

beforeAll(async () => {
  stack = await startStack()
  a = (await createSystem(stack, { name: uniq('a') })).uid
  b = (await createSystem(stack, { name: uniq('b') })).uid
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view'] })
  foreign = (await createSystem(stack, { name: uniq('f') }, { token: other.token })).uid
  home = stack.companyUid
  otherCompany = await companyUid(stack, OTHER_COMPANY)
  // a: hour 0 → 1, 3; hour 1 → nothing; hour 2 → 10. b: hour 0 → 5; hour 2 → 20, 'text', true.
  await insertPoints(stack.db, a, [
    { dataId: 't', ts: T0 + 60_000, value: 1 },
    { dataId: 't', ts: T0 + 120_000, value: 3 },
    { dataId: 't', ts: T0 + 2 * H + 1, value: 10 }
  ])
  await insertPoints(stack.db, b, [
    { dataId: 't', ts: T0, value: 5 },
    { dataId: 't', ts: T0 + 2 * H, value: 20 },
    { dataId: 'flag', ts: T0 + 2 * H, value: true },
    { dataId: 'flag', ts: T0 + 2 * H + 1, value: false }
  ])
  await insertPoints(stack.db, foreign, [{ dataId: 't', ts: T0, value: 1000 }])
})
afterAll(async () => { await stack.close() })

const get = async (url: string, token = stack.adminToken) => await stack.call(token, { method: 'GET', url })
const json = async (url: string, token = stack.adminToken): Promise<Json> => {
  const res = await get(url, token)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
const agg = (q: string): string => `/api/v1/systems/data/aggregated?${q}`
const fleet = (q: string): string => `/api/v1/systems/data/fleet?${q}`
const range = `from=${T0}&to=${T0 + 3 * H}`
const values = (points: Array<{ v: unknown }>): unknown[] => points.map((p) => p.v)

describe('aggregated data points', () => {
  it('folds each hour with mean by default, most recent first, empty buckets null', async () => {
    expect(await json(agg(`targetIds=${a},${b}&dataIds=t&${range}`))).toEqual({
      [a]: { t: [{ ts: T0 + 2 * H, v: 10 }, { ts: T0 + H, v: null }, { ts: T0, v: 2 }] },
      [b]: { t: [{ ts: T0 + 2 * H, v: 20 }, { ts: T0 + H, v: null }, { ts: T0, v: 5 }] }
    })
  })

  it('knows every fn of conventions.md §Data and its aliases', async () => {
    const fold = async (fn: string): Promise<unknown[]> => values((await json(agg(`targetIds=${a}&dataIds=t&${range}&fn=${fn}`)))[a].t)
    expect(await fold('min')).toEqual([10, null, 1])
    expect(await fold('max')).toEqual([10, null, 3])
    expect(await fold('sum')).toEqual([10, null, 4])
    expect(await fold('ss')).toEqual([100, null, 10])
    expect(await fold('cnt')).toEqual([1, 0, 2]) // an empty bucket counts 0
    expect(await fold('count')).toEqual([1, 0, 2])
    expect(await fold('stddev')).toEqual([0, null, 1])
    expect(await fold('standardDeviation')).toEqual([0, null, 1])
    expect(await fold('MEAN')).toEqual([10, null, 2])
    expectError(await get(agg(`targetIds=${a}&dataIds=t&fn=median`)), 'request.invalid')
  })

  it('folds booleans as 1 and 0 and counts string points', async () => {
    const res = await json(agg(`targetIds=${b}&dataIds=flag&${range}&interval=3hour`))
    expect(res[b].flag).toEqual([{ ts: T0, v: 0.5 }])
  })

  it('aligns day, month and year buckets on the calendar in UTC and keeps a first bucket that starts before from', async () => {
    const c = (await createSystem(stack, { name: uniq('cal') })).uid
    await insertPoints(stack.db, c, [
      { dataId: 'n', ts: utc('2024-01-31T23:59:59'), value: 1 },
      { dataId: 'n', ts: utc('2024-02-01T00:00:00'), value: 2 },
      { dataId: 'n', ts: utc('2024-02-29T12:00:00'), value: 3 },
      { dataId: 'n', ts: utc('2024-03-15T00:00:00'), value: 4 },
      { dataId: 'n', ts: utc('2025-06-01T00:00:00'), value: 5 }
    ])
    const q = (interval: string, from: string, to: string, fn = 'sum'): string =>
      agg(`targetIds=${c}&dataIds=n&interval=${interval}&fn=${fn}&from=${utc(from)}&to=${utc(to)}`)
    expect((await json(q('1month', '2024-01-01T00:00:00', '2024-04-01T00:00:00')))[c].n).toEqual([
      { ts: utc('2024-03-01T00:00:00'), v: 4 }, { ts: utc('2024-02-01T00:00:00'), v: 5 }, { ts: utc('2024-01-01T00:00:00'), v: 1 }
    ])
    // 2month buckets start on odd months counted from January 1970: January, March...
    expect((await json(q('2month', '2024-02-01T00:00:00', '2024-04-01T00:00:00')))[c].n).toEqual([
      { ts: utc('2024-03-01T00:00:00'), v: 4 }, { ts: utc('2024-01-01T00:00:00'), v: 5 } // the point of January 31 falls before from
    ])
    expect((await json(q('1year', '2024-01-01T00:00:00', '2026-01-01T00:00:00')))[c].n).toEqual([
      { ts: utc('2025-01-01T00:00:00'), v: 5 }, { ts: utc('2024-01-01T00:00:00'), v: 10 }
    ])
    expect(values((await json(q('1day', '2024-02-28T00:00:00', '2024-03-01T00:00:00')))[c].n)).toEqual([3, null])
    expect(values((await json(q('12hour', '2024-01-31T12:00:00', '2024-02-01T12:00:00')))[c].n)).toEqual([2, 1])
  })

  it('answers `size` buckets ending at `to` when from is absent (its default is null)', async () => {
    const res = await json(agg(`targetIds=${a}&dataIds=t&to=${T0 + 3 * H}&size=2`))
    expect(res[a].t).toEqual([{ ts: T0 + 2 * H, v: 10 }, { ts: T0 + H, v: null }])
    const capped = await json(agg(`targetIds=${a}&dataIds=t&to=${T0 + 3 * H}&size=100000`))
    expect(capped[a].t).toHaveLength(500)
  })

  it('computes the usage data ids from usage records, on the start date or on the invoiced date', async () => {
    const u = (await createSystem(stack, { name: uniq('usage') })).uid
    const start = T0 + 10 * 60_000
    const session = 'session-1'
    await insertUsage(stack.db, u, { uid: session, type: 'DATA', start, end: start, partial: true, bytesSent: 100, bytesReceived: 50, bytesTotal: 150 })
    await insertUsage(stack.db, u, { uid: session, type: 'DATA', start, end: start + H + 30 * 60_000, processedAt: T0 + 2 * H + 1, bytesSent: 10, bytesReceived: 5, bytesTotal: 15, roundedBytesTotal: 1024 })
    await insertUsage(stack.db, u, { type: 'SMS_SENT', start: T0 + H, processedAt: T0 + H + 5 })
    await insertUsage(stack.db, u, { type: 'SMS_SENT', start: T0 + H + 1 })
    const ids = 'DATA_SESSION,DATA_BYTES_TOTAL,INVOICED_DATA_BYTES_TOTAL,SMS_SENT,INVOICED_SMS_SENT,DATA_DURATION'
    const res = await json(agg(`targetIds=${u}&dataIds=${ids}&${range}&fn=sum`))
    expect(values(res[u].DATA_SESSION)).toEqual([null, null, 1]) // two records of one session count once
    expect(values(res[u].DATA_BYTES_TOTAL)).toEqual([null, null, 165])
    expect(values(res[u].INVOICED_DATA_BYTES_TOTAL)).toEqual([1024, null, null]) // on the processing date
    expect(values(res[u].SMS_SENT)).toEqual([null, 2, null])
    expect(values(res[u].INVOICED_SMS_SENT)).toEqual([null, 2, null])
    expect(values(res[u].DATA_DURATION)).toEqual([null, null, 5400])
  })

  it('refuses a bad multiplier, a bad timescale, from after to, too many targets or data ids, foreign systems', async () => {
    for (const interval of ['0hour', '51day', 'hour', '1.5day', 'xday']) {
      expectError(await get(agg(`targetIds=${a}&dataIds=t&interval=${interval}`)), 'aggregation.invalid.multiplier')
    }
    for (const interval of ['1week', '2minute', '3']) {
      expectError(await get(agg(`targetIds=${a}&dataIds=t&interval=${interval}`)), 'aggregation.invalid.timescale')
    }
    expect((await get(agg(`targetIds=${a}&dataIds=t&interval=50DAY`))).statusCode).toBe(200)
    expectError(await get(agg(`targetIds=${a}&dataIds=t&from=${T0 + 1}&to=${T0}`)), 'invalid.timerange')
    const fiftyOne = Array.from({ length: 51 }, (_, i) => `s${i}`).join(',')
    expectError(await get(agg(`targetIds=${fiftyOne}&dataIds=t`)), 'aggregation.too.many.targets')
    const eleven = Array.from({ length: 11 }, (_, i) => `d${i}`).join(',')
    expectError(await get(agg(`targetIds=${a}&dataIds=${eleven}`)), 'aggregation.too.many.data')
    expectError(await get(agg(`targetIds=${a},${foreign}&dataIds=t`)), 'system.unknown')
    expectError(await get(agg('dataIds=t')), 'system.invalid.data.param')
  })
})

describe('fleet aggregated data points', () => {
  beforeAll(async () => {
    both = await createUser(stack, { rights: ['entities.systems.view'] })
    await stack.ctx.services.seed.seed({
      companies: [{ name: OTHER_COMPANY }],
      profiles: [{ company: OTHER_COMPANY, name: 'viewers', rights: ['entities.systems.view'] }],
      users: [{ email: both.email, name: both.email, password: both.password, companies: [{ company: OTHER_COMPANY, profile: 'viewers', administrator: false }] }]
    })
  })

  it('folds fn per system, then fleetFn over the systems of each company', async () => {
    // Home company, hour 0: a → mean 2, b → 5 (plus systems without data). Hour 2: a 10, b 20.
    const mean = await json(fleet(`targetIds=${home}&dataIds=t&${range}`))
    expect(mean).toEqual({ [home]: { t: [{ ts: T0 + 2 * H, v: 15 }, { ts: T0 + H, v: null }, { ts: T0, v: 3.5 }] } })
    const sumOfMax = await json(fleet(`targetIds=${home}&dataIds=t&${range}&fn=max&fleetFn=sum`))
    expect(values(sumOfMax[home].t)).toEqual([30, null, 8])
    const systemsReporting = await json(fleet(`targetIds=${home}&dataIds=t&${range}&fleetFn=cnt`))
    expect(values(systemsReporting[home].t)).toEqual([2, 0, 2])
  })

  it('reads every company the caller has access to, each on its own', async () => {
    const res = await json(fleet(`targetIds=${home},${otherCompany}&dataIds=t&${range}&fn=max`), both.token)
    expect(values(res[home].t)).toEqual([15, null, 4])
    expect(values(res[otherCompany].t)).toEqual([null, null, 1000])
  })

  it('refuses companies the caller cannot read, more than 5 companies, and the aggregation errors', async () => {
    expectError(await get(fleet(`targetIds=${home},${otherCompany}&dataIds=t`)), 'company.unknown')
    expectError(await get(fleet(`targetIds=${home}&dataIds=t`), other.token), 'company.unknown')
    const six = [home, 'c2', 'c3', 'c4', 'c5', 'c6'].join(',')
    expectError(await get(fleet(`targetIds=${six}&dataIds=t`)), 'aggregation.too.many.targets')
    expectError(await get(fleet(`targetIds=${home}&dataIds=${Array.from({ length: 11 }, (_, i) => `d${i}`).join(',')}`)), 'aggregation.too.many.data')
    expectError(await get(fleet(`targetIds=${home}&dataIds=t&interval=60hour`)), 'aggregation.invalid.multiplier')
    expectError(await get(fleet(`targetIds=${home}&dataIds=t&interval=1fortnight`)), 'aggregation.invalid.timescale')
    expectError(await get(fleet(`targetIds=${home}&dataIds=t&from=${T0}&to=${T0 - 1}`)), 'invalid.timerange')
    expectError(await get(fleet(`targetIds=${home}&dataIds=t&fleetFn=avg`)), 'request.invalid')
  })

  it('needs entities.systems.view in each target company', async () => {
    const noView = await createUser(stack, { rights: ['entities.systems.view'] })
    await stack.ctx.services.seed.seed({
      companies: [{ name: OTHER_COMPANY }],
      profiles: [{ company: OTHER_COMPANY, name: 'creators', rights: ['entities.systems.create'] }],
      users: [{ email: noView.email, name: noView.email, password: noView.password, companies: [{ company: OTHER_COMPANY, profile: 'creators', administrator: false }] }]
    })
    const token = await stack.login(noView.email, noView.password)
    expectError(await get(fleet(`targetIds=${home},${otherCompany}&dataIds=t`), token), 'missing.rights', 403)
  })
})
