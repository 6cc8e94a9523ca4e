import { FleetError } from '../../errors.js'
import { IDENTIFIER_KINDS, type IdentifierKind } from '../../domain/system-criteria.js'
import type { NewTask } from '../../domain/operation.js'
import type { OperationHandler } from '../handler.js'
import { dependsOnSelection, fieldsSet, MAX_IDENTIFIERS, MAX_SELECTED_SYSTEMS, MAX_SELECTION_UIDS, refuseUnknownKeys, toCriteria, type CriteriaInput, type Selection, type SelectionInput } from '../selection.js'
import { launch, newOperation, type Caller, type CommonParams, type OperationDeps } from '../common.js'
import { Type } from 'typebox'
import { Common, Criteria, DependsOn } from '../body.schema.js'
import { operationKind } from '../kind.js'

// docs/operations.md#bulk-operations and docs/api.md#limits: at most 100 labels to add or remove.
export const MAX_LABELS = 100

export interface LabelBody extends CommonParams {
  labels?: { add?: string[] | null, remove?: string[] | null } | null
  criteria?: CriteriaInput | null
  dependsOn?: SelectionInput['dependsOn']
  identifiers?: Partial<Record<IdentifierKind, string[]>> | null
}

/**
 * The label operation's own selection: criteria at top level, dependsOn, or identifier lists; none of them means
 * every system of the company (docs/operations.md#bulk-operations).
 * @throws selection.invalid (an unknown key too), selection.too.many.identifiers, selection.max.uid.reached, selection.empty,
 *   operation.unknown
 */
async function labelSelection (deps: OperationDeps, companyUid: string, body: LabelBody): Promise<Selection> {
  // A body key the operation does not know (`systems`, `uids`, `label`: the selection of other operations) would
  // otherwise leave no selection at all, and so label every system of the company.
  refuseUnknownKeys('', body, Object.keys(LabelBodySchema.properties))
  refuseUnknownKeys('identifiers', body.identifiers, IDENTIFIER_KINDS)
  const given = (['criteria', 'dependsOn', 'identifiers'] as const).filter((k) => body[k] != null)
  if (given.length > 1) throw new FleetError('selection.invalid', [fieldsSet(given), 'set at most one of criteria, dependsOn, identifiers'])
  if (body.dependsOn != null) return await dependsOnSelection(deps.repos, companyUid, body.dependsOn)
  const criteria = toCriteria(body.criteria ?? {})
  if (criteria.uids !== undefined && new Set(criteria.uids).size > MAX_SELECTION_UIDS) {
    throw new FleetError('selection.max.uid.reached', [String(MAX_SELECTION_UIDS)])
  }
  if (body.identifiers != null) {
    const lists = Object.entries(body.identifiers).filter(([k]) => (IDENTIFIER_KINDS as readonly string[]).includes(k))
    const tooMany = lists.find(([, v]) => (v ?? []).length > MAX_IDENTIFIERS)
    if (tooMany !== undefined) throw new FleetError('selection.too.many.identifiers', [tooMany[0], String(MAX_IDENTIFIERS)])
    if (!lists.some(([, v]) => (v ?? []).length > 0)) throw new FleetError('selection.empty', ['identifiers', `every list is empty (kinds: ${IDENTIFIER_KINDS.join(', ')})`])
    criteria.identifiers = Object.fromEntries(lists)
  }
  const found = await deps.repos.systems.refs(companyUid, criteria, MAX_SELECTED_SYSTEMS)
  if (found.length === 0) throw new FleetError('selection.empty', [given[0] ?? 'criteria', 'no system of the company matches'])
  return { tasks: found.map((s): NewTask => ({ systemUid: s.uid, systemName: s.name })), dependsOn: null, resolved: true }
}

/** @throws label.missing, label.amount.exceeded, set S, set T */
export async function labelOperation (deps: OperationDeps, caller: Caller, body: LabelBody): Promise<{ operation: string }> {
  const add = [...new Set(body.labels?.add ?? [])].filter((l) => l !== '')
  const remove = [...new Set(body.labels?.remove ?? [])].filter((l) => l !== '')
  if (add.length === 0 && remove.length === 0) throw new FleetError('label.missing', ['labels', 'give at least one label in labels.add or labels.remove'])
  if (add.length > MAX_LABELS || remove.length > MAX_LABELS) throw new FleetError('label.amount.exceeded', [String(MAX_LABELS)])
  const selection = await labelSelection(deps, caller.access.company.uid, body)
  const op = await newOperation(deps, caller, 'SYSTEM_LABEL', { notify: body.notify, callback: body.callback, scheduledTime: body.scheduledTime, timeout: body.timeout }, { add, remove }, selection)
  return await launch(deps, op, selection.tasks)
}

/** Adds then removes the operation's labels on the task's system. */
export const labelHandler: OperationHandler = {
  async run ({ tx, op, task }) {
    const { add = [], remove = [] } = op.parameters as { add?: string[], remove?: string[] }
    if (!(await tx.systems.relabel(op.companyUid, task.systemUid, add, remove))) throw new FleetError('system.unknown', [task.systemUid])
    return { state: 'SUCCESS' }
  },
  // A whole chunk in one UPDATE (bench/operations.ts): a system gone since the selection fails its task unchanged.
  async runChunk ({ tx, op, tasks }) {
    const { add = [], remove = [] } = op.parameters as { add?: string[], remove?: string[] }
    const done = new Set(await tx.systems.relabelMany(op.companyUid, tasks.map((t) => t.systemUid), add, remove))
    return tasks.map((t) => done.has(t.systemUid) ? { state: 'SUCCESS' as const } : new FleetError('system.unknown', [t.systemUid]))
  }
}

const LabelBodySchema = Type.Object({
  ...Common,
  labels: Type.Optional(Type.Union([Type.Null(), Type.Object({
    add: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())])),
    remove: Type.Optional(Type.Union([Type.Null(), Type.Array(Type.String())]))
  })])),
  criteria: Type.Optional(Type.Union([Type.Null(), Criteria])),
  dependsOn: Type.Optional(Type.Union([Type.Null(), DependsOn])),
  identifiers: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.Array(Type.String()))]))
}, {
  description: 'Add or remove labels on the systems chosen by criteria, dependsOn or identifiers (all the company\'s systems when none is set)',
  examples: [{ labels: { add: ['north'], remove: ['south'] }, criteria: { lifeCycleStates: ['ACTIVE'] }, notify: false }]
})

export const labelKind = operationKind({
  type: 'SYSTEM_LABEL',
  route: { path: '/operations/systems/label', summary: 'Label systems', description: "Adds and removes labels (at most 100 each) on the systems chosen by criteria, dependsOn or identifiers; all the company's systems when none is set.", body: LabelBodySchema },
  create: async (deps, caller, body) => await labelOperation(deps, caller, body as LabelBody),
  handler: labelHandler
})
