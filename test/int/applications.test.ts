// GET and POST /api/v1/applications: the application catalogue systems link by uid (docs/api.md#systems).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../helpers/stack.js'
import { createUser, seed, type TestUser } from '../helpers/factories.js'
import { appUid, createSystem, expectError, OTHER_COMPANY, seedCatalogue, type Catalogue, type Json } from '../helpers/systems.js'
import { GENERIC_APPLICATIONS } from '../../core/domain/generic-applications.js'

let stack: Stack
let cat: Catalogue
let other: TestUser

beforeAll(async () => {
  stack = await startStack()
  cat = await seedCatalogue(stack)
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.applications.view', 'entities.applications.create', 'entities.systems.create'] })
})
afterAll(async () => { await stack.close() })

const find = async (query = '', token = stack.adminToken): Promise<Json> => {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/applications${query}` })
  expect(res.statusCode).toBe(200)
  return res.json()
}
const post = async (body: Json, token = stack.adminToken) => await stack.call(token, { method: 'POST', url: '/api/v1/applications', payload: body })
const keys = (page: Json): string[] => page.items.map((a: Json) => `${a.type as string}@${a.revision as string}`).sort()
// Every store holds the public generic firmware applications (seeded at start).
const GENERIC = GENERIC_APPLICATIONS.map((a) => `${a.type}@${a.revision}`)
const withGeneric = (list: string[]): string[] => [...list, ...GENERIC].sort()
// docs/packages.md#release-and-publish: an application made without a package is PUBLISHED as of its creation.
const MADE_WITHOUT_PACKAGE = { state: 'PUBLISHED', released: null, published: expect.any(Number), owner: null, applicationManager: null, binaries: [] }

describe('find applications', () => {
  it('lists public applications and the company\'s own, never another company\'s', async () => {
    const page = await find()
    expect(keys(page)).toEqual(withGeneric(['app.mqtt2@1', 'app.mqtt@1', 'app.own@1', 'fw.public@1.0', 'fw.public@2.0']))
    expect(page).toMatchObject({ count: 10, size: 10, offset: 0 })
    const own = page.items.find((a: Json) => a.type === 'app.own')
    expect(own).toEqual({
      uid: appUid(cat, 'app.own@1'), name: 'Own REST app', revision: '1', type: 'app.own', category: 'APPLICATION', communication: [{ type: 'REST', commIdType: 'SERIAL' }], data: [], public: false, ...MADE_WITHOUT_PACKAGE
    })
    expect(page.items.find((a: Json) => a.type === 'fw.public' && a.revision === '1.0'))
      .toMatchObject({ public: true, data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }] })
    expect(keys(await find('', other.token))).toEqual(withGeneric(['app.mqtt2@1', 'app.mqtt@1', 'app.other@1', 'fw.public@1.0', 'fw.public@2.0']))
  })

  it('filters by uid, name, type, revision and category', async () => {
    expect(keys(await find(`?uid=${appUid(cat, 'app.mqtt@1')}`))).toEqual(['app.mqtt@1'])
    expect(keys(await find(`?uid=${appUid(cat, 'app.other@1')}`))).toEqual([])
    expect(keys(await find('?name=public firmware'))).toEqual(['fw.public@1.0', 'fw.public@2.0'])
    expect(keys(await find('?type=app.mqtt'))).toEqual(['app.mqtt2@1', 'app.mqtt@1'])
    expect(keys(await find('?type=mqtt'))).toEqual(['app.mqtt2@1', 'app.mqtt@1', 'generic.mqtt@1.0'])
    expect(keys(await find('?type=fw&revision=2.0'))).toEqual(['fw.public@2.0'])
    expect(keys(await find('?category=FIRMWARE'))).toEqual(withGeneric(['fw.public@1.0', 'fw.public@2.0']))
  })

  it('pages with offset and size, count being the total', async () => {
    const first = await find('?size=4')
    const second = await find('?size=4&offset=4')
    const third = await find('?size=4&offset=8')
    expect([first.size, second.size, third.size]).toEqual([4, 4, 2])
    expect(third).toMatchObject({ count: 10, offset: 8 })
    const all = [...first.items, ...second.items, ...third.items].map((a: Json) => a.uid)
    expect(new Set(all).size).toBe(10)
  })

  it('refuses an unknown category: unknown.enum.value; a caller without the right: 403', async () => {
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/applications?category=FOO' }), 'unknown.enum.value')
    const user = await createUser(stack, { rights: ['entities.systems.view'] })
    const res = await stack.call(user.token, { method: 'GET', url: '/api/v1/applications' })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.applications.view'] })
  })
})

describe('create an application', () => {
  const body = {
    name: 'Edge agent',
    revision: '3.1',
    type: 'app.edge',
    category: 'APPLICATION',
    communication: [{ type: 'MSCI', commIdType: 'SERIAL', parameters: { access: 'snmp', pollPeriodS: 60 } }],
    data: [
      { id: 'machine', elementType: 'node', data: [{ id: 'temperature', elementType: 'variable', type: 'double' }] },
      { id: 'config', elementType: 'node', data: [{ id: 'period', elementType: 'setting', type: 'int' }] },
      { id: 'restart', elementType: 'action', actionType: 'REBOOT' },
      { id: 'factory', elementType: 'action', actionType: 'RESET' }
    ]
  }

  it('creates a company-owned application that the company\'s systems can use', async () => {
    const res = await post(body)
    expect(res.statusCode).toBe(200)
    const app = res.json()
    expect(app).toEqual({ ...body, uid: app.uid, public: false, ...MADE_WITHOUT_PACKAGE })
    expect((await find(`?uid=${app.uid as string}`)).items).toEqual([app])
    expect((await find(`?uid=${app.uid as string}`, other.token)).items).toEqual([])
    const s = await createSystem(stack, { name: 'edge', applications: [{ uid: app.uid }] })
    expect(s.applications).toEqual([{ uid: app.uid, name: 'Edge agent', revision: '3.1', type: 'app.edge', category: 'APPLICATION' }])
    expectError(await stack.call(other.token, { method: 'POST', url: '/api/v1/systems', payload: { name: 'x', applications: [{ uid: app.uid }] } }), 'application.unknown')
  })

  it('refuses the same type and revision twice in a company: application.not.unique', async () => {
    const again = { ...body, type: 'app.twice', name: 'first' }
    expect((await post(again)).statusCode).toBe(200)
    const before = (await find('?type=app.twice')).count
    expectError(await post({ ...again, name: 'second' }), 'application.not.unique')
    expect((await find('?type=app.twice')).count).toBe(before)
    // Another company has its own catalogue.
    expect((await post(again, other.token)).statusCode).toBe(200)
  })

  it('lets only one of two requests creating one type and revision at once have it', async () => {
    for (let round = 0; round < 5; round++) {
      const same = { ...body, type: `app.race${round}` }
      const outcomes = (await Promise.all([post(same), post(same)])).map((r) => r.statusCode === 200 ? 'created' : r.json().error).sort()
      expect(outcomes).toEqual(['application.not.unique', 'created'])
    }
  })

  it('refuses an unknown category, protocol or action type: unknown.enum.value', async () => {
    expectError(await post({ ...body, type: 'app.bad1', category: 'HARDWARE' }), 'unknown.enum.value')
    expectError(await post({ ...body, type: 'app.bad2', communication: [{ type: 'CARRIER_PIGEON', commIdType: 'SERIAL' }] }), 'unknown.enum.value')
    expectError(await post({ ...body, type: 'app.bad3', data: [{ id: 'x', elementType: 'action', actionType: 'EXPLODE' }] }), 'unknown.enum.value')
    expect((await find('?type=app.bad')).count).toBe(0)
  })

  it('refuses a body without name, type or revision: request.invalid', async () => {
    expectError(await post({ type: 'app.noname', revision: '1', category: 'SOFTWARE' }), 'request.invalid')
    expectError(await post({ name: 'x', type: '', revision: '1', category: 'SOFTWARE' }), 'request.invalid')
  })

  it('refuses a caller without entities.applications.create: 403', async () => {
    const user = await createUser(stack, { rights: ['entities.applications.view'] })
    const res = await post({ ...body, type: 'app.forbidden' }, user.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.applications.create'] })
    expect((await find('?type=app.forbidden')).count).toBe(0)
  })
})

describe('the category of an application: APPLICATION or FIRMWARE, as AirVantage says', () => {
  it('answers and stores APPLICATION by default; FIRMWARE is kept when given', async () => {
    const res = await post({ name: 'No category', revision: '1', type: 'app.nocategory' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ type: 'app.nocategory', category: 'APPLICATION', public: false })
    expect((await find('?type=app.nocategory&category=APPLICATION')).count).toBe(1)
    const fw = await post({ name: 'Firmware', revision: '1', type: 'fw.own', category: 'FIRMWARE' })
    expect(fw.json()).toMatchObject({ category: 'FIRMWARE' })
  })

  it('takes SOFTWARE as APPLICATION: on create, in the category filter and in the seed file', async () => {
    const res = await post({ name: 'Software', revision: '1', type: 'app.software', category: 'SOFTWARE' })
    expect(res.json()).toMatchObject({ type: 'app.software', category: 'APPLICATION' })
    expect((await find('?type=app.software&category=SOFTWARE')).items).toMatchObject([{ category: 'APPLICATION' }])
    await seed(stack, { applications: [{ company: COMPANY_NAME, name: 'Seeded software', revision: '1', type: 'app.seeded.software', category: 'SOFTWARE' }] })
    expect((await find('?type=app.seeded.software')).items).toMatchObject([{ category: 'APPLICATION' }])
  })
})

describe('GET /api/v1/applications/{uid}', () => {
  const get = async (uid: string, token = stack.adminToken) => await stack.call(token, { method: 'GET', url: `/api/v1/applications/${encodeURIComponent(uid)}` })

  it('answers a public application and the company\'s own, as find lists them', async () => {
    for (const key of ['fw.public@1.0', 'app.own@1']) {
      const res = await get(appUid(cat, key))
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual((await find(`?uid=${appUid(cat, key)}`)).items[0])
    }
    expect((await get(appUid(cat, 'fw.public@1.0'), other.token)).json()).toMatchObject({ public: true, type: 'fw.public' })
  })

  it('another company\'s application, or an unknown uid: 400 application.unknown', async () => {
    const theirs = appUid(cat, 'app.other@1')
    expect((await get(theirs, other.token)).statusCode).toBe(200)
    expect(expectError(await get(theirs), 'application.unknown').errorParameters).toEqual([theirs])
    expect(expectError(await get(appUid(cat, 'app.own@1'), other.token), 'application.unknown').errorParameters).toEqual([appUid(cat, 'app.own@1')])
    expectError(await get('no-such-application'), 'application.unknown')
  })

  it('needs entities.applications.view: 403 missing.rights', async () => {
    const user = await createUser(stack, { rights: ['entities.systems.view'] })
    const res = await get(appUid(cat, 'fw.public@1.0'), user.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.applications.view'] })
  })
})
