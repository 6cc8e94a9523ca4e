// GET and POST /api/v1/templates: setting templates of a company, the templateId of apply settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { createUser, type TestUser } from '../helpers/factories.js'
import { expectError, OTHER_COMPANY, type Json } from '../helpers/systems.js'
import { seed } from '../helpers/factories.js'
import { GENERIC_SETTINGS } from '../../core/domain/generic-applications.js'

let stack: Stack
let other: TestUser

beforeAll(async () => {
  stack = await startStack()
  await seed(stack, { companies: [{ name: OTHER_COMPANY }] })
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.view', 'entities.systems.settings.apply'] })
})
afterAll(async () => { await stack.close() })

const list = async (query = '', token = stack.adminToken): Promise<Json> => {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/templates${query}` })
  expect(res.statusCode).toBe(200)
  return res.json()
}
const post = async (body: unknown, token = stack.adminToken) => await stack.call(token, { method: 'POST', url: '/api/v1/templates', payload: body as Json })
const count = async (): Promise<number> => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM setting_templates')).rows[0]?.n ?? 0

describe('setting templates', () => {
  it('the first company starts with "Default reporting" and "Low power"; another company has none', async () => {
    const page = await list()
    expect(page).toMatchObject({ count: 2, size: 2, offset: 0 })
    expect(page.items.map((t: Json) => ({ name: t.name, settings: t.settings }))).toEqual([
      { name: 'Default reporting', settings: [{ key: GENERIC_SETTINGS.reportPeriodS, value: 300 }, { key: GENERIC_SETTINGS.gpsEnabled, value: true }] },
      { name: 'Low power', settings: [{ key: GENERIC_SETTINGS.reportPeriodS, value: 3600 }, { key: GENERIC_SETTINGS.gpsEnabled, value: false }] }
    ])
    expect(typeof page.items[0].uid).toBe('string')
    expect(await list('', other.token)).toEqual({ items: [], count: 0, size: 0, offset: 0 })
  })

  it('creates a template the company lists, typed values kept, and only that company sees it', async () => {
    const body = { name: 'Fast', settings: [{ key: 'config.reportPeriodS', value: 10 }, { key: 'config.temperatureThreshold', value: 41.5 }, { key: 'config.serverUrl', value: 'https://x.example' }, { key: 'config.gpsEnabled', value: true }] }
    const res = await post(body)
    expect(res.statusCode).toBe(200)
    const created = res.json()
    expect(created).toEqual({ uid: created.uid, ...body })
    expect((await list('?name=fast')).items).toEqual([created])
    expect((await list('?name=fast', other.token)).items).toEqual([])
    // The same name in another company is another template.
    expect((await post(body, other.token)).statusCode).toBe(200)
  })

  it('refuses a name the company already has: template.not.unique, nothing written', async () => {
    const before = await count()
    expect(expectError(await post({ name: 'Low power', settings: [] }), 'template.not.unique').errorParameters).toEqual(['Low power'])
    expect(await count()).toBe(before)
  })

  it('lets only one of two requests creating one name at once have it', async () => {
    for (let round = 0; round < 5; round++) {
      const body = { name: `race-${round}`, settings: [{ key: 'a', value: 1 }] }
      const outcomes = (await Promise.all([post(body), post(body)])).map((r) => r.statusCode === 200 ? 'created' : r.json().error).sort()
      expect(outcomes).toEqual(['created', 'template.not.unique'])
    }
  })

  it('refuses a key given twice: operation.invalid.multiple.entries.for.same.key, nothing written', async () => {
    const before = await count()
    const res = expectError(await post({ name: 'Twice', settings: [{ key: 'config.apn', value: 'a' }, { key: 'config.apn', value: 'b' }] }), 'operation.invalid.multiple.entries.for.same.key')
    expect(res.errorParameters).toEqual(['config.apn'])
    expect(await count()).toBe(before)
  })

  it('refuses an empty key or name, a missing value or one no setting can hold, writing nothing', async () => {
    const before = await count()
    expectError(await post({ name: 'Empty key', settings: [{ key: '', value: 1 }] }), 'request.invalid')
    expectError(await post({ name: '', settings: [] }), 'request.invalid')
    expectError(await post({ name: 'No settings' }), 'request.invalid')
    expectError(await post({ name: 'No value', settings: [{ key: 'a' }] }), 'request.invalid')
    expectError(await post({ name: 'Null value', settings: [{ key: 'a', value: null }] }), 'request.invalid')
    expectError(await post({ name: 'Object value', settings: [{ key: 'a', value: { b: 1 } }] }), 'request.invalid')
    expectError(await post({ name: 'x'.repeat(256), settings: [] }), 'value.too.long')
    expect(await count()).toBe(before)
  })

  it('pages with offset and size, and picks attributes with fields', async () => {
    for (const n of ['p1', 'p2', 'p3']) expect((await post({ name: `page-${n}`, settings: [] })).statusCode).toBe(200)
    const first = await list('?name=page-&size=2')
    const second = await list('?name=page-&size=2&offset=2')
    expect(first).toMatchObject({ count: 3, size: 2, offset: 0 })
    expect(second).toMatchObject({ count: 3, size: 1, offset: 2 })
    expect([...first.items, ...second.items].map((t: Json) => t.name)).toEqual(['page-p1', 'page-p2', 'page-p3'])
    const names = await list('?name=page-&fields=name')
    expect(names.items).toEqual([{ name: 'page-p1' }, { name: 'page-p2' }, { name: 'page-p3' }])
  })

  it('needs entities.systems.view to list and entities.systems.settings.apply to create: 403', async () => {
    const none = await createUser(stack, { rights: ['entities.applications.view'] })
    const viewer = await createUser(stack, { rights: ['entities.systems.view'] })
    const listed = await stack.call(none.token, { method: 'GET', url: '/api/v1/templates' })
    expect(listed.statusCode).toBe(403)
    expect(listed.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.view'] })
    expect((await list('', viewer.token)).count).toBeGreaterThan(0)
    const before = await count()
    const created = await post({ name: 'Forbidden', settings: [] }, viewer.token)
    expect(created.statusCode).toBe(403)
    expect(created.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.settings.apply'] })
    expect(await count()).toBe(before)
  })
})
