// GET /api/v1/systems/{uid}/data and GET /api/v1/systems/data/raw (docs/devices.md, docs/api.md#limits; §Errors rows
// "last data points" and "raw data points").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, type Json } from '../../helpers/systems.js'
import { insertPoints, utc } from '../../helpers/telemetry.js'

let stack: Stack
let a: string
let b: string
let foreign: string
let viewerNoRight: TestUser

const T = utc('2025-03-10T12:00:00')
const MIN = 60_000

beforeAll(async () => {
  stack = await startStack()
  a = (await createSystem(stack, { name: uniq('a') })).uid
  b = (await createSystem(stack, { name: uniq('b') })).uid
  const other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view'] })
  foreign = (await createSystem(stack, { name: uniq('f') }, { token: other.token })).uid
  viewerNoRight = await createUser(stack, { rights: ['entities.systems.create'] })
  await insertPoints(stack.db, a, [
    { dataId: 'machine.temperature', ts: T - 2 * MIN, value: 20.5 },
    { dataId: 'machine.temperature', ts: T - MIN, value: 21 },
    { dataId: 'machine.temperature', ts: T, value: 22 },
    { dataId: 'machine.state', ts: T, value: 'RUNNING' },
    { dataId: 'machine.door', ts: T - MIN, value: true },
    { dataId: 'machine.nothing', ts: T - MIN, value: null },
    { dataId: '_RSSI', ts: T, value: -70 }
  ])
  await insertPoints(stack.db, b, [{ dataId: 'machine.temperature', ts: T - 5 * MIN, value: 30 }])
  await insertPoints(stack.db, foreign, [{ dataId: 'machine.temperature', ts: T, value: 99 }])
})
afterAll(async () => { await stack.close() })

const get = async (url: string, token = stack.adminToken) => await stack.call(token, { method: 'GET', url })
const json = async (url: string): Promise<Json> => {
  const res = await get(url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('last data points', () => {
  it('answers the last point of every data id with neither ids nor idPrefix', async () => {
    expect(await json(`/api/v1/systems/${a}/data`)).toEqual({
      _RSSI: [{ value: -70, timestamp: T }],
      'machine.door': [{ value: true, timestamp: T - MIN }],
      'machine.nothing': [{ value: null, timestamp: T - MIN }],
      'machine.state': [{ value: 'RUNNING', timestamp: T }],
      'machine.temperature': [{ value: 22, timestamp: T }]
    })
  })

  it('selects by ids (comma separated or repeated) and by idPrefix; unknown ids are absent', async () => {
    const want = { 'machine.temperature': [{ value: 22, timestamp: T }], 'machine.state': [{ value: 'RUNNING', timestamp: T }] }
    expect(await json(`/api/v1/systems/${a}/data?ids=machine.temperature,machine.state,no.such.id`)).toEqual(want)
    expect(await json(`/api/v1/systems/${a}/data?ids=machine.temperature&ids=machine.state`)).toEqual(want)
    expect(Object.keys(await json(`/api/v1/systems/${a}/data?idPrefix=machine.`)).sort())
      .toEqual(['machine.door', 'machine.nothing', 'machine.state', 'machine.temperature'])
    expect(await json(`/api/v1/systems/${a}/data?idPrefix=_`)).toEqual({ _RSSI: [{ value: -70, timestamp: T }] })
    // A prefix is no pattern: % and _ match themselves only.
    expect(await json(`/api/v1/systems/${a}/data?idPrefix=machine%25`)).toEqual({})
  })

  it('refuses ids and idPrefix together, an empty idPrefix and an ids naming nothing', async () => {
    expectError(await get(`/api/v1/systems/${a}/data?ids=machine.state&idPrefix=machine`), 'lastdata.incompatible.parameters')
    expectError(await get(`/api/v1/systems/${a}/data?idPrefix=`), 'lastdata.empty.parameters')
    expectError(await get(`/api/v1/systems/${a}/data?ids=,`), 'system.invalid.data.param')
  })

  it('answers system.unknown for a system of another company or no system, and 403 without the right', async () => {
    expectError(await get(`/api/v1/systems/${foreign}/data`), 'system.unknown')
    expectError(await get('/api/v1/systems/no-such-system/data'), 'system.unknown')
    expectError(await get(`/api/v1/systems/${a}/data`, viewerNoRight.token), 'missing.rights', 403)
  })
})

describe('raw data points', () => {
  const raw = (q: string): string => `/api/v1/systems/data/raw?${q}`

  it('answers each system and data id, most recent first, in [from, to)', async () => {
    expect(await json(raw(`targetIds=${a},${b}&dataIds=machine.temperature,machine.state&from=${T - 2 * MIN}&to=${T}`))).toEqual({
      [a]: {
        'machine.temperature': [{ ts: T - MIN, v: 21 }, { ts: T - 2 * MIN, v: 20.5 }], // to is exclusive, from inclusive
        'machine.state': []
      },
      [b]: { 'machine.temperature': [], 'machine.state': [] } // T - 5 min is before from
    })
    // The answer is written in pieces, one per (system, data id): the keys in the order asked, whichever it is.
    const res = await json(raw(`targetIds=${b},${a}&dataIds=machine.state,machine.temperature&from=${T - 2 * MIN}&to=${T}`))
    expect(Object.keys(res)).toEqual([b, a])
    for (const k of [a, b]) expect(Object.keys(res[k])).toEqual(['machine.state', 'machine.temperature'])
  })

  it('answers every kind of value as stored: numbers exactly, strings, booleans as 1 and 0, null, NaN and infinities as null', async () => {
    const id = uniq('kinds')
    const values = [0.1, -1e300, 2 ** 53 - 1, 'text "with" quotes, {braces} and \\', true, false, null, Number.NaN, Number.POSITIVE_INFINITY]
    await insertPoints(stack.db, a, values.map((value, i) => ({ dataId: id, ts: T - i * 1000, value })))
    const res = await json(raw(`targetIds=${a}&dataIds=${id}&from=${T - 60_000}&to=${T + 1}`))
    expect(res[a][id]).toEqual([
      { ts: T, v: 0.1 }, { ts: T - 1000, v: -1e300 }, { ts: T - 2000, v: 2 ** 53 - 1 },
      { ts: T - 3000, v: 'text "with" quotes, {braces} and \\' }, { ts: T - 4000, v: 1 }, { ts: T - 5000, v: 0 },
      { ts: T - 6000, v: null }, { ts: T - 7000, v: null }, { ts: T - 8000, v: null }
    ])
  })

  it('defaults to the last 3 months up to now', async () => {
    const now = Date.now()
    await insertPoints(stack.db, b, [
      { dataId: 'recent', ts: now - 10 * MIN, value: 1 },
      { dataId: 'recent', ts: now - 80 * 86_400_000, value: 2 },
      { dataId: 'recent', ts: now - 100 * 86_400_000, value: 3 }, // more than 3 months ago
      { dataId: 'recent', ts: now + 60 * MIN, value: 4 } // in the future: to defaults to now
    ])
    const res = await json(raw(`targetIds=${b}&dataIds=recent`))
    expect(res[b].recent.map((p: Json) => p.v)).toEqual([1, 2])
  })

  it('limits the points per (system, data id) pair with size (default 100, maximum 500)', async () => {
    const many = Array.from({ length: 600 }, (_, i) => ({ dataId: 'many', ts: T - i * 1000, value: i }))
    await insertPoints(stack.db, a, many)
    const from = T - 3_600_000
    const to = T + 1
    const sized = await json(raw(`targetIds=${a},${b}&dataIds=many&size=3&from=${from}&to=${to}`))
    expect(sized[a].many).toEqual([{ ts: T, v: 0 }, { ts: T - 1000, v: 1 }, { ts: T - 2000, v: 2 }])
    expect((await json(raw(`targetIds=${a}&dataIds=many&from=${from}&to=${to}`)))[a].many).toHaveLength(100)
    expect((await json(raw(`targetIds=${a}&dataIds=many&size=10000&from=${from}&to=${to}`)))[a].many).toHaveLength(500)
  })

  it('takes from and to in seconds too, and answers booleans as 1 or 0 and nulls as null', async () => {
    const res = await json(raw(`targetIds=${a}&dataIds=machine.door,machine.nothing&from=${(T - MIN) / 1000}&to=${T / 1000}`))
    expect(res[a]).toEqual({ 'machine.door': [{ ts: T - MIN, v: 1 }], 'machine.nothing': [{ ts: T - MIN, v: null }] })
  })

  it('refuses more than 5 systems and more than 10 data ids', async () => {
    const six = [a, b, 's3', 's4', 's5', 's6'].join(',')
    expectError(await get(raw(`targetIds=${six}&dataIds=x`)), 'aggregation.too.many.targets')
    const eleven = Array.from({ length: 11 }, (_, i) => `d${i}`).join(',')
    expectError(await get(raw(`targetIds=${a}&dataIds=${eleven}`)), 'aggregation.too.many.data')
    // Ten ids and five systems (repeated ids count once) are accepted... as long as they are the company's.
    expect((await get(raw(`targetIds=${a},${a},${b}&dataIds=${eleven.split(',').slice(0, 10).join(',')}`))).statusCode).toBe(200)
  })

  it('refuses from greater than to, missing targets or data ids, and systems of another company', async () => {
    expectError(await get(raw(`targetIds=${a}&dataIds=x&from=${T}&to=${T - 1}`)), 'system.invalid.timerange')
    expect((await get(raw(`targetIds=${a}&dataIds=x&from=${T}&to=${T}`))).statusCode).toBe(200) // empty, not wrong
    expectError(await get(raw('dataIds=x')), 'system.invalid.data.param')
    expectError(await get(raw(`targetIds=${a}`)), 'system.invalid.data.param')
    expectError(await get(raw(`targetIds=${a}&dataIds=`)), 'system.invalid.data.param')
    expectError(await get(raw(`targetIds=${a},${foreign}&dataIds=machine.temperature`)), 'system.unknown')
    expectError(await get(raw(`targetIds=${a}&dataIds=x`), viewerNoRight.token), 'missing.rights', 403)
  })
})
