// Transfer (docs/operations.md#bulk-operations, docs/api.md#using-the-api row "transfer"; §Authentication: "Transfer
// also needs the create right in the destination partner company"). The request is checked at once (400/403, no
// operation); what depends on each system is checked when its task runs and fails that task with the code
// (docs/operations.md#bulk-operations).
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { System } from '../../domain/system.js'
import type { Operation } from '../../domain/operation.js'
import type { OperationHandler } from '../handler.js'
import { resolveSelection, type SelectionInput } from '../selection.js'
import { enterCompany } from '../../services/access.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { Type } from 'typebox'
import { Selection, Nullable, Flag } from '../body.schema.js'
import { operationKind } from '../kind.js'

export interface TransferBody {
  notify?: boolean | null
  callback?: string | null
  destination?: string | null
  systems?: SelectionInput | null
  offerId?: string | null
}

interface TransferParams { destination: string, offerId: string | null }

const paramsOf = (op: Operation): TransferParams => op.parameters as unknown as TransferParams

/**
 * Checks the request, marks the selected systems' gateways as moving (edits answer gateway.being.transferred while
 * the transfer is pending) and launches one task per system.
 * @throws company.missing, partner.unknown, missing.rights (403), set S, system.unknown, system.limit.exceeded
 */
export async function transferOperation (deps: OperationDeps, caller: Caller, body: TransferBody): Promise<{ operation: string }> {
  const source = caller.access.company.uid
  const destination = body.destination ?? ''
  if (destination === '') throw new FleetError('company.missing', ['destination'])
  // A partner of the context company (seed `companies[].partners`), which the caller may enter and create systems in.
  if (!(await deps.repos.companies.partners(source)).includes(destination)) throw new FleetError('partner.unknown', [destination])
  const target = await enterCompany(deps.repos.companies, caller.actor, destination, { right: 'entities.systems.create', unknown: 'partner.unknown' })
  const selection = await resolveSelection(deps.repos, source, body.systems)
  // The destination must be able to take the whole selection now; each task checks again when it runs (a dependsOn
  // selection is known only then).
  const limit = target.company.systemLimit
  if (selection.resolved && limit !== null && await deps.repos.systems.count(destination) + selection.tasks.length > limit) {
    throw new FleetError('system.limit.exceeded', [String(limit)])
  }
  const params: TransferParams = { destination, offerId: body.offerId ?? null }
  const op = await newOperation(deps, caller, 'SYSTEM_TRANSFER', { notify: body.notify, callback: body.callback }, { ...params }, selection)
  // Marked before the operation exists, so that no task can end (and unmark) before the mark is set; undone when the
  // operation cannot be written. (A dependsOn selection is marked by nothing: its systems are known only at its start.)
  const systemUids = selection.tasks.map((t) => t.systemUid)
  await deps.repos.gateways.markTransfer(source, systemUids, destination)
  try {
    return await launch(deps, op, selection.tasks)
  } catch (err) {
    await deps.repos.gateways.unmarkTransfer(source, systemUids, destination)
    throw err
  }
}

/**
 * What the system becomes in the destination: its offer and its subscription's operator account there.
 * Reading of operation.transfer.system.incompatible.offer (docs/api.md shows offer.types only as "string list"):
 * an offer with a non-empty `types` accepts only systems whose `type` is one of them; an empty list accepts all.
 * @throws operation.transfer.system.* codes, gateway.not.unique.identifiers, subscription.not.unique.identifiers,
 *   system.limit.exceeded, partner.unknown
 */
async function checkTransfer (tx: Repositories, s: System, p: TransferParams): Promise<{ offerUid: string | null, operatorAccountUid: string | null }> {
  if (s.gateway !== null && s.gateway.state !== 'INVENTORY') {
    throw new FleetError('operation.transfer.system.gateway.invalid.state', [s.uid, s.gateway.state])
  }
  const privateApp = (await tx.applications.ofSystem(s.uid)).find((a) => a.companyUid !== null)
  if (privateApp !== undefined) throw new FleetError('operation.transfer.system.linked.to.private.application', [s.uid, privateApp.uid])
  let operatorAccountUid: string | null = null
  const accountUid = s.subscription?.operatorAccountUid ?? null
  if (accountUid !== null) {
    // The subscription moves to the destination's account of the same operator.
    const account = await tx.catalogue.operatorAccount(s.companyUid, accountUid)
    const there = account === undefined ? undefined : await tx.catalogue.operatorAccountByOperator(p.destination, account.operator)
    if (there === undefined) throw new FleetError('operation.transfer.system.incompatible.operator.account', [s.uid, account?.operator ?? accountUid])
    operatorAccountUid = there.uid
  }
  let offerUid: string | null = null
  if (p.offerId !== null) {
    const offer = await tx.catalogue.offer(p.destination, p.offerId)
    if (offer === undefined) throw new FleetError('operation.transfer.system.unknown.offer', [p.offerId])
    if (offer.types.length > 0 && (s.type === null || !offer.types.includes(s.type))) {
      throw new FleetError('operation.transfer.system.incompatible.offer', [s.uid, offer.uid])
    }
    offerUid = offer.uid
  } else if (s.offer !== null) {
    // The source's offer means nothing in the destination: the request must name one there.
    throw new FleetError('operation.transfer.system.missing.offer', [s.uid, s.offer.uid])
  }
  // The destination's identifiers are unique per company: a gateway or subscription of its own with the same one.
  const g = s.gateway
  if (g !== null && (await tx.gateways.findByIdentifiers(p.destination, { imei: g.imei, serialNumber: g.serialNumber, macAddress: g.macAddress })).length > 0) {
    throw new FleetError('gateway.not.unique.identifiers', [g.uid])
  }
  if (s.subscription !== null && await tx.subscriptions.findByIdentifier(p.destination, s.subscription.identifier) !== undefined) {
    throw new FleetError('subscription.not.unique.identifiers', [s.subscription.uid])
  }
  // The same company row lock as system creation (core/services/systems/write.ts): the limit cannot be overrun.
  await tx.systems.lockCompany(p.destination)
  const company = await tx.companies.findByUid(p.destination)
  if (company === undefined) throw new FleetError('partner.unknown', [p.destination])
  if (company.systemLimit !== null && await tx.systems.count(p.destination) >= company.systemLimit) {
    throw new FleetError('system.limit.exceeded', [String(company.systemLimit)])
  }
  return { offerUid, operatorAccountUid }
}

/** Moves one system with its gateway and subscription; labels, metadata and (public) applications stay. */
export const transferHandler: OperationHandler = {
  async run ({ tx, op, task }) {
    const p = paramsOf(op)
    const s = await tx.systems.findByUid(op.companyUid, task.systemUid)
    if (s === undefined) throw new FleetError('system.unknown', [task.systemUid])
    const to = await checkTransfer(tx, s, p)
    await tx.systems.transfer(s.uid, { companyUid: p.destination, ...to })
    return { state: 'SUCCESS' }
  },
  // A failed task leaves the system where it is: its gateway is no longer moving.
  async failed ({ tx, op, task }) {
    await tx.gateways.unmarkTransfer(op.companyUid, [task.systemUid], paramsOf(op).destination)
  },
  // Finished, cancelled or timed out: no gateway of the operation stays marked.
  async finished (tx, op) {
    const systems = await tx.operations.parentSystems({ operation: op.uid, states: [] })
    await tx.gateways.unmarkTransfer(op.companyUid, systems.map((s) => s.systemUid), paramsOf(op).destination)
  }
}

/** docs/operations.md#bulk-operations: notify, callback, destination, systems, offerId. */
const TransferBodySchema = Type.Object({
  notify: Flag,
  callback: Type.Optional(Nullable(Type.String())),
  destination: Type.Optional(Nullable(Type.String())),
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  offerId: Type.Optional(Nullable(Type.String()))
}, {
  description: 'Move the selected systems to a partner company',
  examples: [{ destination: '1c3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b', systems: { label: 'north' } }]
})

export const transferKind = operationKind({
  type: 'SYSTEM_TRANSFER',
  route: { path: '/operations/systems/transfer', summary: 'Transfer systems to a partner company', description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. The caller needs entities.systems.create in the destination too.', body: TransferBodySchema },
  create: async (deps, caller, body) => await transferOperation(deps, caller, body as TransferBody),
  handler: transferHandler
})
