// POST /api/v1/operations/systems/delete (docs/operations.md#bulk-operations, docs/api.md#using-the-api row "bulk
// delete" = set S, docs/api.md#limits) and the history it leaves: GET /api/v1/operations
// (docs/operations.md#bulk-operations).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, validImei, type Json } from '../../helpers/systems.js'
import { allTasks, countOperations, createSystems, postDelete, postLabel, started, waitFinished } from '../../helpers/operations.js'

let stack: Stack
let other: TestUser
let otherSystem: Json
let n = 0

beforeAll(async () => {
  stack = await startStack()
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view', 'entities.systems.delete', 'entities.systems.edit'] })
  otherSystem = await createSystem(stack, { name: uniq('other'), labels: ['shared', 'theirs-only'] }, { token: other.token })
})
afterAll(async () => { await stack?.close() })

/** Starts a bulk delete and waits for it to finish; answers the operation JSON. */
async function remove (body: Json, token = stack.adminToken): Promise<Json> {
  return await waitFinished(stack, await started(postDelete(stack, body, token)))
}

async function exists (table: 'systems' | 'gateways' | 'subscriptions', uid: string): Promise<boolean> {
  const { rows } = await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE uid = $1`, [uid])
  return rows[0]?.n === 1
}

async function systemStatus (uid: string): Promise<{ status: number, error?: string }> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uid}` })
  return res.statusCode === 200 ? { status: 200 } : { status: res.statusCode, error: res.json().error }
}

const gone = { status: 400, error: 'system.unknown' }

/** The request is refused with `code` (400) and creates no operation, deleting nothing. */
async function refused (body: Json, code: string, token = stack.adminToken): Promise<Json> {
  const before = await countOperations(stack)
  const { rows: systemsBefore } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems')
  const res = expectError(await postDelete(stack, body, token), code)
  expect(await countOperations(stack)).toBe(before)
  expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems')).rows).toEqual(systemsBefore)
  return res
}

/** A system with a gateway and a subscription; answers the three uids. */
async function full (tag: string): Promise<{ uid: string, gateway: string, subscription: string }> {
  const s = await createSystem(stack, {
    name: `${tag}-${++n}`,
    labels: [tag],
    gateway: { serialNumber: uniq('SN'), imei: validImei(7000 + n) },
    subscription: { identifier: uniq('8933'), operator: 'ORANGE' }
  })
  return { uid: s.uid, gateway: s.gateway.uid, subscription: s.subscription.uid }
}

describe('bulk delete: selection forms', () => {
  it('by label: every system carrying it, and only this company\'s', async () => {
    const tag = uniq('t')
    const uids = await createSystems(stack, 3, tag, [tag, 'shared'])
    const keep = (await createSystems(stack, 1, `${tag}-keep`, ['shared']))[0] as string
    const op = await remove({ systems: { label: tag } })
    expect(op).toMatchObject({ operationType: 'SYSTEM_DELETE', state: 'FINISHED', total: 3, parameters: { deleteGateways: false, deleteSubscriptions: false } })
    for (const uid of uids) expect(await systemStatus(uid)).toEqual(gone)
    expect(await systemStatus(keep)).toEqual({ status: 200 })
    expect(await exists('systems', otherSystem.uid)).toBe(true)
  })

  it('by uids: repeated uids count once', async () => {
    const tag = uniq('t')
    const [a, b, c] = await createSystems(stack, 3, tag) as [string, string, string]
    const op = await remove({ systems: { uids: [a, b, a] } })
    expect(op.total).toBe(2)
    expect((await allTasks(stack, op.uid)).map((t) => t.system.uid)).toEqual([a, b])
    expect(await systemStatus(a)).toEqual(gone)
    expect(await systemStatus(b)).toEqual(gone)
    expect(await systemStatus(c)).toEqual({ status: 200 })
  })

  it('by criteria', async () => {
    const tag = uniq('t')
    const [a, b] = await createSystems(stack, 2, tag, [tag]) as [string, string]
    const op = await remove({ systems: { criteria: { labels: [tag], name: `${tag}-2` } } })
    expect((await allTasks(stack, op.uid)).map((t) => t.system.uid)).toEqual([b])
    expect(await systemStatus(a)).toEqual({ status: 200 })
    expect(await systemStatus(b)).toEqual(gone)
  })

  it('by dependsOn: the systems of the parent operation\'s tasks', async () => {
    const tag = uniq('t')
    const [a, b, c] = await createSystems(stack, 3, tag) as [string, string, string]
    const parent = await waitFinished(stack, await started(postLabel(stack, { labels: { add: [tag] }, criteria: { uids: [a, c] } })))
    const op = await remove({ systems: { dependsOn: { operation: parent.uid, states: ['SUCCESS'] } } })
    expect(op.dependsOn).toEqual({ operation: parent.uid, states: ['SUCCESS'] })
    expect(await systemStatus(a)).toEqual(gone)
    expect(await systemStatus(b)).toEqual({ status: 200 })
    expect(await systemStatus(c)).toEqual(gone)
  })
})

describe('bulk delete: gateways and subscriptions', () => {
  it('keeps them by default and with false', async () => {
    const tag = uniq('t')
    const s1 = await full(tag)
    const s2 = await full(tag)
    await remove({ systems: { uids: [s1.uid] } })
    await remove({ systems: { uids: [s2.uid] }, deleteGateways: false, deleteSubscriptions: false })
    for (const s of [s1, s2]) {
      expect(await exists('systems', s.uid)).toBe(false)
      expect(await exists('gateways', s.gateway)).toBe(true)
      expect(await exists('subscriptions', s.subscription)).toBe(true)
    }
  })

  it('removes the gateways with deleteGateways, the subscriptions with deleteSubscriptions', async () => {
    const tag = uniq('t')
    const g = await full(tag)
    const b = await full(tag)
    const both = await full(tag)
    await remove({ systems: { uids: [g.uid] }, deleteGateways: true })
    await remove({ systems: { uids: [b.uid] }, deleteSubscriptions: true })
    const op = await remove({ systems: { uids: [both.uid] }, deleteGateways: true, deleteSubscriptions: true })
    expect(op.parameters).toEqual({ deleteGateways: true, deleteSubscriptions: true })
    expect([await exists('gateways', g.gateway), await exists('subscriptions', g.subscription)]).toEqual([false, true])
    expect([await exists('gateways', b.gateway), await exists('subscriptions', b.subscription)]).toEqual([true, false])
    expect([await exists('gateways', both.gateway), await exists('subscriptions', both.subscription)]).toEqual([false, false])
  })

  it('a kept gateway and subscription can make a new system', async () => {
    const s = await full(uniq('t'))
    const { rows } = await stack.db.query<{ serial_number: string, identifier: string }>(
      'SELECT g.serial_number, b.identifier FROM gateways g, subscriptions b WHERE g.uid = $1 AND b.uid = $2', [s.gateway, s.subscription])
    await remove({ systems: { uids: [s.uid] } })
    const again = await createSystem(stack, { name: uniq('again'), gateway: { uid: s.gateway }, subscription: { uid: s.subscription } })
    expect(again.gateway.serialNumber).toBe(rows[0]?.serial_number)
    expect(again.subscription.identifier).toBe(rows[0]?.identifier)
  })
})

describe('bulk delete: the operation stays in the history', () => {
  let op: Json
  let deleted: string[]
  let label: string
  const list = async (q: string, token = stack.adminToken): Promise<Json> => {
    const res = await stack.call(token, { method: 'GET', url: `/api/v1/operations?${q}` })
    if (res.statusCode !== 200) throw new Error(`list ${q}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const uidsOf = (page: Json): string[] => (page.items as Json[]).map((i) => i.uid)

  beforeAll(async () => {
    const tag = uniq('t')
    deleted = await createSystems(stack, 2, tag, [tag])
    label = await started(postLabel(stack, { labels: { add: ['before-delete'] }, criteria: { uids: deleted } }))
    await waitFinished(stack, label)
    op = await remove({ systems: { label: tag } })
  })

  it('reads the operation and its tasks after the systems are gone', async () => {
    for (const uid of deleted) expect(await exists('systems', uid)).toBe(false)
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations/${op.uid as string}` })
    expect(res.json()).toMatchObject({ uid: op.uid, state: 'FINISHED', total: 2, user: { email: ADMIN_EMAIL } })
    const tasks = await allTasks(stack, op.uid)
    expect(tasks.map((t) => [t.system.uid, t.state])).toEqual(deleted.map((uid) => [uid, 'SUCCESS']))
    expect(tasks[0]?.system.name).toMatch(/-1$/)
  })

  it('filters by uid, states, operationTypes, entities, target, user, createdAfter and createdBefore', async () => {
    const uid = op.uid as string
    expect(uidsOf(await list(`uid=${uid}`))).toEqual([uid])
    expect(uidsOf(await list(`uid=${uid},${label}`))).toEqual([uid, label])
    expect(uidsOf(await list(`uid=${uid}&states=FINISHED`))).toEqual([uid])
    expect(uidsOf(await list(`uid=${uid}&states=IN_PROGRESS&states=SCHEDULED`))).toEqual([])
    expect(uidsOf(await list(`uid=${uid},${label}&operationTypes=SYSTEM_DELETE`))).toEqual([uid])
    expect(uidsOf(await list(`uid=${uid}&operationTypes=SYSTEM_LABEL`))).toEqual([])
    expect(uidsOf(await list(`uid=${uid}&entities=SYSTEM`))).toEqual([uid])
    expect(uidsOf(await list(`uid=${uid}&entities=USER`))).toEqual([])
    // target: a system uid the operation had a task for, even deleted.
    expect(uidsOf(await list(`target=${deleted[1] as string}`))).toEqual([uid, label])
    expect(uidsOf(await list(`target=${deleted[1] as string}&operationTypes=SYSTEM_DELETE`))).toEqual([uid])
    expect(uidsOf(await list(`target=${otherSystem.uid as string}`))).toEqual([])
    expect(uidsOf(await list(`uid=${uid}&user=${ADMIN_EMAIL.toUpperCase()}`))).toEqual([uid])
    expect(uidsOf(await list(`uid=${uid}&user=${other.email}`))).toEqual([])
    const at = op.createdAt as number
    expect(uidsOf(await list(`uid=${uid}&createdAfter=${at}&createdBefore=${at}`))).toEqual([uid])
    expect(uidsOf(await list(`uid=${uid}&createdAfter=${at + 1}`))).toEqual([])
    expect(uidsOf(await list(`uid=${uid}&createdBefore=${at - 1}`))).toEqual([])
  })

  it('pages newest first, count the total matching', async () => {
    const all = await list('size=500')
    expect(all.count).toBe((all.items as Json[]).length)
    const created = (all.items as Json[]).map((i) => i.createdAt as number)
    expect(created).toEqual([...created].sort((a, b) => b - a))
    const page = await list('offset=1&size=2')
    expect(page).toMatchObject({ count: all.count, size: 2, offset: 1 })
    expect(uidsOf(page)).toEqual(uidsOf(all).slice(1, 3))
    expect(uidsOf(await list(`target=${deleted[0] as string}&offset=1&size=1`))).toEqual([label])
  })

  it('is not visible to another company', async () => {
    const res = await stack.call(other.token, { method: 'GET', url: `/api/v1/operations/${op.uid as string}` })
    expectError(res, 'operation.unknown')
    expect(uidsOf(await list(`uid=${op.uid as string}`, other.token))).toEqual([])
  })
})

describe('bulk delete: refused requests create no operation (set S)', () => {
  let uid: string
  let parent: string
  beforeAll(async () => {
    uid = (await createSystem(stack, { name: uniq('r'), labels: [uniq('r')] })).uid
    parent = await started(postLabel(stack, { labels: { add: ['p'] }, criteria: { uids: [uid] } }))
    await waitFinished(stack, parent)
  })

  it('selection.invalid: none of label, uids, dependsOn, criteria', async () => {
    await refused({}, 'selection.invalid')
    await refused({ systems: null }, 'selection.invalid')
    await refused({ systems: {} }, 'selection.invalid')
    await refused({ systems: { label: null, uids: null, criteria: null, dependsOn: null } }, 'selection.invalid')
  })

  it('selection.invalid: two of them', async () => {
    await refused({ systems: { label: 'x', uids: [uid] } }, 'selection.invalid')
    await refused({ systems: { uids: [uid], criteria: {} } }, 'selection.invalid')
    await refused({ systems: { criteria: { uids: [uid] }, dependsOn: { operation: parent } } }, 'selection.invalid')
    await refused({ systems: { label: 'x', dependsOn: { operation: parent } } }, 'selection.invalid')
  })

  it('selection.max.uid.reached: 101 distinct uids (101 uids of which 100 distinct are allowed)', async () => {
    const uids = Array.from({ length: 101 }, (_, i) => `u${i}`)
    await refused({ systems: { uids } }, 'selection.max.uid.reached')
    await refused({ systems: { criteria: { uids } } }, 'selection.max.uid.reached')
    // 100 distinct: the count passes, then the unknown ones are named.
    expect((await refused({ systems: { uids: [...uids.slice(0, 100), 'u0'] } }, 'system.unknown')).errorParameters).toEqual(['u0'])
  })

  it('system.unknown: an unknown uid, or another company\'s system', async () => {
    expect((await refused({ systems: { uids: [uid, 'nope'] } }, 'system.unknown')).errorParameters).toEqual(['nope'])
    await refused({ systems: { uids: [otherSystem.uid] } }, 'system.unknown')
    expect(await exists('systems', uid)).toBe(true)
  })

  // docs/api.md set S: selection.empty means "nothing matches the label" (the JavaScript client relies on it).
  it('selection.empty: a label no system of the company carries (another company\'s do not count)', async () => {
    expect((await refused({ systems: { label: 'never-used' } }, 'selection.empty')).errorParameters).toEqual(['label', 'never-used'])
    await refused({ systems: { label: 'theirs-only' } }, 'selection.empty')
    expect(await exists('systems', otherSystem.uid)).toBe(true)
  })

  it('selection.empty: no uids, or criteria matching nothing', async () => {
    await refused({ systems: { uids: [] } }, 'selection.empty')
    await refused({ systems: { criteria: { name: uniq('nothing') } } }, 'selection.empty')
    await refused({ systems: { dependsOn: { operation: parent, states: ['FAILURE'] } } }, 'selection.empty')
  })

  it('operation.unknown: dependsOn an unknown operation, or another company\'s', async () => {
    await refused({ systems: { dependsOn: { operation: 'nope' } } }, 'operation.unknown')
    const theirs = await started(postLabel(stack, { labels: { add: ['theirs'] } }, other.token))
    await refused({ systems: { dependsOn: { operation: theirs } } }, 'operation.unknown')
  })

  it('needs entities.systems.delete (403 missing.rights)', async () => {
    const editor = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
    const before = await countOperations(stack)
    const res = await postDelete(stack, { systems: { uids: [uid] } }, editor.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.delete'] })
    expect(await countOperations(stack)).toBe(before)
    expect(await exists('systems', uid)).toBe(true)
  })
})
