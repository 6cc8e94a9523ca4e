// docs/alerts.md through the API: the AirVantage v2 alert rules (create with defaults, list as a bare array, get,
// replace, delete), alert.rule.invalid naming the field, the company limit, tenancy (another company's rule answers as
// an unknown one), rights, the v1 hooks with operation callbacks' URL refusals (the v1 rules: alert-rules-v1-api.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { defaultRule } from '../../helpers/alert-rules.js'

let stack: Stack
let editor: TestUser
let viewer: TestUser
let other: TestUser

const V2 = '/api/v2/alertrules'
const rule = (patch: Record<string, unknown> = {}) => ({
  name: 'Hot',
  conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }],
  ...patch
})

beforeAll(async () => {
  stack = await startStack({ env: { ALERT_RULES_PER_COMPANY: '3' } })
  editor = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
  viewer = await createUser(stack, { rights: ['entities.systems.view'] })
  other = await createUser(stack, { company: uniq('Other'), rights: ['entities.systems.view', 'entities.systems.edit'] })
})
afterAll(async () => { await stack.close() })

const call = async (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  await stack.call(token, { method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })

async function created (token: string, body = rule()): Promise<Record<string, any>> {
  const res = await call(token, 'POST', V2, body)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Deletes every rule of the token's company (each test starts under the limit). */
async function clear (token: string): Promise<void> {
  for (const r of (await call(token, 'GET', V2)).json() as Array<{ uid: string }>) await call(token, 'DELETE', `${V2}/${r.uid}`)
}

const count = async (): Promise<number> => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM alert_rules')).rows[0]?.n)

describe('alert rules (v2)', () => {
  it('creates with the defaults, owned by the caller; lists as a bare array; gets, replaces and deletes', async () => {
    await clear(editor.token)
    const r = await created(editor.token, rule({ metadata: { team: 'ops' }, emails: null, message: null }))
    expect(r).toEqual(defaultRule(r.uid, rule().conditions, { metadata: { team: 'ops' } }))
    const owner = await stack.db.query<{ owner_uid: string }>('SELECT owner_uid FROM alert_rules WHERE uid = $1', [r.uid])
    expect(owner.rows[0]?.owner_uid).toBe(editor.uid)
    expect((await call(viewer.token, 'GET', V2)).json()).toEqual([r])
    expect((await call(viewer.token, 'GET', `${V2}/${r.uid}`)).json()).toEqual(r)
    const put = await call(editor.token, 'PUT', `${V2}/${r.uid}`, rule({ name: 'Hotter', stateful: false, actions: [{ operation: 'REBOOT', cooldownMinutes: 5 }] }))
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json()).toMatchObject({ uid: r.uid, name: 'Hotter', stateful: false, metadata: null, actions: [{ operation: 'REBOOT', cooldownMinutes: 5 }] })
    expect((await call(viewer.token, 'GET', `${V2}/${r.uid}`)).json()).toEqual(put.json())
    const del = await call(editor.token, 'DELETE', `${V2}/${r.uid}`)
    expect([del.statusCode, del.body]).toEqual([200, ''])
    expect((await call(viewer.token, 'GET', `${V2}/${r.uid}`)).json()).toEqual({ error: 'alert.rule.unknown', errorParameters: [r.uid] })
  })

  it.each([
    ['name', { name: '' }],
    ['targetType', { targetType: 'GATEWAY' }],
    ['conditions', { conditions: [] }],
    ['conditions[0].operator', { conditions: [{ operator: 'NEAR', operands: [] }] }],
    ['conditions[0].operands', { conditions: [{ operator: 'IN', operands: [{ attributeId: { name: 'system.name' } }, { valueStr: 'a' }] }] }],
    ['conditions[0].operands[1].valueStr', { conditions: [{ operator: 'GEO_CONTAINS', operands: [{ attributeId: { name: 'DATA._LON_LAT' } }, { valueStr: 'POLYGON((0 0, 1 1))' }] }] }],
    ['conditions[0].operands[0].valueNum', { conditions: [{ operator: 'NO_COMMUNICATION_FOR', operands: [{ valueNum: -5 }] }] }],
    ['conditions[0].operands[0].attributeId.name', { conditions: [{ operator: 'EQUALS', operands: [{ attributeId: { name: 'gateway.imei' } }, { valueStr: '1' }] }] }],
    ['emails[1]', { emails: ['a@b.co', 'no-at-sign'] }],
    ['actions[0].operation', { actions: [{ operation: 'DELETE' }] }],
    ['actions[0].cooldownMinutes', { actions: [{ operation: 'REBOOT', cooldownMinutes: -1 }] }],
    ['actions[0].parameters', { actions: [{ operation: 'REBOOT', parameters: 'x' }] }],
    ['maxOperationsPerHour', { maxOperationsPerHour: 10_001 }]
  ])('refuses a rule with a bad %s, naming it, and changes nothing', async (field, patch) => {
    const before = await count()
    const res = await call(editor.token, 'POST', V2, rule(patch))
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'alert.rule.invalid', errorParameters: [field, expect.any(String)] })
    expect(await count()).toBe(before)
  })

  it('a refused replacement leaves the rule as it was', async () => {
    await clear(editor.token)
    const r = await created(editor.token)
    const res = await call(editor.token, 'PUT', `${V2}/${r.uid}`, rule({ name: 'New', emails: ['bad'] }))
    expect(res.json().errorParameters[0]).toBe('emails[0]')
    expect((await call(editor.token, 'GET', `${V2}/${r.uid}`)).json()).toEqual(r)
  })

  it('refuses one rule over ALERT_RULES_PER_COMPANY with alert.rule.too.many; other companies are not counted', async () => {
    await clear(editor.token)
    for (let i = 0; i < 3; i++) await created(editor.token)
    const res = await call(editor.token, 'POST', V2, rule({ name: 'Fourth' }))
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'alert.rule.too.many', errorParameters: [stack.companyUid, '3'] })
    expect((await call(editor.token, 'GET', V2)).json()).toHaveLength(3)
    await created(other.token)
    await clear(editor.token)
    await clear(other.token)
  })

  it('answers another company\'s rule as an unknown one, for reading, replacing, deleting and its hooks', async () => {
    const mine = await created(editor.token)
    await call(editor.token, 'POST', `/api/v1/alerts/rules/${mine.uid}/hooks`, { callback: 'https://hooks.example.com/a' })
    const hookUid = ((await call(editor.token, 'GET', `/api/v1/alerts/rules/${mine.uid}/hooks`)).json() as Array<{ uid: string }>)[0]?.uid
    const unknown = { error: 'alert.rule.unknown', errorParameters: [mine.uid] }
    const tries = [
      await call(other.token, 'GET', `${V2}/${mine.uid}`),
      await call(other.token, 'PUT', `${V2}/${mine.uid}`, rule({ name: 'Taken' })),
      await call(other.token, 'DELETE', `${V2}/${mine.uid}`),
      await call(other.token, 'GET', `/api/v1/alerts/rules/${mine.uid}/hooks`),
      await call(other.token, 'POST', `/api/v1/alerts/rules/${mine.uid}/hooks`, { callback: 'https://evil.example.com/' }),
      await call(other.token, 'DELETE', `/api/v1/alerts/rules/${mine.uid}/hooks/${hookUid}`)
    ]
    for (const res of tries) expect([res.statusCode, res.json()]).toEqual([400, unknown])
    expect((await call(other.token, 'GET', V2)).json()).toEqual([])
    expect((await call(editor.token, 'GET', `${V2}/${mine.uid}`)).json()).toEqual(mine)
    expect((await call(editor.token, 'GET', `/api/v1/alerts/rules/${mine.uid}/hooks`)).json()).toHaveLength(1)
    const nothing = await call(editor.token, 'GET', `${V2}/${uniq('nope')}`)
    expect(nothing.json().error).toBe('alert.rule.unknown')
    await clear(editor.token)
  })

  it('needs the systems\' view right to read and their edit right to change', async () => {
    const none = await createUser(stack, { rights: [] })
    expect((await call(none.token, 'GET', V2)).json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.view'] })
    const before = await count()
    for (const [method, url, body] of [['POST', V2, rule()], ['PUT', `${V2}/x`, rule()], ['DELETE', `${V2}/x`], ['POST', '/api/v1/alerts/rules/x/hooks', { callback: 'https://a.example.com' }], ['DELETE', '/api/v1/alerts/rules/x/hooks/y']] as const) {
      const res = await call(viewer.token, method, url, body)
      expect([res.statusCode, res.json()]).toEqual([403, { error: 'missing.rights', errorParameters: ['entities.systems.edit'] }])
    }
    expect(await count()).toBe(before)
    expect((await stack.api.inject({ method: 'GET', url: V2 })).statusCode).toBe(401)
  })
})

describe('hooks (v1)', () => {
  it('adds, lists and deletes a rule\'s hooks, masking the URL\'s password; they go with the rule', async () => {
    const r = await created(editor.token)
    const url = `/api/v1/alerts/rules/${r.uid}/hooks`
    const a = await call(editor.token, 'POST', url, { callback: 'https://user:s3cret-pw@hooks.example.com/a' })
    expect(a.statusCode, a.body).toBe(200)
    expect(a.body).not.toContain('s3cret-pw')
    expect(a.json()).toEqual({ uid: expect.any(String), callback: 'https://user:***@hooks.example.com/a' })
    const b = (await call(editor.token, 'POST', url, { callback: 'http://hooks.example.com/b' })).json()
    expect((await call(viewer.token, 'GET', url)).json()).toEqual([a.json(), b])
    expect((await call(editor.token, 'DELETE', `${url}/${a.json().uid}`)).statusCode).toBe(200)
    expect((await call(editor.token, 'DELETE', `${url}/${a.json().uid}`)).json()).toEqual({ error: 'alert.hook.unknown', errorParameters: [a.json().uid] })
    expect((await call(viewer.token, 'GET', url)).json()).toEqual([b])
    await call(editor.token, 'DELETE', `${V2}/${r.uid}`)
    expect(Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM alert_rule_hooks WHERE rule_uid = $1', [r.uid])).rows[0]?.n)).toBe(0)
  })

  it('refuses the callbacks operation callbacks refuse, and adds nothing', async () => {
    const r = await created(editor.token)
    const url = `/api/v1/alerts/rules/${r.uid}/hooks`
    const refused = [
      ['http://127.0.0.1:8080/hook', 'callback.forbidden'], ['http://10.1.2.3/hook', 'callback.forbidden'],
      ['http://169.254.169.254/latest/meta-data', 'callback.forbidden'], ['http://[::1]/hook', 'callback.forbidden'],
      ['ftp://example.com/hook', 'callback.invalid'], ['not a url', 'callback.invalid'], ['', 'callback.invalid']
    ]
    for (const [callback, code] of refused) {
      const res = await call(editor.token, 'POST', url, { callback })
      expect([res.statusCode, res.json().error], callback).toEqual([400, code])
    }
    expect((await call(editor.token, 'GET', url)).json()).toEqual([])
    await clear(editor.token)
  })
})
