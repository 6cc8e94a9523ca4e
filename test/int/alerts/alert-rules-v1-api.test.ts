// docs/alerts.md#v1-rules: the alert-rule calls of the airvantage package (2.1.0: createAlertRule, editAlertRule,
// queryAlertRules, deleteAlertRule, deleteAlertRules on /api/v1/alerts/rules), run as they are against the service
// listening on a real port, and the same rules read through /api/v2/alertrules. Then what airvantage.js does not
// exercise: the v1 shape of every v2 condition, alert.rule.invalid naming v1 fields, rights and tenancy.
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { expectError, type Json } from '../../helpers/systems.js'
import { eventually } from '../../helpers/eventually.js'

/** What this file calls of airvantage.js (lib/airvantage.js; the package ships no types). */
interface AirVantageClient {
  authenticate: () => Promise<string>
  createAlertRule: (data: unknown) => Promise<Json>
  editAlertRule: (uid: string, data: unknown) => Promise<Json>
  queryAlertRules: (params?: Record<string, unknown>, fullResponse?: boolean) => Promise<Json[]>
  deleteAlertRule: (uid: string) => Promise<unknown>
  deleteAlertRules: (params?: Record<string, unknown>) => Promise<unknown>
}
type AirVantageClass = new (setup: { serverUrl: string, credentials: Record<string, string> }) => AirVantageClient
const AirVantage = createRequire(import.meta.url)('airvantage') as AirVantageClass

let stack: Stack
let editor: TestUser
let viewer: TestUser
let other: TestUser
let av: AirVantageClient

beforeAll(async () => {
  stack = await startStack({ listen: true })
  editor = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
  viewer = await createUser(stack, { rights: ['entities.systems.view'] })
  other = await createUser(stack, { company: uniq('Other'), rights: ['entities.systems.view', 'entities.systems.edit'] })
  av = new AirVantage({
    serverUrl: stack.httpUrl,
    credentials: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, username: editor.email, password: editor.password }
  })
  await av.authenticate()
})
afterAll(async () => { await stack.close() })

const v2 = async (uid: string, token = editor.token) => await stack.call(token, { method: 'GET', url: `/api/v2/alertrules/${uid}` })

// The rule airvantage.js's own test creates (test/airvantageTests.js).
const protocolRule = {
  name: 'MyAlertRule3Yj',
  description: 'rule number 1',
  eventType: 'event.system.incoming.communication',
  conditions: [{ eventProperty: 'communication.protocol', eventPropertyKey: null, operator: 'EQUALS', value: 'MSCI' }],
  recipients: { emails: ['user@airvantage.net'] }
}

describe('airvantage.js', () => {
  it('creates, edits, queries and deletes rules, which are the v2 rules', async () => {
    const created = await av.createAlertRule(protocolRule)
    expect(created).toEqual({ uid: expect.any(String), name: 'MyAlertRule3Yj', description: 'rule number 1', active: true, stateful: true, conditions: protocolRule.conditions, recipients: protocolRule.recipients })
    expect((await v2(created.uid)).json()).toMatchObject({
      name: 'MyAlertRule3Yj',
      message: 'rule number 1',
      emails: ['user@airvantage.net'],
      conditions: [{ operator: 'EQUALS', operands: [{ attributeId: { name: 'system.comm.protocol' } }, { valueStr: 'MSCI' }] }]
    })

    // A v2 field v1 has no name for survives a v1 edit, which changes only what it names.
    const withAction = { ...(await v2(created.uid)).json(), actions: [{ operation: 'REBOOT', cooldownMinutes: 5 }] }
    expect((await stack.call(editor.token, { method: 'PUT', url: `/api/v2/alertrules/${created.uid as string}`, payload: withAction })).statusCode).toBe(200)
    const edited = await av.editAlertRule(created.uid, { name: `${created.name as string} - EDITED` })
    expect(edited).toEqual({ ...created, name: 'MyAlertRule3Yj - EDITED' })
    expect((await v2(created.uid)).json()).toMatchObject({ name: 'MyAlertRule3Yj - EDITED', message: 'rule number 1', actions: [{ operation: 'REBOOT', cooldownMinutes: 5 }] })

    const data = await av.createAlertRule({ name: 'Hot', conditions: [{ eventProperty: 'data', eventPropertyKey: 'engine.temp', operator: 'GT', value: 90 }] })
    expect((await v2(data.uid)).json().conditions).toEqual([{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.engine.temp' } }, { valueNum: 90 }] }])
    expect(await av.queryAlertRules({}, false)).toEqual([edited, data])

    await av.deleteAlertRule(data.uid)
    expectError(await v2(data.uid), 'alert.rule.unknown')
    // deleteAlertRules does not wait for the deletes it starts: the list empties shortly after.
    await av.deleteAlertRules({ fields: 'uid' })
    await eventually(async () => (await av.queryAlertRules()).length === 0, 5000, 'every rule deleted')
    expectError(await v2(created.uid), 'alert.rule.unknown')
  })

  it('gets the service\'s error body when a rule is refused', async () => {
    const err = await av.createAlertRule({ ...protocolRule, name: '' }).then(() => undefined, (e: { statusCode?: number, response?: { body?: unknown } }) => e)
    expect(err?.statusCode).toBe(400)
    const body = typeof err?.response?.body === 'string' ? JSON.parse(err.response.body) : err?.response?.body
    expect(body).toEqual({ error: 'alert.rule.invalid', errorParameters: ['name', expect.any(String)] })
  })
})

describe('/api/v1/alerts/rules', () => {
  const call = async (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    await stack.call(token, { method, url: `/api/v1/alerts/rules${url}`, ...(payload === undefined ? {} : { payload }) })
  const count = async (): Promise<number> => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM alert_rules')).rows[0]?.n)

  it('shows every v2 condition in the v1 shape, paged, with fields', async () => {
    const conditions = [
      { operator: 'IN', operands: [{ attributeId: { name: 'system.labels' } }, { valuesStr: ['pilot', 'north'] }] },
      { operator: 'NO_COMMUNICATION_FOR', operands: [{ valueNum: 60 }] }
    ]
    const res = await stack.call(editor.token, { method: 'POST', url: '/api/v2/alertrules', payload: { name: 'Quiet pilots', conditions } })
    expect(res.statusCode, res.body).toBe(200)
    const page = (await call(viewer.token, 'GET', '?offset=0&size=1')).json()
    expect(page).toMatchObject({ count: 1, size: 1, offset: 0 })
    expect(page.items[0].conditions).toEqual([
      { eventProperty: 'system.labels', eventPropertyKey: null, operator: 'IN', value: ['pilot', 'north'] },
      { eventProperty: null, eventPropertyKey: null, operator: 'NO_COMMUNICATION_FOR', value: 60 }
    ])
    expect((await call(viewer.token, 'GET', '?fields=uid,name')).json().items).toEqual([{ uid: res.json().uid, name: 'Quiet pilots' }])
    // The v1 view of a rule, sent back as a v1 body, is the same rule.
    const again = await call(editor.token, 'PUT', `/${res.json().uid as string}`, page.items[0])
    expect(again.json()).toEqual(page.items[0])
    expect((await v2(res.json().uid)).json().conditions).toEqual(conditions)
    await call(editor.token, 'DELETE', `/${res.json().uid as string}`)
  })

  it.each([
    ['conditions[0].eventProperty', { conditions: [{ eventProperty: 7, operator: 'EQUALS', value: 'x' }] }],
    ['conditions[0].eventPropertyKey', { conditions: [{ eventProperty: 'data', operator: 'GT', value: 1 }] }],
    ['conditions[0].value', { conditions: [{ eventProperty: 'system.name', operator: 'EQUALS', value: { a: 1 } }] }],
    ['conditions[0].operands[0].attributeId.name', { conditions: [{ eventProperty: 'gateway.imei', operator: 'EQUALS', value: '1' }] }],
    ['recipients', { recipients: ['a@b.co'] }],
    ['emails[0]', { recipients: { emails: ['nobody'] } }]
  ])('refuses a bad %s, naming it, and changes nothing', async (field, patch) => {
    const before = await count()
    const res = await call(editor.token, 'POST', '', { ...protocolRule, ...patch })
    expect(expectError(res, 'alert.rule.invalid').errorParameters[0]).toBe(field)
    expect(await count()).toBe(before)
  })

  it('needs entities.systems.edit to change a rule; another company\'s rule is unknown', async () => {
    expectError(await call(viewer.token, 'POST', '', protocolRule), 'missing.rights', 403)
    const mine = (await call(editor.token, 'POST', '', protocolRule)).json()
    expectError(await call(viewer.token, 'PUT', `/${mine.uid as string}`, { name: 'x' }), 'missing.rights', 403)
    expectError(await call(other.token, 'PUT', `/${mine.uid as string}`, { name: 'stolen' }), 'alert.rule.unknown')
    expectError(await call(other.token, 'DELETE', `/${mine.uid as string}`), 'alert.rule.unknown')
    expect((await call(other.token, 'GET', '')).json()).toEqual({ items: [], count: 0, size: 0, offset: 0 })
    expect((await v2(mine.uid)).json().name).toBe('MyAlertRule3Yj')
    const del = await call(editor.token, 'DELETE', `/${mine.uid as string}`)
    expect([del.statusCode, del.body]).toEqual([204, ''])
  })
})
