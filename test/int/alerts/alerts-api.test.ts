// docs/alerts.md#alerts through the API: GET /api/v2/alerts (every filter, newest first, paged, bad parameters
// refused with their codes), GET /api/v2/alertstates, POST /api/v2/alerts/{uid}/acknowledge (the right it needs,
// idempotent, alert.unknown for another company's alert), tenancy, and the OpenAPI document naming every alert call.
// The alerts are written as the evaluation writes them (migration 0038): this file reads them through the API only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, type Json } from '../../helpers/systems.js'

let stack: Stack
let editor: TestUser
let viewer: TestUser
let other: TestUser

const call = async (token: string, method: 'GET' | 'POST', url: string) => await stack.call(token, { method, url })
const get = async (url: string, token = viewer.token): Promise<Json[]> => {
  const res = await call(token, 'GET', url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function newRule (token: string, name: string): Promise<string> {
  const res = await stack.call(token, {
    method: 'POST',
    url: '/api/v2/alertrules',
    payload: { name, message: `${name}!`, conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }] }
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().uid
}

async function insertAlert (rule: string, system: string, date: number, closed: number | null = null): Promise<string> {
  const uid = uniq('alert')
  await stack.db.query(`INSERT INTO alerts (uid, rule_uid, system_uid, company_uid, date, closed_date, state, attributes)
    SELECT $1, r.uid, $3, r.company_uid, $4, $5, $6, $7::jsonb FROM alert_rules r WHERE r.uid = $2`,
  [uid, rule, system, date, closed, closed === null ? 'OPEN' : 'CLOSED', JSON.stringify([{ id: { name: 'DATA.temp' }, value: { valueNum: 41 } }])])
  return uid
}

const T = 1_767_225_600_000 // 2026-01-01, in ms
let hot: string; let cold: string; let s1: Json; let s2: Json
let a1: string; let a2: string; let a3: string; let foreign: string

beforeAll(async () => {
  stack = await startStack()
  editor = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit', 'entities.systems.create'] })
  viewer = await createUser(stack, { rights: ['entities.systems.view'] })
  other = await createUser(stack, { company: uniq('Other'), rights: ['entities.systems.view', 'entities.systems.edit', 'entities.systems.create'] })
  ;[hot, cold] = [await newRule(editor.token, 'Hot'), await newRule(editor.token, 'Cold')]
  ;[s1, s2] = [await createSystem(stack, { name: 'Pump 1' }), await createSystem(stack, { name: 'Pump 2' })]
  a1 = await insertAlert(hot, s1.uid, T, T + 60_000)
  a2 = await insertAlert(cold, s2.uid, T + 1000)
  a3 = await insertAlert(hot, s2.uid, T + 2000)
  const otherSystem = await createSystem(stack, { name: 'Theirs' }, { token: other.token })
  foreign = await insertAlert(await newRule(other.token, 'Theirs'), otherSystem.uid, T + 500)
})
afterAll(async () => { await stack.close() })

const uids = (items: Json[]): string[] => items.map((a) => a.uid)

describe('GET /api/v2/alerts', () => {
  it('answers the company\'s alerts as a bare array, newest first, in the AirVantage v2 shape', async () => {
    const all = await get('/api/v2/alerts')
    expect(uids(all)).toEqual([a3, a2, a1])
    expect(all[2]).toEqual({
      uid: a1,
      rule: { uid: hot, name: 'Hot', message: 'Hot!' },
      target: { uid: s1.uid, name: 'Pump 1' },
      date: T,
      closedDate: T + 60_000,
      state: 'CLOSED',
      acknowledged: false,
      acknowledgedBy: null,
      attributes: [{ id: { name: 'DATA.temp' }, value: { valueNum: 41 } }]
    })
    expect(uids(await get('/api/v2/alerts', other.token))).toEqual([foreign])
  })

  it('filters by alert, rule, system, state, acknowledgement and dates (ms, or seconds), comma separated or repeated', async () => {
    expect(uids(await get(`/api/v2/alerts?alertId=${a1},${a3},${foreign}`))).toEqual([a3, a1])
    expect(uids(await get(`/api/v2/alerts?ruleId=${hot}&ruleId=${cold}&targetId=${s2.uid as string}`))).toEqual([a3, a2])
    expect(uids(await get(`/api/v2/alerts?ruleId=${hot}`))).toEqual([a3, a1])
    expect(uids(await get('/api/v2/alerts?state=OPEN'))).toEqual([a3, a2])
    expect(uids(await get('/api/v2/alerts?state=CLOSED&acknowledged=false'))).toEqual([a1])
    expect(uids(await get('/api/v2/alerts?acknowledged=true'))).toEqual([])
    expect(uids(await get(`/api/v2/alerts?dateAfter=${T}&dateBefore=${T + 2000}`))).toEqual([a2])
    expect(uids(await get(`/api/v2/alerts?dateBefore=${(T + 1000) / 1000}`))).toEqual([a1])
    expect(await get(`/api/v2/alerts?targetId=${s1.uid as string}&state=OPEN`)).toEqual([])
  })

  it('pages with offset and size, a size over 500 read as 500', async () => {
    expect(uids(await get('/api/v2/alerts?offset=1&size=1'))).toEqual([a2])
    expect(uids(await get('/api/v2/alerts?size=501'))).toEqual([a3, a2, a1])
  })

  it('refuses bad parameters with their codes, never 500', async () => {
    expectError(await call(viewer.token, 'GET', '/api/v2/alerts?state=RAISED'), 'unknown.enum.value')
    expectError(await call(viewer.token, 'GET', '/api/v2/alerts?acknowledged=maybe'), 'request.invalid')
    expectError(await call(viewer.token, 'GET', '/api/v2/alerts?dateAfter=yesterday'), 'request.invalid')
    expectError(await call(viewer.token, 'GET', '/api/v2/alerts?dateAfter=1e400'), 'request.invalid')
    expectError(await call(viewer.token, 'GET', `/api/v2/alerts?dateAfter=${T}&dateBefore=${T}`), 'invalid.timerange')
    expectError(await call(viewer.token, 'GET', '/api/v2/alerts?offset=-1'), 'request.invalid')
    expectError(await call(viewer.token, 'GET', '/api/v2/alerts?company=nope'), 'partner.unknown')
    const none = await createUser(stack, { rights: [] })
    expectError(await call(none.token, 'GET', '/api/v2/alerts'), 'missing.rights', 403)
    expectError(await call(none.token, 'GET', '/api/v2/alertstates'), 'missing.rights', 403)
  })
})

describe('GET /api/v2/alertstates', () => {
  it('answers one state per rule and system of the company, the latest change first, filtered by rule and system', async () => {
    const states = [[hot, s1.uid, false, T + 60_000], [hot, s2.uid, true, T + 2000], [cold, s2.uid, true, T + 1000]] as const
    for (const [rule, system, on, at] of states) {
      await stack.db.query('INSERT INTO alert_states (rule_uid, system_uid, state, changed_at) VALUES ($1, $2, $3, $4)', [rule, system, on, at])
    }
    expect(await get('/api/v2/alertstates')).toEqual([
      { rule: { uid: hot, name: 'Hot' }, target: { uid: s1.uid, name: 'Pump 1' }, state: false, date: T + 60_000 },
      { rule: { uid: hot, name: 'Hot' }, target: { uid: s2.uid, name: 'Pump 2' }, state: true, date: T + 2000 },
      { rule: { uid: cold, name: 'Cold' }, target: { uid: s2.uid, name: 'Pump 2' }, state: true, date: T + 1000 }
    ])
    const pairs = async (q: string) => (await get(`/api/v2/alertstates?${q}`)).map((s) => `${s.rule.name as string}/${s.target.name as string}`)
    expect(await pairs(`ruleId=${cold}`)).toEqual(['Cold/Pump 2'])
    expect(await pairs(`targetId=${s2.uid as string}&size=1`)).toEqual(['Hot/Pump 2'])
    expect(await get('/api/v2/alertstates', other.token)).toEqual([])
  })
})

describe('POST /api/v2/alerts/{uid}/acknowledge', () => {
  const ack = async (token: string, uid: string) => await call(token, 'POST', `/api/v2/alerts/${uid}/acknowledge`)
  const stored = async (uid: string) =>
    (await stack.db.query<{ acknowledged: boolean, acknowledged_by: string | null }>('SELECT acknowledged, acknowledged_by FROM alerts WHERE uid = $1', [uid])).rows[0]

  it('needs entities.systems.edit, and a refused call changes nothing', async () => {
    expectError(await ack(viewer.token, a2), 'missing.rights', 403)
    expect(await stored(a2)).toEqual({ acknowledged: false, acknowledged_by: null })
  })

  it('acknowledges the alert as the calling user and answers it; repeated, the first acknowledgement stays', async () => {
    const res = await ack(editor.token, a2)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ uid: a2, state: 'OPEN', acknowledged: true, acknowledgedBy: editor.uid, rule: { uid: cold } })
    const again = await ack(stack.adminToken, a2)
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual(res.json())
    expect(uids(await get('/api/v2/alerts?acknowledged=true'))).toEqual([a2])
  })

  it('answers alert.unknown for an unknown uid and for another company\'s alert, which stays as it was', async () => {
    expect(expectError(await ack(other.token, a3), 'alert.unknown').errorParameters).toEqual([a3])
    expectError(await ack(editor.token, foreign), 'alert.unknown')
    expectError(await ack(editor.token, 'nope'), 'alert.unknown')
    expect(await stored(a3)).toEqual({ acknowledged: false, acknowledged_by: null })
    expect(await stored(foreign)).toEqual({ acknowledged: false, acknowledged_by: null })
  })
})

describe('OpenAPI', () => {
  it('documents every alert call under the alerts tag', async () => {
    const doc = (await stack.api.inject({ method: 'GET', url: '/api/docs/json' })).json()
    const calls = [
      'get /api/v2/alertrules', 'post /api/v2/alertrules', 'get /api/v2/alertrules/{id}', 'put /api/v2/alertrules/{id}',
      'delete /api/v2/alertrules/{id}', 'get /api/v1/alerts/rules', 'post /api/v1/alerts/rules/{id}/hooks',
      'get /api/v1/alerts/rules/{id}/hooks', 'delete /api/v1/alerts/rules/{id}/hooks/{uid}', 'get /api/v2/alerts',
      'get /api/v2/alertstates', 'post /api/v2/alerts/{uid}/acknowledge'
    ]
    const missing = calls.filter((c) => {
      const [method = '', path = ''] = c.split(' ')
      return !(doc.paths[path]?.[method]?.tags as string[] | undefined)?.includes('alerts')
    })
    expect(missing).toEqual([])
  })
})
