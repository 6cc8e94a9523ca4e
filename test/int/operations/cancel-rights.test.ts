// POST /api/v1/operations/{uid}/cancel needs the right that creating the operation's type needs
// (docs/operations.md#bulk-operations, Permission column; docs/api.md#using-the-api: 403 missing.rights naming it). A
// refused cancel changes nothing: the operation keeps its state, no cancelDate, its tasks stay PENDING.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { count, createSystems, getOperation, postDelete, postExport, postLabel, started } from '../../helpers/operations.js'

const DAY = 86_400_000
const VIEW = 'entities.systems.view'

let stack: Stack
let viewer: TestUser
let editor: TestUser
let deleter: TestUser
let exporter: TestUser

beforeAll(async () => {
  stack = await startStack()
  viewer = await createUser(stack, { rights: [VIEW] })
  editor = await createUser(stack, { rights: [VIEW, 'entities.systems.edit'] })
  deleter = await createUser(stack, { rights: [VIEW, 'entities.systems.delete'] })
  exporter = await createUser(stack, { rights: [VIEW, 'entities.systems.export'] })
})
afterAll(async () => { await stack?.close() })

const cancel = async (uid: string, token: string) => await stack.call(token, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })

/** A label operation scheduled tomorrow on `n` fresh systems: it stays SCHEDULED with PENDING tasks. */
async function scheduledLabel (n = 2): Promise<string> {
  const label = uniq('cr')
  await createSystems(stack, n, label, [label])
  return await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, scheduledTime: Date.now() + DAY }))
}

async function expectRefused (uid: string, token: string, right: string): Promise<void> {
  const before = await getOperation(stack, uid)
  const res = await cancel(uid, token)
  expect(res.statusCode).toBe(403)
  expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: [right] })
  expect(await getOperation(stack, uid)).toEqual(before)
}

describe('cancel needs the creation right of the operation type', () => {
  it('label (entities.systems.edit): a viewer is refused, an editor cancels', async () => {
    const uid = await scheduledLabel()
    await expectRefused(uid, viewer.token, 'entities.systems.edit')
    await expectRefused(uid, deleter.token, 'entities.systems.edit')
    expect(count(await getOperation(stack, uid), 'PENDING')).toBe(2)
    const res = await cancel(uid, editor.token)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ uid, state: 'FINISHED' })
    expect(count(res.json(), 'CANCELLED')).toBe(2)
  })

  it('bulk delete (entities.systems.delete): a viewer and an editor are refused, a deleter cancels', async () => {
    // Waits on a scheduled parent, so it stays SCHEDULED until cancelled.
    const parent = await scheduledLabel(1)
    const uid = await started(postDelete(stack, { systems: { dependsOn: { operation: parent } } }))
    await expectRefused(uid, viewer.token, 'entities.systems.delete')
    await expectRefused(uid, editor.token, 'entities.systems.delete')
    expect((await getOperation(stack, uid)).state).toBe('SCHEDULED')
    const res = await cancel(uid, deleter.token)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ uid, state: 'FINISHED' })
    expect((res.json() as { cancelDate: number | null }).cancelDate).not.toBeNull()
  })

  it('export data history (entities.systems.export): a viewer is refused, an exporter is answered', async () => {
    const [system = ''] = await createSystems(stack, 1, uniq('exp'))
    const uid = await started(postExport(stack, system, { data: ['temperature'] }))
    const res = await cancel(uid, viewer.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.export'] })
    expect((await cancel(uid, exporter.token)).statusCode).toBe(200)
  })

  it('the viewer still reads the operation it may not cancel', async () => {
    const uid = await scheduledLabel(1)
    expect((await stack.call(viewer.token, { method: 'GET', url: `/api/v1/operations/${uid}` })).statusCode).toBe(200)
  })
})
