import { FleetError } from '../errors.js'
import type { Repositories } from '../ports/repositories.js'
import type { NewTask, DependsOn, FinalTaskState } from '../domain/operation.js'
import { FINAL_TASK_STATES } from '../domain/operation.js'
import {
  APPLICATION_KEYS, DATA_KEYS, DATE_BOUNDS, GATEWAY_KEYS, knownKeys, SUBSCRIPTION_KEYS, type DateBound, type SystemCriteria
} from '../domain/system-criteria.js'
import { toMillis } from '../domain/lists.js'
import { Criteria } from './body.schema.js'

// docs/operations.md#bulk-operations and set S; §Limits: 100 distinct uids.
export const MAX_SELECTION_UIDS = 100
export const MAX_IDENTIFIERS = 5000
// A selection never makes more tasks than this in one operation (a safety bound far above real fleets' bulk sizes).
export const MAX_SELECTED_SYSTEMS = 1_000_000

/**
 * The criteria object of a request (docs/operations.md#bulk-operations, criteria fields and nested criteria): the find
 * filters of core/domain/system-criteria.ts, with status lists also accepted as a single string and date bounds in
 * any unit docs/api.md#using-the-api tolerates.
 */
export interface CriteriaInput extends Partial<Record<DateBound, number>> {
  uids?: string[]
  labels?: string[]
  name?: string
  states?: string[]
  lifeCycleStates?: string[]
  activityStates?: string[]
  type?: string
  lastAppliedTemplate?: string
  lastConfigName?: string
  commStatus?: string | string[]
  syncStatus?: string | string[]
  metadata?: Record<string, string>
  application?: Record<string, string | undefined>
  gateway?: Record<string, string | undefined>
  subscription?: Record<string, string | undefined>
  data?: Record<string, string | undefined>
}

export interface SelectionInput {
  label?: string | null
  uids?: string[] | null
  dependsOn?: { operation?: string | null, states?: string[] | null } | null
  criteria?: CriteriaInput | null
}

export interface Selection {
  tasks: NewTask[]
  /** Set when the systems are those of a parent operation, known only once it finishes. */
  dependsOn: DependsOn | null
  resolved: boolean
}

const asList = (v: string | string[] | undefined): string[] | undefined => v === undefined ? undefined : Array.isArray(v) ? v : [v]

/**
 * Refuses a key that names no field of this part of a selection: left out, it would select more systems than meant
 * (every system of the company, for a criteria object holding only a misspelt key). @throws selection.invalid
 */
export function refuseUnknownKeys (where: string, v: object | null | undefined, keys: readonly string[]): void {
  const unknown = Object.keys(v ?? {}).find((k) => !keys.includes(k))
  if (unknown !== undefined) throw new FleetError('selection.invalid', [where === '' ? unknown : `${where}.${unknown}`, `not a field here; known: ${keys.join(', ')}`])
}

const CRITERIA_KEYS = Object.keys(Criteria.properties)

/** The criteria of a selection as the find filters (core/domain/system-criteria.ts). @throws selection.invalid, request.invalid */
export function toCriteria (c: CriteriaInput): SystemCriteria {
  refuseUnknownKeys('criteria', c, CRITERIA_KEYS)
  const out: SystemCriteria = {}
  const copy = <K extends keyof SystemCriteria>(k: K, v: SystemCriteria[K] | undefined): void => { if (v !== undefined) out[k] = v }
  copy('uids', c.uids)
  copy('labels', c.labels)
  copy('name', c.name)
  copy('states', c.states)
  copy('lifeCycleStates', c.lifeCycleStates)
  copy('activityStates', c.activityStates)
  copy('type', c.type)
  copy('lastAppliedTemplate', c.lastAppliedTemplate)
  copy('lastConfigName', c.lastConfigName)
  copy('commStatus', asList(c.commStatus))
  copy('syncStatus', asList(c.syncStatus))
  copy('metadata', c.metadata)
  copy('application', knownKeys('criteria.application', c.application, APPLICATION_KEYS))
  copy('gateway', knownKeys('criteria.gateway', c.gateway, GATEWAY_KEYS))
  copy('subscription', knownKeys('criteria.subscription', c.subscription, SUBSCRIPTION_KEYS))
  copy('data', knownKeys('criteria.data', c.data, DATA_KEYS))
  for (const b of DATE_BOUNDS) {
    const v = c[b]
    if (typeof v === 'number') out[b] = toMillis(v)
  }
  return out
}

async function systemsOf (tx: Pick<Repositories, 'systems'>, companyUid: string, criteria: SystemCriteria): Promise<NewTask[]> {
  const found = await tx.systems.refs(companyUid, criteria, MAX_SELECTED_SYSTEMS)
  return found.map((s) => ({ systemUid: s.uid, systemName: s.name }))
}

/** What a selection.invalid tells the caller, after the fields that were set (docs/operations.md#bulk-operations). */
export const SELECTION_FORM = 'set exactly one of label, uids, dependsOn, criteria'

/** The first error parameter of selection.invalid: the selection fields that were set. */
export const fieldsSet = (given: readonly string[]): string => given.length === 0 ? 'none set' : `set: ${given.join(', ')}`

/** Systems by uid: each must be one of the company's. @throws selection.max.uid.reached, selection.empty, system.unknown */
export async function systemsByUids (tx: Pick<Repositories, 'systems'>, companyUid: string, uids: string[]): Promise<NewTask[]> {
  const distinct = [...new Set(uids)]
  if (distinct.length > MAX_SELECTION_UIDS) throw new FleetError('selection.max.uid.reached', [String(MAX_SELECTION_UIDS)])
  if (distinct.length === 0) throw new FleetError('selection.empty', ['uids', 'the list is empty'])
  const found = await systemsOf(tx, companyUid, { uids: distinct })
  const unknown = distinct.find((u) => !found.some((t) => t.systemUid === u))
  if (unknown !== undefined) throw new FleetError('system.unknown', [unknown])
  return distinct.map((u) => found.find((t) => t.systemUid === u) as NewTask)
}

/** dependsOn: the parent must be an operation of the company. @throws operation.unknown */
export async function dependsOnSelection (tx: Pick<Repositories, 'operations'>, companyUid: string, d: NonNullable<SelectionInput['dependsOn']>): Promise<Selection> {
  const parentUid = d.operation ?? ''
  const parent = parentUid === '' ? undefined : await tx.operations.findInCompany(companyUid, parentUid)
  if (parent === undefined) throw new FleetError('operation.unknown', [parentUid])
  const states = (d.states ?? []).filter((s): s is FinalTaskState => (FINAL_TASK_STATES as readonly string[]).includes(s))
  if (states.length !== (d.states ?? []).length) throw new FleetError('unknown.enum.value', ['dependsOn.states', `one of ${FINAL_TASK_STATES.join(', ')}`])
  const dependsOn = { operation: parent.uid, states }
  if (parent.state !== 'FINISHED') return { tasks: [], dependsOn, resolved: false }
  const tasks = await tx.operations.parentSystems(dependsOn)
  if (tasks.length === 0) throw new FleetError('selection.empty', ['dependsOn', parent.uid, `no task ended in ${states.length === 0 ? 'any state' : states.join(' or ')}`])
  return { tasks, dependsOn, resolved: true }
}

/**
 * Exactly one of label, uids, dependsOn, criteria (docs/operations.md#bulk-operations).
 * @throws selection.invalid, selection.empty, selection.max.uid.reached, operation.unknown, system.unknown
 */
export async function resolveSelection (tx: Pick<Repositories, 'systems' | 'operations'>, companyUid: string, sel: SelectionInput | null | undefined): Promise<Selection> {
  const given = (['label', 'uids', 'dependsOn', 'criteria'] as const).filter((k) => sel?.[k] != null)
  if (sel == null || given.length !== 1) throw new FleetError('selection.invalid', [fieldsSet(given), SELECTION_FORM])
  if (sel.uids != null) return { tasks: await systemsByUids(tx, companyUid, sel.uids), dependsOn: null, resolved: true }
  if (sel.dependsOn != null) return await dependsOnSelection(tx, companyUid, sel.dependsOn)
  if (sel.label != null) {
    const tasks = await systemsOf(tx, companyUid, { labels: [sel.label] })
    // docs/api.md set S: selection.empty is "nothing matches the label" (AirVantage clients test for that code).
    if (tasks.length === 0) throw new FleetError('selection.empty', ['label', sel.label])
    return { tasks, dependsOn: null, resolved: true }
  }
  const criteria = toCriteria(sel.criteria ?? {})
  if (criteria.uids !== undefined && new Set(criteria.uids).size > MAX_SELECTION_UIDS) {
    throw new FleetError('selection.max.uid.reached', [String(MAX_SELECTION_UIDS)])
  }
  const tasks = await systemsOf(tx, companyUid, criteria)
  if (tasks.length === 0) throw new FleetError('selection.empty', ['criteria', 'no system of the company matches'])
  return { tasks, dependsOn: null, resolved: true }
}
