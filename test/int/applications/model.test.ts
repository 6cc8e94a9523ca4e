// The application model over HTTP (docs/api.md#applications-and-templates): PUT /applications/{uid}/data and
// /communication replace what an application declares, POST and GET carry it, and every bad body is refused whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { appUid, createSystem, expectError, OTHER_COMPANY, seedCatalogue, type Catalogue, type Json } from '../../helpers/systems.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { flattenData } from '../../../core/domain/application-model.js'

let stack: Stack
let cat: Catalogue
let other: TestUser

beforeAll(async () => {
  stack = await startStack()
  cat = await seedCatalogue(stack)
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.applications.view', 'entities.applications.create'] })
})
afterAll(async () => { await stack.close() })

const put = async (uid: string, part: 'data' | 'communication', body: unknown, token = stack.adminToken) =>
  await stack.call(token, { method: 'PUT', url: `/api/v1/applications/${uid}/${part}`, payload: body as Json })
const get = async (uid: string, token = stack.adminToken): Promise<Json> => {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/applications/${uid}` })
  expect(res.statusCode).toBe(200)
  return res.json()
}
const newApp = async (extra: Json = {}, token = stack.adminToken): Promise<string> => {
  const res = await stack.call(token, { method: 'POST', url: '/api/v1/applications', payload: { name: 'Model app', revision: '1', type: uniq('app.model'), ...extra } })
  expect(res.statusCode).toBe(200)
  return res.json().uid
}

const tree = [
  {
    id: 'phone',
    label: 'Phone',
    elementType: 'node',
    data: [
      { id: 'rssi', elementType: 'variable', type: 'double' },
      { id: 'sms', elementType: 'command', parameters: [{ id: 'to', type: 'string' }, { id: 'text', type: 'string' }] }
    ]
  },
  { id: 'config', elementType: 'node', data: [{ id: 'period', elementType: 'setting', type: 'int', encoding: 'MQTT' }] },
  { id: 'reboot', elementType: 'action', actionType: 'REBOOT' }
]

describe('PUT /api/v1/applications/{uid}/data', () => {
  it('replaces the data tree, answers 200 with an empty body, and GET, find and the repository read it back', async () => {
    const uid = await newApp({ data: [{ id: 'old', elementType: 'variable', type: 'int' }] })
    const res = await put(uid, 'data', tree)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect((await get(uid)).data).toEqual(tree)
    const found = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications?uid=${uid}&fields=data` })
    expect(found.json().items).toEqual([{ data: tree }])
    const [stored] = await createRepositories(stack.db).applications.findByUids(stack.companyUid, [uid])
    expect(flattenData(stored?.data ?? []).map((d) => [d.id, d.elementType])).toEqual([
      ['phone.rssi', 'variable'], ['phone.sms', 'command'], ['config.period', 'setting'], ['reboot', 'action']
    ])
    // Replaced, not merged; an empty array clears it.
    expect((await put(uid, 'data', [{ id: 'x', elementType: 'variable' }])).statusCode).toBe(200)
    expect((await get(uid)).data).toEqual([{ id: 'x', elementType: 'variable' }])
    expect((await put(uid, 'data', [])).statusCode).toBe(200)
    expect((await get(uid)).data).toEqual([])
  })

  it('refuses duplicate ids among siblings with request.invalid naming the field, at any depth', async () => {
    const uid = await newApp({ data: tree })
    const top = expectError(await put(uid, 'data', [{ id: 'a', elementType: 'variable' }, { id: 'a', elementType: 'setting' }]), 'request.invalid')
    expect(top.errorParameters[0]).toBe('body/1/id')
    const deep = expectError(await put(uid, 'data', [{
      id: 'n',
      elementType: 'node',
      data: [{
        id: 'm',
        elementType: 'node',
        data: [
          { id: 'v', elementType: 'variable' }, { id: 'v', elementType: 'variable' }]
      }]
    }]), 'request.invalid')
    expect(deep.errorParameters[0]).toBe('body/0/data/0/data/1/id')
    // The same id under different parents is two data ids.
    expect((await put(uid, 'data', [{ id: 'a', elementType: 'node', data: [{ id: 'x', elementType: 'variable' }] },
      { id: 'b', elementType: 'node', data: [{ id: 'x', elementType: 'variable' }] }])).statusCode).toBe(200)
    expect(expectError(await put(uid, 'data', [{ id: 'c', elementType: 'command', parameters: [{ id: 'p', type: 'int' }, { id: 'p', type: 'int' }] }]), 'request.invalid')
      .errorParameters[0]).toBe('body/0/parameters/1/id')
  })

  it('refuses ids that are empty or hold a dot, and what an element type cannot carry', async () => {
    const uid = await newApp({ data: tree })
    const refused: Array<[unknown, string, string]> = [
      [[{ id: '', elementType: 'variable' }], 'request.invalid', 'body/0/id'],
      [[{ id: 'a.b', elementType: 'variable' }], 'request.invalid', 'body/0/id'],
      [[{ id: 'n', elementType: 'node', data: [{ id: 'x.y', elementType: 'setting' }] }], 'request.invalid', 'body/0/data/0/id'],
      [[{ id: 'v', elementType: 'setting', actionType: 'REBOOT' }], 'request.invalid', 'body/0/actionType'],
      [[{ id: 'v', elementType: 'variable', data: [{ id: 'w', elementType: 'variable' }] }], 'request.invalid', 'body/0/data'],
      [[{ id: 'v', elementType: 'action', actionType: 'REBOOT', parameters: [{ id: 'p', type: 'int' }] }], 'request.invalid', 'body/0/parameters'],
      [[{ id: 'v' }], 'request.invalid', 'body/0/elementType'],
      [[{ id: 'v', elementType: 'leaf' }], 'unknown.enum.value', 'body/0/elementType'],
      [[{ id: 'v', elementType: 'variable', type: 'float' }], 'unknown.enum.value', 'body/0/type'],
      [[{ id: 'v', elementType: 'variable', encoding: 'CARRIER_PIGEON' }], 'unknown.enum.value', 'body/0/encoding'],
      [[{ id: 'v', elementType: 'action', actionType: 'EXPLODE' }], 'unknown.enum.value', 'body/0/actionType'],
      [[{ id: 'c', elementType: 'command', parameters: [{ id: 'p', type: 'float' }] }], 'unknown.enum.value', 'body/0/parameters/0/type'],
      [{ id: 'v', elementType: 'variable' }, 'request.invalid', 'body'],
      [['v'], 'request.invalid', 'body/0']
    ]
    for (const [body, code, field] of refused) {
      const res = expectError(await put(uid, 'data', body), code)
      expect(String(res.errorParameters[0]).startsWith(field), `${JSON.stringify(body)} → ${JSON.stringify(res)}`).toBe(true)
    }
    expect((await get(uid)).data).toEqual(tree)
  })

  it('refuses a tree deeper than its bound without failing, and keeps the one it had', async () => {
    const uid = await newApp({ data: tree })
    // Written as text: JSON.stringify itself would overflow on such a tree.
    const levels = 20_000
    const deep = '['.concat('{"id":"n","elementType":"node","data":['.repeat(levels), '{"id":"leaf","elementType":"variable"}', ']}'.repeat(levels), ']')
    const res = await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/applications/${uid}/data`, headers: { 'content-type': 'application/json' }, payload: deep })
    expectError(res, 'request.invalid')
    let ok: Json = { id: 'leaf', elementType: 'variable' }
    for (let i = 0; i < 7; i++) ok = { id: `n${i}`, elementType: 'node', data: [ok] }
    expect((await get(uid)).data).toEqual(tree)
    expect((await put(uid, 'data', [ok])).statusCode).toBe(200)
    expect(flattenData((await get(uid)).data).map((d) => d.id)).toEqual(['n6.n5.n4.n3.n2.n1.n0.leaf'])
    // One level more than the bound is refused.
    expectError(await put(uid, 'data', [{ id: 'top', elementType: 'node', data: [ok] }]), 'request.invalid')
  })

  it('changes only the context company\'s own applications: a public one or another company\'s is application.unknown', async () => {
    const publicUid = appUid(cat, 'fw.public@1.0')
    const before = await get(publicUid)
    expect(expectError(await put(publicUid, 'data', tree), 'application.unknown').errorParameters).toEqual([publicUid])
    expect(await get(publicUid)).toEqual(before)
    const theirs = appUid(cat, 'app.other@1')
    expectError(await put(theirs, 'data', tree), 'application.unknown')
    expect((await get(theirs, other.token)).data).toEqual([])
    expectError(await put('no-such-application', 'data', tree), 'application.unknown')
    // Theirs is theirs to change.
    expect((await put(theirs, 'data', tree, other.token)).statusCode).toBe(200)
  })

  it('needs entities.applications.create: 403 missing.rights, nothing changed', async () => {
    const uid = await newApp({ data: tree })
    const viewer = await createUser(stack, { rights: ['entities.applications.view'] })
    for (const part of ['data', 'communication'] as const) {
      const res = await put(uid, part, [])
      expect(res.statusCode).toBe(200)
      const refused = await put(uid, part, part === 'data' ? tree : [{ type: 'MQTT', commIdType: 'SERIAL' }], viewer.token)
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.applications.create'] })
    }
    expect(await get(uid)).toMatchObject({ data: [], communication: [] })
  })
})

describe('PUT /api/v1/applications/{uid}/communication', () => {
  it('replaces the protocols, answers 200 with an empty body, and systems composition reads them', async () => {
    const uid = await newApp({ communication: [{ type: 'REST', commIdType: 'SERIAL' }] })
    const comm = [{ type: 'MQTT', commIdType: 'SERIAL' }, { type: 'MSCI', commIdType: 'IMEI', parameters: { access: 'acemanager', port: 9191, pollPeriodS: 60 } }]
    const res = await put(uid, 'communication', comm)
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')
    expect((await get(uid)).communication).toEqual(comm)
    // Two applications speaking MQTT on one system: applications.protocol.conflicts.
    expectError(await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/systems', payload: { name: uniq('s'), applications: [{ uid }, { uid: appUid(cat, 'app.mqtt@1') }] } }), 'applications.protocol.conflicts')
    expect((await put(uid, 'communication', [{ type: 'REST', commIdType: 'SERIAL' }])).statusCode).toBe(200)
    const s = await createSystem(stack, { name: uniq('s'), applications: [{ uid }, { uid: appUid(cat, 'app.mqtt@1') }] })
    expect(s.applications).toHaveLength(2)
  })

  it('refuses a protocol twice, unknown protocols and identifiers, and bad MSCI or M3DA parameters', async () => {
    const comm = [{ type: 'M3DA', commIdType: 'SERIAL', parameters: { encryption: 'aes-cbc-128', authentication: 'none' } }]
    const uid = await newApp({ communication: comm })
    const refused: Array<[unknown, string, string]> = [
      [[{ type: 'MQTT', commIdType: 'SERIAL' }, { type: 'MQTT', commIdType: 'IMEI' }], 'request.invalid', 'body/1/type'],
      [[{ type: 'CARRIER_PIGEON', commIdType: 'SERIAL' }], 'unknown.enum.value', 'body/0/type'],
      [[{ type: 'MQTT', commIdType: 'SHOE_SIZE' }], 'unknown.enum.value', 'body/0/commIdType'],
      [[{ type: 'MQTT' }], 'request.invalid', 'body/0/commIdType'],
      [[{ type: 'MSCI', commIdType: 'SERIAL', parameters: { access: 'telnet' } }], 'unknown.enum.value', 'body/0/parameters/access'],
      [[{ type: 'MSCI', commIdType: 'SERIAL', parameters: { snmpVersion: '1' } }], 'unknown.enum.value', 'body/0/parameters/snmpVersion'],
      [[{ type: 'MSCI', commIdType: 'SERIAL', parameters: { port: 70000 } }], 'request.invalid', 'body/0/parameters/port'],
      [[{ type: 'MSCI', commIdType: 'SERIAL', parameters: { pollPeriodS: 0 } }], 'request.invalid', 'body/0/parameters/pollPeriodS'],
      [[{ type: 'M3DA', commIdType: 'SERIAL', parameters: { encryption: 'rot13' } }], 'unknown.enum.value', 'body/0/parameters/encryption'],
      [[{ type: 'M3DA', commIdType: 'SERIAL', parameters: { authentication: 5 } }], 'request.invalid', 'body/0/parameters/authentication'],
      [[{ type: 'MQTT', commIdType: 'SERIAL', parameters: 'x' }], 'request.invalid', 'body/0/parameters']
    ]
    for (const [body, code, field] of refused) {
      const res = expectError(await put(uid, 'communication', body), code)
      expect(String(res.errorParameters[0]).startsWith(field), `${JSON.stringify(body)} → ${JSON.stringify(res)}`).toBe(true)
    }
    expect((await get(uid)).communication).toEqual(comm)
  })

  it('changes only the context company\'s own applications', async () => {
    const publicUid = appUid(cat, 'fw.public@1.0')
    expectError(await put(publicUid, 'communication', [{ type: 'MQTT', commIdType: 'SERIAL' }]), 'application.unknown')
    expect((await get(publicUid)).communication).toEqual([{ type: 'M3DA', commIdType: 'SERIAL' }])
    expectError(await put(appUid(cat, 'app.other@1'), 'communication', []), 'application.unknown')
  })
})

describe('POST /api/v1/applications with the model', () => {
  it('creates with communication and data, and refuses a bad model writing nothing', async () => {
    const type = uniq('app.posted')
    const body = { name: 'Posted', revision: '2', type, category: 'FIRMWARE', communication: [{ type: 'SPARKPLUG', commIdType: 'SERIAL' }], data: tree }
    const res = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/applications', payload: body })
    expect(res.statusCode).toBe(200)
    // An application made through the API is installable at once (PUBLISHED), and holds no package (docs/packages.md).
    expect(res.json()).toEqual({
      ...body,
      uid: res.json().uid,
      public: false,
      state: 'PUBLISHED',
      released: null,
      published: expect.any(Number),
      owner: null,
      applicationManager: null,
      binaries: []
    })
    expect(await get(res.json().uid)).toEqual(res.json())
    const count = async (): Promise<number> => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM applications')).rows[0]?.n ?? 0
    const before = await count()
    const dup = expectError(await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/applications', payload: { ...body, type: uniq('x'), data: [{ id: 'a', elementType: 'variable' }, { id: 'a', elementType: 'variable' }] } }), 'request.invalid')
    expect(dup.errorParameters[0]).toBe('body/data/1/id')
    const twice = expectError(await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/applications', payload: { ...body, type: uniq('x'), communication: [{ type: 'REST', commIdType: 'SERIAL' }, { type: 'REST', commIdType: 'SERIAL' }] } }), 'request.invalid')
    expect(twice.errorParameters[0]).toBe('body/communication/1/type')
    expect(await count()).toBe(before)
  })

  it('picks attributes with fields on the find', async () => {
    const uid = await newApp({ data: tree })
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications?uid=${uid}&fields=uid,communication` })
    expect(res.json().items).toEqual([{ uid, communication: [] }])
  })
})
