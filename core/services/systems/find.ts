import type { Found } from '../../paging.js'
import type { SystemsRepository } from '../../ports/systems.js'
import { fields as pickFields, list, map, page, pick, sorts, toMillis, type SortQuery } from '../../domain/lists.js'
import { SYSTEM_FIELDS, SYSTEM_SORTS, type System } from '../../domain/system.js'
import {
  APPLICATION_KEYS, DATA_KEYS, DATE_BOUNDS, GATEWAY_KEYS, knownKeys, SUBSCRIPTION_KEYS, type DateBound, type SystemCriteria
} from '../../domain/system-criteria.js'

type Multi = string | string[] | undefined

/** The query of GET /api/v1/systems (docs/api.md#systems). */
export interface SystemFindQuery extends SortQuery, Partial<Record<DateBound, number>> {
  uid?: Multi
  labels?: Multi
  name?: string
  states?: Multi
  lifeCycleStates?: Multi
  activityStates?: Multi
  metadata?: Multi
  commStatus?: Multi
  syncStatus?: Multi
  lastAppliedTemplate?: string
  lastConfigName?: string
  type?: string
  application?: Multi
  gateway?: Multi
  subscription?: Multi
  data?: Multi
  usageStatus?: string
  offer?: string
  notOffer?: string
  options?: Multi
  notOptions?: Multi
  fields?: Multi
  offset?: number
  size?: number
}

/** A map parameter whose keys must be among `keys` (the complete key lists are ours: docs/api.md). */
function keyedMap<K extends string> (name: string, v: Multi, keys: readonly K[]): Partial<Record<K, string>> | undefined {
  return knownKeys(name, map(v), keys)
}

export function criteriaFromQuery (q: SystemFindQuery): SystemCriteria {
  const c: SystemCriteria = {}
  const set = <K extends keyof SystemCriteria>(k: K, v: SystemCriteria[K] | undefined): void => { if (v !== undefined) c[k] = v }
  set('uids', list(q.uid))
  set('labels', list(q.labels))
  set('name', q.name)
  set('states', list(q.states))
  set('lifeCycleStates', list(q.lifeCycleStates))
  set('activityStates', list(q.activityStates))
  set('metadata', map(q.metadata))
  set('commStatus', list(q.commStatus))
  set('syncStatus', list(q.syncStatus))
  set('lastAppliedTemplate', q.lastAppliedTemplate)
  set('lastConfigName', q.lastConfigName)
  set('type', q.type)
  set('application', keyedMap('application', q.application, APPLICATION_KEYS))
  set('gateway', keyedMap('gateway', q.gateway, GATEWAY_KEYS))
  set('subscription', keyedMap('subscription', q.subscription, SUBSCRIPTION_KEYS))
  set('data', keyedMap('data', q.data, DATA_KEYS))
  set('usageStatus', q.usageStatus)
  set('offer', q.offer)
  set('notOffer', q.notOffer)
  set('options', list(q.options))
  set('notOptions', list(q.notOptions))
  for (const b of DATE_BOUNDS) if (q[b] !== undefined) c[b] = toMillis(q[b])
  return c
}

/**
 * Find: filters, sort, paging; a list item carries only the requested fields (all when `fields` is absent), each
 * system shown through `view` (./view.ts: the caller's view, device passwords or not).
 */
export async function findSystems (systems: Pick<SystemsRepository, 'find'>, companyUid: string, q: SystemFindQuery, now: number,
  view: (s: System, now: number) => Record<string, unknown>): Promise<Found<Record<string, unknown>> & { size: number, offset: number }> {
  const chosen = pickFields(q.fields, SYSTEM_FIELDS, SYSTEM_FIELDS)
  const order = sorts(q, SYSTEM_SORTS)
  const p = page(q.offset, q.size)
  const found = await systems.find(companyUid, criteriaFromQuery(q), order, p)
  const items = found.items.map((s) => pick(view(s, now), chosen))
  return { items, count: found.count, size: items.length, offset: p.offset }
}
