// GET /api/v1/systems/{uid}/usages/records, /api/v1/systems/usages/records and
// /api/v1/systems/{uid}/usages/records/{record_uid} (docs/usage.md; §Errors rows "usage
// records (one system)", "usage records (several systems)", "usage record detail"; §Limits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, type Json } from '../../helpers/systems.js'
import { insertUsage } from '../../helpers/telemetry.js'
import { minusMonths } from '../../../core/domain/aggregation.js'
import { getJson } from './usage-helpers.js'

let stack: Stack
let a: string
let b: string
let foreign: string

const H = 3_600_000
const T0 = Date.UTC(2025, 5, 1)
const range = (from: number, to: number): string => `from=${from}&to=${to}`
const get = async (url: string) => await stack.call(stack.adminToken, { method: 'GET', url })
const one = (uid: string, q = ''): string => `/api/v1/systems/${uid}/usages/records?${q}`
const many = (q: string): string => `/api/v1/systems/usages/records?${q}`

beforeAll(async () => {
  stack = await startStack()
  a = (await createSystem(stack, { name: uniq('a') })).uid
  b = (await createSystem(stack, { name: uniq('b') })).uid
  const other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view'] })
  foreign = (await createSystem(stack, { name: uniq('f') }, { token: other.token })).uid
  // a: a DATA session with an interim record, two SMS, a call. b: one MSU.
  await insertUsage(stack.db, a, { uid: 'sess', type: 'DATA', start: T0, end: T0, partial: true, bytesTotal: 10 })
  await insertUsage(stack.db, a, { uid: 'sess', type: 'DATA', start: T0, end: T0 + 2 * H, bytesTotal: 30, roundedBytesTotal: 1024 })
  await insertUsage(stack.db, a, { uid: 'sms-1', type: 'SMS_SENT', start: T0 + H })
  await insertUsage(stack.db, a, { uid: 'sms-2', type: 'SMS_SENT', start: T0 + 3 * H })
  await insertUsage(stack.db, a, { uid: 'call', type: 'VOICE_IN', start: T0 + 4 * H, end: T0 + 4 * H + 90_000, roundedDuration: 120 })
  await insertUsage(stack.db, b, { uid: 'msu', type: 'MSU', start: T0 + H })
  await insertUsage(stack.db, foreign, { uid: 'hidden', type: 'MSU', start: T0 })
})
afterAll(async () => { await stack?.close() })

describe('usage records of one system', () => {
  it('answers the records starting in [from, to), most recent first, with the fields of their type', async () => {
    const list: Json[] = await getJson(stack, one(a, range(T0, T0 + 5 * H)))
    expect(list.map((r) => [r.uid, r.type, r.start])).toEqual([
      ['call', 'VOICE_IN', T0 + 4 * H], ['sms-2', 'SMS_SENT', T0 + 3 * H], ['sms-1', 'SMS_SENT', T0 + H],
      ['sess', 'DATA', T0], ['sess', 'DATA', T0]
    ])
    expect(list[3]).toMatchObject({ end: T0 + 2 * H, partial: false, bytesTotal: 30, roundedBytesTotal: 1024 })
    expect(list[4]).toMatchObject({ end: T0, partial: true, bytesTotal: 10 })
    expect(list[0]).toMatchObject({ end: T0 + 4 * H + 90_000, roundedDuration: 120, phoneNumber: null })
    expect(list[1]).not.toHaveProperty('end')
    // from is included, to excluded.
    expect((await getJson(stack, one(a, range(T0 + H, T0 + 3 * H)))).map((r: Json) => r.uid)).toEqual(['sms-1'])
    // size: the most recent ones; larger than 500 is clamped; 0 answers nothing.
    expect((await getJson(stack, one(a, `${range(T0, T0 + 5 * H)}&size=2`))).map((r: Json) => r.uid)).toEqual(['call', 'sms-2'])
    expect(await getJson(stack, one(a, `${range(T0, T0 + 5 * H)}&size=100000`))).toHaveLength(5)
    expect(await getJson(stack, one(a, `${range(T0, T0 + 5 * H)}&size=0`))).toEqual([])
  })

  it('defaults to the last 3 months', async () => {
    const s = (await createSystem(stack, { name: uniq('recent') })).uid
    const now = Date.now()
    await insertUsage(stack.db, s, { uid: 'old', type: 'MSU', start: minusMonths(now, 3) - 60_000 })
    await insertUsage(stack.db, s, { uid: 'new', type: 'MSU', start: now - 60_000 })
    expect((await getJson(stack, one(s))).map((r: Json) => r.uid)).toEqual(['new'])
  })

  it('refuses an unknown or foreign system and from after to', async () => {
    expectError(await get(one('nope')), 'system.unknown')
    expectError(await get(one(foreign)), 'system.unknown')
    expectError(await get(one(a, range(T0 + 1, T0))), 'invalid.timerange')
  })
})

describe('usage records of several systems', () => {
  it('maps each system to its types and {ts, v: {uid, end?}}, size per system and type', async () => {
    const res = await getJson(stack, many(`targetIds=${a},${b}&${range(T0, T0 + 5 * H)}`))
    expect(res).toEqual({
      [a]: {
        DATA: [{ ts: T0, v: { uid: 'sess', end: T0 + 2 * H } }, { ts: T0, v: { uid: 'sess', end: T0 } }],
        SMS_SENT: [{ ts: T0 + 3 * H, v: { uid: 'sms-2' } }, { ts: T0 + H, v: { uid: 'sms-1' } }],
        VOICE_IN: [{ ts: T0 + 4 * H, v: { uid: 'call', end: T0 + 4 * H + 90_000 } }]
      },
      [b]: { MSU: [{ ts: T0 + H, v: { uid: 'msu' } }] }
    })
    const sized = await getJson(stack, many(`targetIds=${a}&${range(T0, T0 + 5 * H)}&size=1`))
    expect(sized[a].SMS_SENT).toEqual([{ ts: T0 + 3 * H, v: { uid: 'sms-2' } }])
    expect(sized[a].DATA).toHaveLength(1)
    // A system without records in the range answers an empty map.
    expect(await getJson(stack, many(`targetIds=${b}&${range(T0 + 2 * H, T0 + 5 * H)}`))).toEqual({ [b]: {} })
  })

  it('refuses more than 50 targets, unknown or foreign systems, no targets and from after to', async () => {
    const fiftyOne = Array.from({ length: 51 }, (_, i) => `s${i}`).join(',')
    expectError(await get(many(`targetIds=${fiftyOne}`)), 'aggregation.too.many.targets')
    const fifty = [a, ...Array.from({ length: 49 }, () => b)].join(',') // repeated uids count once
    expect((await get(many(`targetIds=${fifty}`))).statusCode).toBe(200)
    expectError(await get(many(`targetIds=${a},${foreign}`)), 'system.unknown')
    expectError(await get(many(`targetIds=${a},nope`)), 'system.unknown')
    expectError(await get(many('')), 'system.unknown')
    expectError(await get(many(`targetIds=${a}&${range(T0 + 1, T0)}`)), 'invalid.timerange')
  })
})

describe('usage record detail', () => {
  it('answers the record of that uid: of a session, its final record', async () => {
    expect(await getJson(stack, `/api/v1/systems/${a}/usages/records/sess`)).toMatchObject({ uid: 'sess', type: 'DATA', partial: false, end: T0 + 2 * H })
    expect(await getJson(stack, `/api/v1/systems/${a}/usages/records/sms-1`)).toMatchObject({ uid: 'sms-1', type: 'SMS_SENT', start: T0 + H })
  })

  it('refuses an unknown record, a record of another system and an unknown system', async () => {
    expectError(await get(`/api/v1/systems/${a}/usages/records/nope`), 'record.unknown')
    expectError(await get(`/api/v1/systems/${b}/usages/records/sess`), 'record.unknown')
    expectError(await get(`/api/v1/systems/${foreign}/usages/records/hidden`), 'system.unknown')
    expectError(await get('/api/v1/systems/nope/usages/records/sess'), 'system.unknown')
  })

  it('needs the view right on systems', async () => {
    const nobody = await createUser(stack, { rights: [] })
    const res = await stack.call(nobody.token, { method: 'GET', url: one(a) })
    expect(res.statusCode).toBe(403)
  })
})
