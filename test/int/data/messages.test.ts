// GET /api/v1/systems/{uid}/messages and /api/v1/systems/{uid}/messages/{message_uid} (docs/devices.md,
// docs/api.md#limits; docs/api.md#using-the-api: `next` is the URL of the following page; §Errors rows "messages list"
// and "messages detail").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, type Json } from '../../helpers/systems.js'
import { insertMessage, utc } from '../../helpers/telemetry.js'

let stack: Stack
let s: string
let foreign: string
let foreignMessage: string

const T = utc('2025-05-01T08:00:00')

beforeAll(async () => {
  stack = await startStack()
  s = (await createSystem(stack, { name: uniq('m') })).uid
  const other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view'] })
  foreign = (await createSystem(stack, { name: uniq('f') }, { token: other.token })).uid
  foreignMessage = await insertMessage(stack.db, foreign, { ts: T, points: [{ dataId: 'x', ts: T, value: 1 }] })
})
afterAll(async () => { await stack.close() })

const get = async (url: string) => await stack.call(stack.adminToken, { method: 'GET', url })
const json = async (url: string): Promise<Json> => {
  const res = await get(url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The path and query of a `next` URL, to call it again through inject(). */
const pathOf = (url: string): string => { const u = new URL(url); return u.pathname + u.search }

describe('messages list', () => {
  it('lists the messages of the last 3 months, most recent first, with their fields', async () => {
    const now = Date.now()
    const sys = (await createSystem(stack, { name: uniq('recent') })).uid
    const m1 = await insertMessage(stack.db, sys, { ts: now - 60_000, protocol: 'REST', nbDataPoints: 3 })
    const m2 = await insertMessage(stack.db, sys, { ts: now - 1000, protocol: 'MQTT', nbDataPoints: 1 })
    await insertMessage(stack.db, sys, { ts: now - 100 * 86_400_000 }) // more than 3 months ago
    await insertMessage(stack.db, sys, { ts: now + 3_600_000 }) // after now
    expect(await json(`/api/v1/systems/${sys}/messages`)).toEqual({
      next: null,
      messages: [
        { uid: m2, timestamp: now - 1000, protocol: 'MQTT', nbDataPoints: 1 },
        { uid: m1, timestamp: now - 60_000, protocol: 'REST', nbDataPoints: 3 }
      ]
    })
  })

  it('pages with `next` until it is null, losing and repeating nothing, same timestamps included', async () => {
    const want: string[] = []
    for (let i = 0; i < 7; i++) want.push(await insertMessage(stack.db, s, { ts: T - Math.floor(i / 2) * 1000 })) // pairs share a ts
    const from = T - 10_000
    const to = T + 1
    const seen: string[] = []
    let url: string | null = `/api/v1/systems/${s}/messages?from=${from}&to=${to}&size=3`
    let pages = 0
    while (url !== null) {
      const page = await json(url)
      expect(page.messages.length).toBeLessThanOrEqual(3)
      seen.push(...page.messages.map((m: Json) => m.uid))
      if (page.next !== null) {
        expect(page.next).toMatch(new RegExp(`^http://[^/]+/api/v1/systems/${s}/messages\\?`))
        expect(new URL(page.next).searchParams.get('size')).toBe('3')
      }
      url = page.next === null ? null : pathOf(page.next)
      pages++
    }
    expect(pages).toBe(3)
    expect(seen).toHaveLength(7)
    expect(new Set(seen)).toEqual(new Set(want))
    // Most recent first across the pages.
    const ts = (await Promise.all(seen.map(async (uid) => (await json(`/api/v1/systems/${s}/messages/${uid}`)).timestamp as number)))
    expect(ts).toEqual([...ts].sort((x, y) => y - x))
  })

  it('takes the deprecated fromDate and toDate, and seconds', async () => {
    const sys = (await createSystem(stack, { name: uniq('dates') })).uid
    const m = await insertMessage(stack.db, sys, { ts: T })
    await insertMessage(stack.db, sys, { ts: T + 5000 })
    const listed = async (q: string): Promise<string[]> => (await json(`/api/v1/systems/${sys}/messages?${q}`)).messages.map((x: Json) => x.uid)
    expect(await listed(`fromDate=${T}&toDate=${T + 1}`)).toEqual([m])
    expect(await listed(`from=${T / 1000}&to=${T / 1000 + 1}`)).toEqual([m])
    expect(await listed(`from=${T}&to=${T}`)).toEqual([])
    expect(await listed(`from=${T}&to=${T + 6000}&size=0`)).toEqual([])
  })

  it('clamps size to 500', async () => {
    const sys = (await createSystem(stack, { name: uniq('many') })).uid
    await stack.db.query(
      `INSERT INTO device_messages (uid, system_uid, protocol, ts, received_at, nb_data_points)
       SELECT 'bulk-' || i, $1, 'MQTT', $2::int8 - i, $2::int8 - i, 1 FROM generate_series(1, 520) AS i`, [sys, T])
    const page = await json(`/api/v1/systems/${sys}/messages?from=${T - 10_000}&to=${T + 1}&size=1000`)
    expect(page.messages).toHaveLength(500)
    expect(page.next).not.toBeNull()
    const rest = await json(pathOf(page.next))
    expect(rest.messages).toHaveLength(20)
    expect(rest.next).toBeNull()
  })

  it('refuses from after to, a system of another company, and a cursor it did not write', async () => {
    expectError(await get(`/api/v1/systems/${s}/messages?from=${T}&to=${T - 1}`), 'system.invalid.timerange')
    expectError(await get(`/api/v1/systems/${s}/messages?fromDate=${T}&toDate=${T - 1}`), 'system.invalid.timerange')
    expectError(await get(`/api/v1/systems/${foreign}/messages`), 'system.unknown')
    expectError(await get('/api/v1/systems/no-such-system/messages'), 'system.unknown')
    expectError(await get(`/api/v1/systems/${s}/messages?cursor=garbage`), 'request.invalid')
  })
})

describe('message detail', () => {
  it('answers the message with its data, each id with its points most recent first', async () => {
    const uid = await insertMessage(stack.db, s, {
      ts: T + 60_000,
      protocol: 'REST',
      nbDataPoints: 4,
      points: [
        { dataId: 'machine.temperature', ts: T + 50_000, value: 20 },
        { dataId: 'machine.temperature', ts: T + 60_000, value: 21 },
        { dataId: 'machine.state', ts: T + 60_000, value: 'ON' },
        { dataId: 'machine.door', ts: T + 60_000, value: false }
      ]
    })
    expect(await json(`/api/v1/systems/${s}/messages/${uid}`)).toEqual({
      uid,
      timestamp: T + 60_000,
      protocol: 'REST',
      nbDataPoints: 4,
      data: {
        'machine.door': [{ value: false, timestamp: T + 60_000 }],
        'machine.state': [{ value: 'ON', timestamp: T + 60_000 }],
        'machine.temperature': [{ value: 21, timestamp: T + 60_000 }, { value: 20, timestamp: T + 50_000 }]
      }
    })
  })

  it('answers system.unknown for another company\'s system, and for a message the system does not have (fleet-api.md: messages detail)', async () => {
    expectError(await get(`/api/v1/systems/${foreign}/messages/${foreignMessage}`), 'system.unknown')
    expectError(await get(`/api/v1/systems/${s}/messages/${foreignMessage}`), 'system.unknown')
  })
})
