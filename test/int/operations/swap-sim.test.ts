// POST /api/v1/operations/systems/swapsim (docs/operations.md#bulk-operations, docs/api.md#systems row "swap SIM",
// docs/api.md#using-the-api row "swap SIM"; docs/operations.md#bulk-operations). Preconditions are refused at once with
// 400 and checked again by the task.
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, COMPANY_NAME, type Stack } from '../../helpers/stack.js'
import { createUser, seed, uniq } from '../../helpers/factories.js'
import { createSystem, expectError, getSystem, putSystem, seedCatalogue, validImei, type Body, type Catalogue, type Json } from '../../helpers/systems.js'
import { countOperations, holdWorker, started, tasks, waitFinished } from '../../helpers/operations.js'

let stack: Stack
let cat: Catalogue
let accounts: { swap: string, noSwap: string, second: string }
let n = 7000
let ip = 0

const imei = (): string => validImei(++n)

beforeAll(async () => {
  stack = await startStack({ env: { WORKER_CONCURRENCY: '1', CALLBACK_ALLOW_PRIVATE: 'true' } })
  cat = await seedCatalogue(stack)
  await seed(stack, {
    operatorAccounts: [
      { company: COMPANY_NAME, name: 'Orange no swap', operator: 'ORANGE', swapSupported: false },
      { company: COMPANY_NAME, name: 'Orange second', operator: 'ORANGE' }
    ]
  })
  const { rows } = await stack.db.query<{ uid: string, name: string }>('SELECT uid, name FROM operator_accounts')
  const byName = (name: string): string => rows.find((r) => r.name === name)?.uid ?? ''
  accounts = { swap: cat.accounts['Orange account'] ?? '', noSwap: byName('Orange no swap'), second: byName('Orange second') }
})
afterAll(async () => { await stack.close() })

async function swap (body: Body, token = stack.adminToken): Promise<LightMyRequestResponse> {
  return await stack.call(token, { method: 'POST', url: '/api/v1/operations/systems/swapsim', payload: body })
}

const subscription = (account: string | null = accounts.swap): Body =>
  ({ identifier: uniq('8933'), operator: 'ORANGE', ...(account === null ? {} : { operatorAccount: { uid: account } }), networkIdentifier: uniq('2080'), ipAddress: `10.1.${Math.floor(++ip / 250)}.${ip % 250}` })

/** A system in service: ACTIVE (or `state`), with a gateway and a subscription on the account. */
async function sourceSystem (opts: { state?: string, account?: string | null, subscription?: boolean } = {}): Promise<Json> {
  const s = await createSystem(stack, {
    name: uniq('src'),
    gateway: { imei: imei(), serialNumber: uniq('SN') },
    ...(opts.subscription === false ? {} : { subscription: subscription(opts.account) })
  })
  // Along the life-cycle moves: SUSPENDED is reached through ACTIVE.
  const path = { INVENTORY: [], ACTIVE: ['ACTIVE'], TEST_READY: ['TEST_READY'], SUSPENDED: ['ACTIVE', 'SUSPENDED'], RETIRED: ['RETIRED'] }[opts.state ?? 'ACTIVE'] ?? []
  for (const state of path) expect((await putSystem(stack, s.uid, { lifeCycleState: state })).statusCode).toBe(200)
  return await getSystem(stack, s.uid)
}

/** A spare system: INVENTORY, no gateway, a subscription on the account. */
async function targetSystem (opts: { account?: string | null, gateway?: boolean, subscription?: boolean, name?: string } = {}): Promise<Json> {
  return await createSystem(stack, {
    name: opts.name ?? uniq('spare'),
    ...(opts.gateway === true ? { gateway: { imei: imei() } } : {}),
    ...(opts.subscription === false ? {} : { subscription: subscription(opts.account) })
  })
}

/** Refused with `code`, creating no operation and changing neither system. */
async function refused (res: () => Promise<LightMyRequestResponse>, code: string, systems: Json[] = [], status = 400): Promise<void> {
  const ops = await countOperations(stack)
  const before = await Promise.all(systems.map(async (s) => await getSystem(stack, s.uid)))
  expectError(await res(), code, status)
  expect(await countOperations(stack)).toBe(ops)
  expect(await Promise.all(systems.map(async (s) => await getSystem(stack, s.uid)))).toEqual(before)
}

/** Starts a swap, waits for it to finish and answers its tasks. */
async function run (body: Body): Promise<Array<{ system: string, state: string, code: string | null }>> {
  const uid = await started(swap(body))
  const op = await waitFinished(stack, uid)
  expect(op.operationType).toBe('SYSTEM_SWAP_SIM')
  return (await tasks(stack, uid)).map((t) => ({ system: t.system.uid, state: t.state, code: t.error?.code ?? null }))
}

/** Systems holding the subscription, straight from the store: one at most. */
async function holders (subscriptionUid: string): Promise<string[]> {
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM systems WHERE subscription_uid = $1', [subscriptionUid])
  return rows.map((r) => r.uid)
}

describe('swap SIM: success', () => {
  it('exchanges the subscriptions of the source and the target; both stay consistent', async () => {
    const source = await sourceSystem()
    const target = await targetSystem()
    expect(await run({ systems: { [source.uid]: target.uid } })).toEqual([{ system: source.uid, state: 'SUCCESS', code: null }])
    const s = await getSystem(stack, source.uid)
    const t = await getSystem(stack, target.uid)
    expect(s.subscription).toEqual(target.subscription)
    expect(t.subscription).toEqual(source.subscription)
    expect(s.subscriptions).toEqual([target.subscription])
    // Everything else as it was: the gateway stays with the source, the life-cycle states are unchanged.
    expect(s.gateway).toEqual(source.gateway)
    expect(t.gateway).toBeNull()
    expect([s.lifeCycleState, t.lifeCycleState]).toEqual(['ACTIVE', 'INVENTORY'])
    expect(await holders(source.subscription.uid)).toEqual([target.uid])
    expect(await holders(target.subscription.uid)).toEqual([source.uid])
  })

  it('names the systems by the identifierType and swaps several pairs, one task each', async () => {
    const pairs = [[await sourceSystem({ state: 'SUSPENDED' }), await targetSystem()], [await sourceSystem({ state: 'TEST_READY' }), await targetSystem()]] as const
    const systems = Object.fromEntries(pairs.map(([s, t]) => [s.subscription.identifier, t.subscription.identifier]))
    const results = await run({ identifierType: 'subscriptionIdentifier', systems, notify: false })
    expect(results).toEqual(pairs.map(([s]) => ({ system: s.uid, state: 'SUCCESS', code: null })))
    for (const [s, t] of pairs) {
      expect((await getSystem(stack, s.uid)).subscription.uid).toBe(t.subscription.uid)
      expect((await getSystem(stack, t.uid)).subscription.uid).toBe(s.subscription.uid)
    }
  })

  it('accepts every identifier type a source and a target both carry', async () => {
    for (const type of ['name', 'subscriptionNetworkIdentifier', 'subscriptionIpAddress'] as const) {
      const source = await sourceSystem()
      const target = await targetSystem()
      const id = (s: Json): string => type === 'name' ? s.name : type === 'subscriptionNetworkIdentifier' ? s.subscription.networkIdentifier : s.subscription.ipAddress
      expect(await run({ identifierType: type, systems: { [id(source)]: id(target) } })).toEqual([{ system: source.uid, state: 'SUCCESS', code: null }])
      expect((await getSystem(stack, source.uid)).subscription.uid).toBe(target.subscription.uid)
    }
    // Gateway identifiers name the source (a target has no gateway); the target is then not found.
    const source = await sourceSystem()
    await refused(async () => await swap({ identifierType: 'gatewayImei', systems: { [source.gateway.imei]: 'no-gateway' } }), 'system.unknown', [source])
  })
})

describe('swap SIM: refused requests', () => {
  it('needs the swapsim right: 403 missing.rights', async () => {
    const user = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
    const source = await sourceSystem()
    const target = await targetSystem()
    await refused(async () => await swap({ systems: { [source.uid]: target.uid } }, user.token), 'missing.rights', [source, target], 403)
  })

  it('needs pairs: selection.empty; at most 100: selection.max.uid.reached', async () => {
    await refused(async () => await swap({}), 'selection.empty')
    await refused(async () => await swap({ systems: null }), 'selection.empty')
    await refused(async () => await swap({ systems: {} }), 'selection.empty')
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`source-${i}`, `target-${i}`]))
    await refused(async () => await swap({ systems: many }), 'selection.max.uid.reached')
  })

  it('needs each identifier to name exactly one system of the company: system.unknown', async () => {
    const source = await sourceSystem()
    const target = await targetSystem()
    await refused(async () => await swap({ systems: { [source.uid]: 'no-such-system' } }), 'system.unknown', [source])
    await refused(async () => await swap({ systems: { 'no-such-system': target.uid } }), 'system.unknown', [target])
    // A name two systems share names neither.
    const shared = uniq('twin')
    const twins = [await targetSystem({ name: shared }), await targetSystem({ name: shared })]
    await refused(async () => await swap({ identifierType: 'name', systems: { [source.name]: shared } }), 'system.unknown', [source, ...twins])
    await refused(async () => await swap({ identifierType: 'imei', systems: { [source.uid]: target.uid } }), 'unknown.enum.value', [source, target])
  })

  it('moves one SIM per system: a system in two pairs is selection.invalid', async () => {
    const [a, b] = [await sourceSystem(), await sourceSystem()]
    const target = await targetSystem()
    await refused(async () => await swap({ systems: { [a.uid]: target.uid, [b.uid]: target.uid } }), 'selection.invalid', [a, b, target])
    await refused(async () => await swap({ systems: { [a.uid]: a.uid } }), 'selection.invalid', [a])
  })

  it('needs an ACTIVE, SUSPENDED or TEST_READY source and an INVENTORY target: operation.system.swapsim.system.invalid.state', async () => {
    const code = 'operation.system.swapsim.system.invalid.state'
    const inventory = await sourceSystem({ state: 'INVENTORY' })
    const retired = await sourceSystem({ state: 'RETIRED' })
    const active = await sourceSystem()
    const target = await targetSystem()
    await refused(async () => await swap({ systems: { [inventory.uid]: target.uid } }), code, [inventory, target])
    await refused(async () => await swap({ systems: { [retired.uid]: target.uid } }), code, [retired, target])
    // An ACTIVE target (without gateway) is no spare.
    const busy = await targetSystem()
    expect((await putSystem(stack, busy.uid, { lifeCycleState: 'ACTIVE' })).statusCode).toBe(200)
    await refused(async () => await swap({ systems: { [active.uid]: busy.uid } }), code, [active, busy])
  })

  it('needs both subscriptions: operation.system.swapsim.system.unknown.subscription', async () => {
    const code = 'operation.system.swapsim.system.unknown.subscription'
    const source = await sourceSystem()
    const target = await targetSystem()
    const bareSource = await sourceSystem({ subscription: false })
    const bareTarget = await targetSystem({ subscription: false })
    await refused(async () => await swap({ systems: { [source.uid]: bareTarget.uid } }), code, [source, bareTarget])
    await refused(async () => await swap({ systems: { [bareSource.uid]: target.uid } }), code, [bareSource, target])
  })

  it('needs the same operator account: operation.system.swapsim.system.different.operator.accounts', async () => {
    const code = 'operation.system.swapsim.system.different.operator.accounts'
    const source = await sourceSystem()
    const other = await targetSystem({ account: accounts.second })
    const none = await targetSystem({ account: null })
    await refused(async () => await swap({ systems: { [source.uid]: other.uid } }), code, [source, other])
    await refused(async () => await swap({ systems: { [source.uid]: none.uid } }), code, [source, none])
  })

  it('needs a target without gateway: operation.system.swapsim.system.linked.gateway', async () => {
    const source = await sourceSystem()
    const target = await targetSystem({ gateway: true })
    await refused(async () => await swap({ systems: { [source.uid]: target.uid } }), 'operation.system.swapsim.system.linked.gateway', [source, target])
  })

  it('needs an operator account that supports swapping: operation.system.swapsim.unsupported.operation', async () => {
    const code = 'operation.system.swapsim.unsupported.operation'
    const source = await sourceSystem({ account: accounts.noSwap })
    const target = await targetSystem({ account: accounts.noSwap })
    await refused(async () => await swap({ systems: { [source.uid]: target.uid } }), code, [source, target])
    // Neither subscription has an operator account: none supports the swap.
    const s2 = await sourceSystem({ account: null })
    const t2 = await targetSystem({ account: null })
    await refused(async () => await swap({ systems: { [s2.uid]: t2.uid } }), code, [s2, t2])
  })
})

describe('swap SIM: checked again when the task runs', () => {
  it('fails the task with the code of a precondition lost since the request; nothing is swapped', async () => {
    const linked = { source: await sourceSystem(), target: await targetSystem() }
    const moved = { source: await sourceSystem(), target: await targetSystem() }
    const hold = await holdWorker(stack, (await sourceSystem()).uid)
    let op = ''
    try {
      op = await started(swap({ systems: { [linked.source.uid]: linked.target.uid, [moved.source.uid]: moved.target.uid } }))
      // While it is pending: one target gets a gateway, the other leaves the inventory.
      expect((await putSystem(stack, linked.target.uid, { gateway: { imei: imei() } })).statusCode).toBe(200)
      expect((await putSystem(stack, moved.target.uid, { lifeCycleState: 'TEST_READY' })).statusCode).toBe(200)
      hold.release()
      await waitFinished(stack, op)
    } finally {
      await hold.close()
    }
    expect((await tasks(stack, op)).map((t) => [t.system.uid, t.state, t.error?.code])).toEqual([
      [linked.source.uid, 'FAILURE', 'operation.system.swapsim.system.linked.gateway'],
      [moved.source.uid, 'FAILURE', 'operation.system.swapsim.system.invalid.state']
    ])
    for (const pair of [linked, moved]) {
      expect((await getSystem(stack, pair.source.uid)).subscription.uid).toBe(pair.source.subscription.uid)
      expect((await getSystem(stack, pair.target.uid)).subscription.uid).toBe(pair.target.subscription.uid)
    }
  })
})
