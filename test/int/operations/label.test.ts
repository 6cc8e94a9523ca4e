// POST /api/v1/operations/systems/label (docs/operations.md#bulk-operations,
// docs/api.md#using-the-api rows "label" and sets S and T, docs/api.md#limits) and the operation it leaves
// (docs/operations.md#bulk-operations). Every test scopes its systems with a tag of its own, so a criterion that were
// ignored would select more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, expectError, OTHER_COMPANY, putSystem, validImei, type Json } from '../../helpers/systems.js'
import { allTasks, countOperations, getOperation, labelsOf, listTasks, postLabel, started, waitFinished } from '../../helpers/operations.js'

let stack: Stack
let other: TestUser
let otherUid: string
let otherSystem: Json
let n = 0

const DAY = 86_400_000
const next = (): number => ++n
const mac = (i: number): string => `02:00:00:00:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`

beforeAll(async () => {
  stack = await startStack()
  other = await createUser(stack, { company: OTHER_COMPANY, rights: ['entities.systems.create', 'entities.systems.view', 'entities.systems.edit'] })
  otherUid = await companyUid(stack, OTHER_COMPANY)
  otherSystem = await createSystem(stack, { name: uniq('other'), labels: ['shared'] }, { token: other.token })
})
afterAll(async () => { await stack?.close() })

/** Starts a label operation and waits for it to finish; answers the operation JSON. */
async function label (body: Json, token = stack.adminToken): Promise<Json> {
  return await waitFinished(stack, await started(postLabel(stack, body, token)))
}

/** The systems the operation made tasks for, sorted. */
async function selected (operationUid: string): Promise<string[]> {
  return (await allTasks(stack, operationUid)).map((t) => t.system.uid).sort()
}

const set = (...uids: string[]): string[] => [...uids].sort()

/** The request is refused with `code` (400) and creates no operation. */
async function refused (body: Json, code: string, token = stack.adminToken): Promise<Json> {
  const before = await countOperations(stack)
  const res = expectError(await postLabel(stack, body, token), code)
  expect(await countOperations(stack)).toBe(before)
  return res
}

/** Three systems of a fresh tag, with the identifiers the criteria and identifier lists read. */
async function fleet (): Promise<{ tag: string, a: Json, b: Json, c: Json, ids: Record<string, string> }> {
  const tag = uniq('t')
  const i = next()
  const ids = {
    snA: uniq('SNA'),
    snB: uniq('SNB'),
    imeiA: validImei(5000 + i * 2),
    imeiB: validImei(5001 + i * 2),
    macB: mac(i),
    iccidA: uniq('8933'),
    iccidB: uniq('8934'),
    imsiA: uniq('20801'),
    ipA: `10.1.${i}.1`
  }
  const a = await createSystem(stack, {
    name: `${tag}-alpha`,
    type: 'router',
    labels: [tag],
    metadata: { site: 'Paris' },
    gateway: { serialNumber: ids.snA, imei: ids.imeiA },
    subscription: { identifier: ids.iccidA, operator: 'ORANGE', networkIdentifier: ids.imsiA, ipAddress: ids.ipA }
  })
  const b = await createSystem(stack, {
    name: `${tag}-beta`,
    type: 'meter',
    labels: [tag],
    metadata: { site: 'Lyon' },
    gateway: { serialNumber: ids.snB, imei: ids.imeiB, macAddress: ids.macB },
    subscription: { identifier: ids.iccidB, operator: 'ORANGE' }
  })
  const c = await createSystem(stack, { name: `${tag}-gamma`, labels: [tag, `${tag}-extra`] })
  const moved = await putSystem(stack, a.uid, { lifeCycleState: 'ACTIVE' })
  if (moved.statusCode !== 200) throw new Error(`activate: ${moved.body}`)
  return { tag, a, b, c, ids }
}

describe('label: what it does', () => {
  it('adds then removes: labels to add are added, labels to remove removed, a label in both ends absent', async () => {
    const tag = uniq('t')
    const s = await createSystem(stack, { name: `${tag}-1`, labels: [tag, 'old', 'keep'] })
    await label({ labels: { add: ['new', 'both', 'new'], remove: ['old', 'both', 'never-there'] }, criteria: { uids: [s.uid] } })
    expect((await labelsOf(stack, s.uid)).sort()).toEqual(['keep', 'new', tag].sort())
    await label({ labels: { remove: ['keep'] }, criteria: { uids: [s.uid] } })
    expect((await labelsOf(stack, s.uid)).sort()).toEqual(['new', tag].sort())
  })

  it('labels every system of the company, and only those, when no selection is given', async () => {
    const l = uniq('all')
    const op = await label({ labels: { add: [l] } })
    const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM systems WHERE company_uid = $1', [stack.companyUid])
    expect(op.total).toBe(rows.length)
    expect(await selected(op.uid)).toEqual(set(...rows.map((r) => r.uid)))
    for (const r of rows) expect(await labelsOf(stack, r.uid)).toContain(l)
    expect(await labelsOf(stack, otherSystem.uid)).not.toContain(l)
  })

  it('answers the operation JSON and the task JSON (conventions.md §Operations)', async () => {
    const tag = uniq('t')
    const s1 = await createSystem(stack, { name: `${tag}-1`, labels: [tag] })
    const s2 = await createSystem(stack, { name: `${tag}-2`, labels: [tag] })
    const before = Date.now()
    const uid = await started(postLabel(stack, { labels: { add: ['x'], remove: ['y'] }, criteria: { labels: [tag] }, notify: false }))
    const op = await waitFinished(stack, uid)
    expect(op).toEqual({
      uid,
      entity: 'SYSTEM',
      operationType: 'SYSTEM_LABEL',
      state: 'FINISHED',
      createdAt: op.createdAt,
      startDate: op.startDate,
      scheduledTime: null,
      timeoutDate: op.createdAt + 7 * DAY,
      endDate: op.endDate,
      cancelDate: null,
      total: 2,
      target: null,
      counters: [
        { state: 'PENDING', count: 0 }, { state: 'IN_PROGRESS', count: 0 }, { state: 'SUCCESS', count: 2 },
        { state: 'FAILURE', count: 0 }, { state: 'BEING_CANCELLED', count: 0 }, { state: 'CANCELLED', count: 0 }
      ],
      user: { uid: stack.adminUid, email: ADMIN_EMAIL },
      notify: false,
      callback: null,
      callbackDelivery: null,
      abortedBy: null,
      // Safe rollouts (docs/operations.md#safe-rollouts): none on a label operation.
      abortReason: null,
      rollout: null,
      parameters: { add: ['x'], remove: ['y'] },
      dependsOn: null
    })
    expect(op.createdAt).toBeGreaterThanOrEqual(before)
    expect(op.startDate).toBeGreaterThanOrEqual(op.createdAt)
    expect(op.endDate).toBeGreaterThanOrEqual(op.startDate as number)
    const tasks = await listTasks(stack, uid)
    expect(tasks).toMatchObject({ count: 2, size: 2, offset: 0 })
    const [t1, t2] = tasks.items
    expect(t1).toEqual({
      uid: t1?.uid,
      operation: uid,
      system: { uid: s1.uid, name: `${tag}-1` },
      state: 'SUCCESS',
      createdAt: op.createdAt,
      startDate: t1?.startDate,
      endDate: t1?.endDate,
      error: null
    })
    expect(typeof t1?.uid).toBe('string')
    expect(t1?.endDate).toBeGreaterThanOrEqual(t1?.startDate ?? Infinity)
    expect(t2?.system).toEqual({ uid: s2.uid, name: `${tag}-2` })
    expect((await listTasks(stack, uid, { size: 1, offset: 1 })).items.map((t) => t.system.uid)).toEqual([s2.uid])
    // One system: the operation's target is that system.
    expect((await label({ labels: { add: ['x'] }, criteria: { uids: [s1.uid] } })).target).toBe(s1.uid)
  })
})

describe('label: criteria select', () => {
  let f: Awaited<ReturnType<typeof fleet>>
  beforeAll(async () => { f = await fleet() })

  const cases: Array<[string, () => Json, () => string[]]> = [
    ['labels (any of them)', () => ({ labels: [`${f.tag}-extra`, uniq('none')] }), () => [f.c.uid]],
    ['uids', () => ({ uids: [f.a.uid, f.c.uid, f.a.uid] }), () => [f.a.uid, f.c.uid]],
    ['name (contains)', () => ({ labels: [f.tag], name: 'ALPH' }), () => [f.a.uid]],
    ['type (contains)', () => ({ labels: [f.tag], type: 'met' }), () => [f.b.uid]],
    ['lifeCycleStates', () => ({ labels: [f.tag], lifeCycleStates: ['ACTIVE', 'RETIRED'] }), () => [f.a.uid]],
    ['commStatus', () => ({ labels: [f.tag], commStatus: 'UNDEFINED' }), () => [f.a.uid, f.b.uid, f.c.uid]],
    ['metadata', () => ({ labels: [f.tag], metadata: { site: 'lyo' } }), () => [f.b.uid]],
    ['gateway.serialNumber', () => ({ gateway: { serialNumber: f.ids.snB } }), () => [f.b.uid]],
    ['gateway.imei', () => ({ gateway: { imei: f.ids.imeiA } }), () => [f.a.uid]],
    ['subscription.identifier', () => ({ subscription: { identifier: f.ids.iccidA } }), () => [f.a.uid]],
    ['subscription.operator', () => ({ labels: [f.tag], subscription: { operator: 'ORANGE' } }), () => [f.a.uid, f.b.uid]],
    ['creationBefore', () => ({ labels: [f.tag], creationBefore: f.a.creationDate - 1 }), () => []]
  ]

  for (const [what, criteria, expected] of cases) {
    it(`by ${what}`, async () => {
      const want = expected()
      if (want.length === 0) {
        await refused({ labels: { add: ['c'] }, criteria: criteria() }, 'selection.empty')
        return
      }
      const op = await label({ labels: { add: [`by-${what}`] }, criteria: criteria() })
      expect(await selected(op.uid)).toEqual(set(...want))
      for (const uid of want) expect(await labelsOf(stack, uid)).toContain(`by-${what}`)
    })
  }
})

describe('label: identifier lists select', () => {
  let f: Awaited<ReturnType<typeof fleet>>
  beforeAll(async () => { f = await fleet() })

  const cases: Array<[string, () => Json, () => string[]]> = [
    ['name (exact)', () => ({ name: [`${f.tag}-alpha`, `${f.tag}-beta`, `${f.tag}-alph`] }), () => [f.a.uid, f.b.uid]],
    ['gatewaySerialNumber', () => ({ gatewaySerialNumber: [f.ids.snB] }), () => [f.b.uid]],
    ['gatewayImei', () => ({ gatewayImei: [f.ids.imeiA, f.ids.imeiB] }), () => [f.a.uid, f.b.uid]],
    ['gatewayMacAddress', () => ({ gatewayMacAddress: [f.ids.macB] }), () => [f.b.uid]],
    ['subscriptionIdentifier', () => ({ subscriptionIdentifier: [f.ids.iccidA] }), () => [f.a.uid]],
    ['subscriptionNetworkIdentifier', () => ({ subscriptionNetworkIdentifier: [f.ids.imsiA] }), () => [f.a.uid]],
    ['subscriptionIpAddress', () => ({ subscriptionIpAddress: [f.ids.ipA] }), () => [f.a.uid]],
    ['several kinds (any of them)', () => ({ name: [`${f.tag}-gamma`], gatewaySerialNumber: [f.ids.snB] }), () => [f.b.uid, f.c.uid]]
  ]

  for (const [what, identifiers, expected] of cases) {
    it(`by ${what}`, async () => {
      const op = await label({ labels: { add: [`id-${what}`] }, identifiers: identifiers() })
      expect(await selected(op.uid)).toEqual(set(...expected()))
    })
  }

  it('never selects another company\'s systems', async () => {
    await refused({ labels: { add: ['x'] }, identifiers: { name: [otherSystem.name] } }, 'selection.empty')
  })
})

describe('label: dependsOn', () => {
  it('labels the systems of the parent operation\'s tasks in the given states', async () => {
    const tag = uniq('t')
    const s1 = await createSystem(stack, { name: `${tag}-1` })
    const s2 = await createSystem(stack, { name: `${tag}-2` })
    await createSystem(stack, { name: `${tag}-3` })
    const parent = await label({ labels: { add: [tag] }, criteria: { uids: [s1.uid, s2.uid] } })
    const child = await label({ labels: { add: [`${tag}-child`] }, dependsOn: { operation: parent.uid, states: ['SUCCESS'] } })
    expect(child.dependsOn).toEqual({ operation: parent.uid, states: ['SUCCESS'] })
    expect(await selected(child.uid)).toEqual(set(s1.uid, s2.uid))
    expect(await labelsOf(stack, s2.uid)).toContain(`${tag}-child`)
    // No parent task in FAILURE: nothing to label.
    await refused({ labels: { add: ['x'] }, dependsOn: { operation: parent.uid, states: ['FAILURE'] } }, 'selection.empty')
  })

  it('operation.unknown: an unknown operation, none given, or another company\'s', async () => {
    expect((await refused({ labels: { add: ['x'] }, dependsOn: { operation: 'nope' } }, 'operation.unknown')).errorParameters).toEqual(['nope'])
    await refused({ labels: { add: ['x'] }, dependsOn: {} }, 'operation.unknown')
    const theirs = await started(postLabel(stack, { labels: { add: ['theirs'] } }, other.token))
    await refused({ labels: { add: ['x'] }, dependsOn: { operation: theirs } }, 'operation.unknown')
  })
})

describe('label: refused requests create no operation', () => {
  let uid: string
  beforeAll(async () => { uid = (await createSystem(stack, { name: uniq('r') })).uid })

  it('label.missing: no labels, no lists, empty lists', async () => {
    await refused({ criteria: { uids: [uid] } }, 'label.missing')
    await refused({ labels: {}, criteria: { uids: [uid] } }, 'label.missing')
    await refused({ labels: { add: [], remove: [] }, criteria: { uids: [uid] } }, 'label.missing')
    await refused({ labels: { add: null, remove: [''] } }, 'label.missing')
  })

  it('label.amount.exceeded: 101 labels to add or to remove (100 is allowed)', async () => {
    const labels = (k: number): string[] => Array.from({ length: k }, (_, i) => `l${i}`)
    await refused({ labels: { add: labels(101) }, criteria: { uids: [uid] } }, 'label.amount.exceeded')
    await refused({ labels: { remove: labels(101) }, criteria: { uids: [uid] } }, 'label.amount.exceeded')
    await label({ labels: { add: labels(100), remove: labels(100) }, criteria: { uids: [uid] } })
  })

  it('selection.empty: criteria or identifiers matching nothing, or no identifier list', async () => {
    await refused({ labels: { add: ['x'] }, criteria: { name: uniq('nothing') } }, 'selection.empty')
    await refused({ labels: { add: ['x'] }, criteria: { uids: ['nope'] } }, 'selection.empty')
    await refused({ labels: { add: ['x'] }, identifiers: { name: [uniq('nothing')], gatewayImei: ['1'] } }, 'selection.empty')
    await refused({ labels: { add: ['x'] }, identifiers: {} }, 'selection.empty')
    await refused({ labels: { add: ['x'] }, identifiers: { name: [] } }, 'selection.empty')
  })

  it('selection.invalid: two of criteria, dependsOn and identifiers', async () => {
    const parent = await label({ labels: { add: ['p'] }, criteria: { uids: [uid] } })
    await refused({ labels: { add: ['x'] }, criteria: { uids: [uid] }, identifiers: { name: ['x'] } }, 'selection.invalid')
    await refused({ labels: { add: ['x'] }, criteria: { uids: [uid] }, dependsOn: { operation: parent.uid } }, 'selection.invalid')
    await refused({ labels: { add: ['x'] }, identifiers: { name: ['x'] }, dependsOn: { operation: parent.uid } }, 'selection.invalid')
  })

  it('selection.too.many.identifiers: 5001 entries in one list (5000 is allowed)', async () => {
    const names = (k: number): string[] => Array.from({ length: k }, (_, i) => `none-${i}`)
    await refused({ labels: { add: ['x'] }, identifiers: { gatewaySerialNumber: names(5001) } }, 'selection.too.many.identifiers')
    // 5000 are read: they match nothing.
    await refused({ labels: { add: ['x'] }, identifiers: { name: names(5000), gatewayImei: names(5000) } }, 'selection.empty')
  })

  it('selection.max.uid.reached: criteria.uids of 101 distinct uids (100 is allowed)', async () => {
    const uids = Array.from({ length: 101 }, (_, i) => `u${i}`)
    await refused({ labels: { add: ['x'] }, criteria: { uids } }, 'selection.max.uid.reached')
    await label({ labels: { add: ['x'] }, criteria: { uids: [...uids.slice(0, 99), uid] } })
  })

  it('operation.invalid.schedule.date: scheduledTime 91 days ahead; 89 days ahead is scheduled', async () => {
    await refused({ labels: { add: ['x'] }, criteria: { uids: [uid] }, scheduledTime: Date.now() + 91 * DAY }, 'operation.invalid.schedule.date')
    const at = Date.now() + 89 * DAY
    const op = await getOperation(stack, await started(postLabel(stack, { labels: { add: ['later'] }, criteria: { uids: [uid] }, scheduledTime: at })))
    expect(op).toMatchObject({ state: 'SCHEDULED', scheduledTime: at, startDate: null, timeoutDate: at + 7 * DAY })
    expect(await labelsOf(stack, uid)).not.toContain('later')
    const cancelled = (await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${op.uid}/cancel` })).json()
    expect(cancelled.state).toBe('FINISHED')
  })

  it('needs entities.systems.edit (403 missing.rights)', async () => {
    const viewer = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.delete'] })
    const before = await countOperations(stack)
    const res = await postLabel(stack, { labels: { add: ['x'] } }, viewer.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.edit'] })
    expect(await countOperations(stack)).toBe(before)
  })

  it('partner.unknown: a company parameter the caller has no access to', async () => {
    const before = await countOperations(stack)
    const l = uniq('partner')
    const res = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/systems/label?company=${otherUid}`, payload: { labels: { add: [l] } } })
    expect(expectError(res, 'partner.unknown').errorParameters).toEqual([otherUid])
    expect(await countOperations(stack)).toBe(before)
    expect(await labelsOf(stack, otherSystem.uid)).not.toContain(l)
  })
})
