import { FleetError } from '../../errors.js'
import type { OperationHandler } from '../handler.js'
import { resolveSelection, type SelectionInput } from '../selection.js'
import { launch, newOperation, type Caller, type OperationDeps } from '../common.js'
import { Type } from 'typebox'
import { Common, Selection, Flag } from '../body.schema.js'
import { operationKind } from '../kind.js'

export interface DeleteBody {
  notify?: boolean | null
  callback?: string | null
  systems?: SelectionInput | null
  deleteGateways?: boolean | null
  deleteSubscriptions?: boolean | null
}

/** Bulk delete (docs/operations.md#bulk-operations): the operation stays in the history. @throws set S */
export async function deleteOperation (deps: OperationDeps, caller: Caller, body: DeleteBody): Promise<{ operation: string }> {
  const selection = await resolveSelection(deps.repos, caller.access.company.uid, body.systems)
  const params = { deleteGateways: body.deleteGateways === true, deleteSubscriptions: body.deleteSubscriptions === true }
  const op = await newOperation(deps, caller, 'SYSTEM_DELETE', { notify: body.notify, callback: body.callback }, params, selection)
  return await launch(deps, op, selection.tasks)
}

export const deleteHandler: OperationHandler = {
  async run ({ tx, op, task }) {
    const s = await tx.systems.findByUid(op.companyUid, task.systemUid)
    if (s === undefined) throw new FleetError('system.unknown', [task.systemUid])
    const { deleteGateways, deleteSubscriptions } = op.parameters as { deleteGateways?: boolean, deleteSubscriptions?: boolean }
    await tx.systems.delete(s.uid)
    if (deleteGateways === true && s.gateway !== null) await tx.gateways.delete(s.gateway.uid)
    if (deleteSubscriptions === true && s.subscription !== null) await tx.subscriptions.delete(s.subscription.uid)
    return { state: 'SUCCESS' }
  },
  // A whole chunk in two statements (bench/operations.ts), plus one per gateway or subscription to delete.
  async runChunk ({ tx, op, tasks }) {
    const { deleteGateways, deleteSubscriptions } = op.parameters as { deleteGateways?: boolean, deleteSubscriptions?: boolean }
    const deleted = await tx.systems.deleteMany(op.companyUid, tasks.map((t) => t.systemUid))
    for (const s of deleted) {
      if (deleteGateways === true && s.gatewayUid !== null) await tx.gateways.delete(s.gatewayUid)
      if (deleteSubscriptions === true && s.subscriptionUid !== null) await tx.subscriptions.delete(s.subscriptionUid)
    }
    const done = new Set(deleted.map((s) => s.uid))
    return tasks.map((t) => done.has(t.systemUid) ? { state: 'SUCCESS' as const } : new FleetError('system.unknown', [t.systemUid]))
  }
}

const DeleteBodySchema = Type.Object({
  ...Common,
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  deleteGateways: Flag,
  deleteSubscriptions: Flag
}, {
  description: 'Delete the selected systems, and their gateways and subscriptions when asked',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] }, deleteGateways: false, deleteSubscriptions: false }]
})

export const deleteKind = operationKind({
  type: 'SYSTEM_DELETE',
  route: { path: '/operations/systems/delete', summary: 'Delete systems', description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria.', body: DeleteBodySchema },
  create: async (deps, caller, body) => await deleteOperation(deps, caller, body as DeleteBody),
  handler: deleteHandler
})
