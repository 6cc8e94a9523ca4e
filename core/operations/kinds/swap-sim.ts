// Swap SIM (docs/operations.md#bulk-operations, docs/api.md#systems row "swap SIM", docs/api.md#using-the-api row "swap
// SIM").
//
// Where each code is raised: every precondition holds or not at request time, so all of them are checked at once
// and refuse the request with 400 (no operation is created, docs/operations.md#bulk-operations). The task checks them
// again when it runs, under the company lock, because the systems may have changed in between: then the task
// fails with the same code. That covers operation.system.swapsim.system.invalid.state, .unknown.subscription,
// .different.operator.accounts, .linked.gateway and .unsupported.operation, as well as system.unknown.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { NewTask } from '../../domain/operation.js'
import type { LifeCycleState, System } from '../../domain/system.js'
import type { OperationHandler } from '../handler.js'
import { MAX_SELECTED_SYSTEMS, MAX_SELECTION_UIDS } from '../selection.js'
import { checkCompatibility } from '../../services/systems/compose.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { Type } from 'typebox'
import { Nullable, Flag } from '../body.schema.js'
import { operationKind } from '../kind.js'

/** docs/operations.md#bulk-operations: how the systems of the map are named. */
export const SWAP_IDENTIFIER_TYPES = ['uid', 'name', 'gatewaySerialNumber', 'gatewayImei', 'gatewayMacAddress',
  'subscriptionIdentifier', 'subscriptionNetworkIdentifier', 'subscriptionIpAddress'] as const
export type SwapIdentifierType = typeof SWAP_IDENTIFIER_TYPES[number]

const SOURCE_STATES: readonly LifeCycleState[] = ['ACTIVE', 'SUSPENDED', 'TEST_READY']

/** The value of a system that the identifier type names. */
const IDENTIFIER_OF: Record<SwapIdentifierType, (s: System) => string | null | undefined> = {
  uid: (s) => s.uid,
  name: (s) => s.name,
  gatewaySerialNumber: (s) => s.gateway?.serialNumber,
  gatewayImei: (s) => s.gateway?.imei,
  gatewayMacAddress: (s) => s.gateway?.macAddress,
  subscriptionIdentifier: (s) => s.subscription?.identifier,
  subscriptionNetworkIdentifier: (s) => s.subscription?.networkIdentifier,
  subscriptionIpAddress: (s) => s.subscription?.ipAddress
}

export interface SwapSimBody {
  notify?: boolean | null
  callback?: string | null
  identifierType?: string | null
  systems?: Record<string, string> | null
}

/**
 * The company's systems named by the identifiers. An identifier that names no system, or several (a shared name),
 * identifies none: a SIM is never moved on a guess. @throws system.unknown
 */
async function resolveSystems (repos: Pick<Repositories, 'systems'>, companyUid: string, type: SwapIdentifierType, identifiers: string[]): Promise<Map<string, System>> {
  const distinct = [...new Set(identifiers)]
  const criteria = type === 'uid' ? { uids: distinct } : { identifiers: { [type]: distinct } }
  const found = await repos.systems.find(companyUid, criteria, [{ field: 'creationDate', dir: 'asc' }], { offset: 0, size: MAX_SELECTED_SYSTEMS })
  const out = new Map<string, System>()
  for (const id of distinct) {
    const matches = found.items.filter((s) => IDENTIFIER_OF[type](s) === id)
    if (matches.length !== 1 || matches[0] === undefined) throw new FleetError('system.unknown', [id])
    out.set(id, matches[0])
  }
  return out
}

/**
 * docs/operations.md#bulk-operations preconditions, in the order the spec states them.
 * Readings: a subscription without operator account has no "same operator account" with one that has an account
 * (different.operator.accounts); when neither has an account, no account supports the swap (unsupported.operation).
 * The target's SIM must also fit the source's gateway (IMEI lock, set C system.invalid.compatibility).
 * @throws operation.system.swapsim.* codes, system.invalid.compatibility
 */
async function checkPair (tx: Pick<Repositories, 'catalogue'>, companyUid: string, source: System, target: System): Promise<void> {
  if (!SOURCE_STATES.includes(source.lifeCycleState) || target.lifeCycleState !== 'INVENTORY') {
    throw new FleetError('operation.system.swapsim.system.invalid.state', [source.uid, source.lifeCycleState, target.uid, target.lifeCycleState])
  }
  const without = [source, target].find((s) => s.subscription === null)
  if (without !== undefined || source.subscription === null || target.subscription === null) {
    throw new FleetError('operation.system.swapsim.system.unknown.subscription', [without?.uid ?? ''])
  }
  const accountUid = source.subscription.operatorAccountUid
  if (accountUid !== target.subscription.operatorAccountUid) {
    throw new FleetError('operation.system.swapsim.system.different.operator.accounts', [accountUid ?? '', target.subscription.operatorAccountUid ?? ''])
  }
  if (target.gateway !== null) throw new FleetError('operation.system.swapsim.system.linked.gateway', [target.uid, target.gateway.uid])
  const account = accountUid === null ? undefined : await tx.catalogue.operatorAccount(companyUid, accountUid)
  if (account === undefined || !account.swapSupported) throw new FleetError('operation.system.swapsim.unsupported.operation', [accountUid ?? ''])
  checkCompatibility(source.gateway, target.subscription)
}

/**
 * Resolves the pairs, checks every precondition, and launches one task per pair (on the source system, the target in
 * the task's params).
 * @throws unknown.enum.value (identifierType), selection.empty (no pair), selection.max.uid.reached (over 100 pairs),
 *   selection.invalid (a system in two pairs, or swapped with itself), system.unknown, the swap SIM codes
 */
export async function swapSimOperation (deps: OperationDeps, caller: Caller, body: SwapSimBody): Promise<{ operation: string }> {
  const companyUid = caller.access.company.uid
  const type = body.identifierType ?? 'uid'
  if (!(SWAP_IDENTIFIER_TYPES as readonly string[]).includes(type)) throw new FleetError('unknown.enum.value', ['identifierType', type, `one of ${SWAP_IDENTIFIER_TYPES.join(', ')}`])
  const identifierType = type as SwapIdentifierType
  const pairs = Object.entries(body.systems ?? {})
  if (pairs.length === 0) throw new FleetError('selection.empty', ['systems', 'give at least one source: target pair'])
  if (pairs.length > MAX_SELECTION_UIDS) throw new FleetError('selection.max.uid.reached', [String(MAX_SELECTION_UIDS)])
  const systems = await resolveSystems(deps.repos, companyUid, identifierType, pairs.flat())
  // One SIM moves per system: a system in two pairs (or with itself) would hand a SIM on twice.
  const seen = new Set<string>()
  const tasks: NewTask[] = []
  for (const [from, to] of pairs) {
    const source = systems.get(from) as System
    const target = systems.get(to) as System
    for (const [id, s] of [[from, source], [to, target]] as const) {
      if (seen.has(s.uid)) throw new FleetError('selection.invalid', [id, 'a system may be in one pair only, and not with itself'])
      seen.add(s.uid)
    }
    await checkPair(deps.repos, companyUid, source, target)
    tasks.push({ systemUid: source.uid, systemName: source.name, params: { target: target.uid, targetName: target.name } })
  }
  const op = await newOperation(deps, caller, 'SYSTEM_SWAP_SIM', { notify: body.notify, callback: body.callback },
    { identifierType, systems: Object.fromEntries(pairs) })
  return await launch(deps, op, tasks)
}

/** Exchanges the subscriptions of the source and the target in the task's transaction. */
export const swapSimHandler: OperationHandler = {
  async run ({ tx, op, task }) {
    const targetUid = String(task.params?.target ?? '')
    // The lock that system edits take when they change parts (core/services/systems/write.ts): nobody reassigns
    // either subscription between this check and the exchange.
    await tx.systems.lockCompany(op.companyUid)
    const source = await tx.systems.findByUid(op.companyUid, task.systemUid)
    if (source === undefined) throw new FleetError('system.unknown', [task.systemUid])
    const target = await tx.systems.findByUid(op.companyUid, targetUid)
    if (target === undefined) throw new FleetError('system.unknown', [targetUid])
    await checkPair(tx, op.companyUid, source, target)
    const fromSource = source.subscription?.uid ?? null
    const fromTarget = target.subscription?.uid ?? null
    // systems.subscription_uid is unique and checked row by row: free the source's first.
    await tx.systems.update(source.uid, { subscriptionUid: null })
    await tx.systems.update(target.uid, { subscriptionUid: fromSource })
    await tx.systems.update(source.uid, { subscriptionUid: fromTarget })
    return { state: 'SUCCESS', params: { target: target.uid, targetName: target.name, sourceSubscription: fromTarget, targetSubscription: fromSource } }
  }
}

/** docs/operations.md#bulk-operations: systems maps a source identifier to a target identifier. */
const SwapSimBodySchema = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  identifierType: Type.Optional(Nullable(Type.String())),
  systems: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.String())]))
}, {
  description: 'Move the SIM of each source system (key) to its target system (value)',
  examples: [{ identifierType: 'uid', systems: { '3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c': '6f8a0b1c3f9c2b7a1d4e4f6a8b0c2d4e' } }]
})

export const swapSimKind = operationKind({
  type: 'SYSTEM_SWAP_SIM',
  route: { path: '/operations/systems/swapsim', summary: 'Swap the SIM between systems', description: 'Each source (ACTIVE, SUSPENDED or TEST_READY) gives its SIM to its target (INVENTORY, without gateway) of the same operator account.', body: SwapSimBodySchema },
  create: async (deps, caller, body) => await swapSimOperation(deps, caller, body as SwapSimBody),
  handler: swapSimHandler
})
