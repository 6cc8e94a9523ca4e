// A released application's life (docs/packages.md#release-and-publish): released once per type and revision, published,
// deleted with the bytes no other application uses, and the company's alone (kept while in use: application-in-use.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, type TestUser } from '../../helpers/factories.js'
import { applicationsOfType, binaryBytes, finished, greenhousePackage, release, sha256 } from './release-helpers.js'
import type { Json } from '../../helpers/operations.js'

let stack: Stack
let other: TestUser

const RIGHTS = ['entities.applications.view', 'entities.applications.create', 'entities.systems.view']

beforeAll(async () => {
  stack = await startStack()
  other = await createUser(stack, { company: 'Other Company', rights: RIGHTS })
})
afterAll(async () => { await stack.close() })

const publish = async (application: string, token = stack.adminToken) =>
  await stack.call(token, { method: 'POST', url: '/api/v1/operations/applications/publish', payload: { application } })
const remove = async (uid: string, token = stack.adminToken) => await stack.call(token, { method: 'DELETE', url: `/api/v1/applications/${uid}` })
const get = async (uid: string, token = stack.adminToken) => await stack.call(token, { method: 'GET', url: `/api/v1/applications/${uid}` })

/** Releases a one-model package of this type and answers its application. */
async function released (type: string, binary?: Buffer): Promise<Json> {
  const { task } = await release(stack, await greenhousePackage(type, '1.0', binary))
  expect(task.state).toBe('SUCCESS')
  const [app] = await applicationsOfType(stack, type)
  return app as Json
}

describe('release twice', () => {
  it('the same type and revision again, or a public one\'s: application.type.already.used, nothing more created', async () => {
    await released('twice.app')
    const { task } = await release(stack, await greenhousePackage('twice.app', '1.0'))
    expect(task).toMatchObject({ state: 'FAILURE', error: { code: 'application.type.already.used' } })
    expect(await applicationsOfType(stack, 'twice.app')).toHaveLength(1)
    // A public application (seeded for every company) takes its type and revision for everyone.
    const [pub] = (await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/applications' })).json().items.filter((a: Json) => a.public === true) as Json[]
    const clash = await release(stack, await greenhousePackage(pub?.type as string, pub?.revision as string))
    expect(clash.task).toMatchObject({ state: 'FAILURE', error: { code: 'application.type.already.used' } })
  })
})

describe('publish', () => {
  it('makes the application PUBLISHED through an APPLICATION_PUBLISH operation, keeping its first date', async () => {
    const app = await released('publish.app')
    const res = await publish(app.uid as string)
    expect(res.statusCode).toBe(200)
    const { operation, task } = await finished(stack, res.json().operation as string)
    expect(operation).toMatchObject({ entity: 'APPLICATION', operationType: 'APPLICATION_PUBLISH', parameters: { application: app.uid } })
    expect(task.state).toBe('SUCCESS')
    const published = (await get(app.uid as string)).json()
    expect(published).toMatchObject({ state: 'PUBLISHED', released: app.released, published: expect.any(Number) })
    await finished(stack, (await publish(app.uid as string)).json().operation as string)
    expect((await get(app.uid as string)).json().published).toBe(published.published)
  })

  it('refuses another company\'s application, a public one and none at once: application.unknown', async () => {
    const app = await released('publish.tenancy')
    const pub = (await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/applications' })).json().items.find((a: Json) => a.public === true) as Json
    for (const [uid, token] of [[app.uid as string, other.token], [pub.uid as string, stack.adminToken], ['none', stack.adminToken]] as const) {
      const res = await publish(uid, token)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ error: 'application.unknown' })
    }
    expect((await get(app.uid as string)).json().state).toBe('RELEASED')
  })
})

describe('delete', () => {
  it('deletes the application and the bytes no other application uses', async () => {
    const shared = binaryBytes(20_000, 'shared-by-two')
    const first = await released('delete.first', shared)
    const second = await released('delete.second', shared)
    const own = await released('delete.own', binaryBytes(20_000, 'only-mine'))
    expect((await remove(first.uid as string)).statusCode).toBe(200)
    expect((await get(first.uid as string)).json()).toMatchObject({ error: 'application.unknown' })
    expect(await stack.ctx.artifacts.stat(sha256(shared))).toEqual({ size: shared.length })
    expect((await remove(second.uid as string)).statusCode).toBe(200)
    expect(await stack.ctx.artifacts.stat(sha256(shared))).toBeUndefined()
    const ownKey = (own.binaries as Json[])[0]?.sha256 as string
    expect(await stack.ctx.artifacts.stat(ownKey)).toBeDefined()
    expect((await remove(own.uid as string)).statusCode).toBe(200)
    expect(await stack.ctx.artifacts.stat(ownKey)).toBeUndefined()
  })

  it('another company cannot see or delete the company\'s application; nobody deletes a public one', async () => {
    const app = await released('delete.tenancy')
    expect((await get(app.uid as string, other.token)).json()).toMatchObject({ error: 'application.unknown' })
    expect(await applicationsOfType(stack, 'delete.tenancy', other.token)).toEqual([])
    const refused = await remove(app.uid as string, other.token)
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toMatchObject({ error: 'application.unknown' })
    expect((await get(app.uid as string)).statusCode).toBe(200)
    const pub = (await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/applications' })).json().items.find((a: Json) => a.public === true) as Json
    expect((await remove(pub.uid as string)).json()).toMatchObject({ error: 'application.unknown' })
    expect((await get(pub.uid as string)).statusCode).toBe(200)
  })
})
