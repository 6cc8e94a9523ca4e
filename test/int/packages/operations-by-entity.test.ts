// GET /api/v1/operations?entities= (docs/operations.md#bulk-operations): release and publish operations are the
// APPLICATION entity's, the others the SYSTEM entity's; the filter takes either or both, narrows operationTypes, and an
// entity no operation has answers nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { createSystems, postLabel, started, type Json } from '../../helpers/operations.js'
import { applicationsOfType, finished, greenhousePackage, release } from './release-helpers.js'

let stack: Stack

beforeAll(async () => { stack = await startStack() }, 120_000)
afterAll(async () => { await stack?.close() })

/** The uids the list answers (sorted: operations created in one millisecond have no order) and its count. */
async function listed (query: string): Promise<{ uids: string[], count: number }> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations?${query}` })
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json() as { items: Json[], count: number }
  return { uids: body.items.map((o) => o.uid as string).sort(), count: body.count }
}

describe('operations by entity', { timeout: 60_000 }, () => {
  it('APPLICATION lists releases and publishes, SYSTEM the others, both all of them', async () => {
    const type = uniq('entity')
    const released = (await release(stack, await greenhousePackage(type, '1.0'))).operation
    expect(released.entity).toBe('APPLICATION')
    const [app] = await applicationsOfType(stack, type)
    const publish = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/applications/publish', payload: { application: app?.uid } }))
    await finished(stack, publish)
    const label = uniq('lbl')
    await createSystems(stack, 1, uniq('entity'), [label])
    const labelled = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] } }))
    const sorted = (...u: string[]): string[] => u.sort()
    const uids = `uid=${[released.uid, publish, labelled].join(',')}`

    expect(await listed(`${uids}&entities=APPLICATION`)).toEqual({ uids: sorted(publish, released.uid), count: 2 })
    expect(await listed(`${uids}&entities=SYSTEM`)).toEqual({ uids: sorted(labelled), count: 1 })
    expect(await listed(`${uids}&entities=SYSTEM,APPLICATION`)).toEqual({ uids: sorted(labelled, publish, released.uid), count: 3 })
    expect(await listed(`${uids}&entities=SYSTEM&entities=APPLICATION`)).toEqual({ uids: sorted(labelled, publish, released.uid), count: 3 })
    expect(await listed(`${uids}`)).toEqual({ uids: sorted(labelled, publish, released.uid), count: 3 })
    // With operationTypes: the types of both filters.
    expect(await listed(`${uids}&entities=APPLICATION&operationTypes=APPLICATION_PUBLISH`)).toEqual({ uids: sorted(publish), count: 1 })
    expect(await listed(`${uids}&entities=APPLICATION&operationTypes=SYSTEM_LABEL`)).toEqual({ uids: [], count: 0 })
    expect(await listed(`${uids}&entities=SYSTEM&operationTypes=SYSTEM_LABEL,APPLICATION_RELEASE`)).toEqual({ uids: sorted(labelled), count: 1 })
    expect(await listed(`${uids}&entities=USER`)).toEqual({ uids: [], count: 0 })
  })
})
