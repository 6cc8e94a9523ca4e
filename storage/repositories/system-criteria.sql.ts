import type { SystemCriteria, DateBound } from '../../core/domain/system-criteria.js'
import { containsPattern } from './users.repository.js'
import { USAGE_STATUS_SQL } from './data-usage.sql.js'
import { NEVER_COMMUNICATED } from '../../core/domain/comm-status.js'

/** Collects $n parameters while a WHERE clause is built. */
export class Params {
  readonly values: unknown[] = []
  add (v: unknown): string { this.values.push(v); return `$${this.values.length}` }
}

const DATE_COLUMNS: Record<DateBound, [string, '>=' | '<=']> = {
  lastCommAfter: ['st.last_comm_date', '>='],
  lastCommBefore: ['st.last_comm_date', '<='],
  creationAfter: ['s.creation_date', '>='],
  creationBefore: ['s.creation_date', '<='],
  activationAfter: ['s.activation_date', '>='],
  activationBefore: ['s.activation_date', '<='],
  lastStateChangeAfter: ['s.last_state_change_date', '>='],
  lastStateChangeBefore: ['s.last_state_change_date', '<='],
  lastSyncAfter: ['s.last_sync_date', '>='],
  lastSyncBefore: ['s.last_sync_date', '<=']
}

// docs/operations.md#bulk-operations, nested criteria: `contain` keys match with ILIKE, the others with =.
const GATEWAY_COLUMNS: Record<string, [string, 'eq' | 'contains']> = {
  uid: ['g.uid', 'eq'], type: ['g.type', 'contains'], imei: ['g.imei', 'contains'], macAddress: ['g.mac_address', 'contains'], serialNumber: ['g.serial_number', 'contains']
}
const SUBSCRIPTION_COLUMNS: Record<string, [string, 'eq' | 'contains']> = {
  uid: ['b.uid', 'eq'],
  operator: ['b.operator', 'eq'],
  identifier: ['b.identifier', 'contains'],
  mobileNumber: ['b.mobile_number', 'contains'],
  networkIdentifier: ['b.network_identifier', 'contains'],
  ipAddress: ['b.ip_address', 'contains'],
  requestedIp: ['b.requested_ip', 'contains'],
  eid: ['b.eid', 'contains'],
  appletGeneration: ['b.applet_generation', 'eq'],
  formFactor: ['b.form_factor', 'eq'],
  confType: ['b.conf_type', 'eq'],
  technology: ['b.technology', 'eq'],
  productRefName: ['b.product_ref_name', 'eq']
}
const APPLICATION_COLUMNS: Record<string, [string, 'eq' | 'contains']> = {
  uid: ['a.uid', 'eq'], name: ['a.name', 'contains'], revision: ['a.revision', 'contains'], type: ['a.type', 'contains']
}
const IDENTIFIER_COLUMNS: Record<string, string> = {
  name: 's.name',
  gatewaySerialNumber: 'g.serial_number',
  gatewayImei: 'g.imei',
  gatewayMacAddress: 'g.mac_address',
  subscriptionIdentifier: 'b.identifier',
  subscriptionNetworkIdentifier: 'b.network_identifier',
  subscriptionIpAddress: 'b.ip_address',
  subscriptionEid: 'b.eid'
}

/** A column by a key the caller chose: own keys only, so `constructor` or `__proto__` name no column. */
function own<T> (map: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined
}

function keyed (p: Params, map: Record<string, [string, 'eq' | 'contains']>, values: Record<string, string | undefined>): string[] {
  const out: string[] = []
  for (const [key, value] of Object.entries(values)) {
    const col = own(map, key)
    if (col === undefined || value === undefined) continue
    out.push(col[1] === 'eq' ? `${col[0]} = ${p.add(value)}` : `${col[0]} ILIKE ${p.add(containsPattern(value))}`)
  }
  return out
}

/**
 * The WHERE conditions of a criteria object over `systems s LEFT JOIN gateways g LEFT JOIN subscriptions b LEFT JOIN
 * system_state st`.
 * Every condition is pushed into SQL so that indexes and LIMIT apply.
 */
export function criteriaConditions (c: SystemCriteria, p: Params): string[] {
  const w: string[] = []
  if (c.uids !== undefined) w.push(`s.uid = ANY(${p.add(c.uids)}::text[])`)
  if (c.labels !== undefined && c.labels.length > 0) w.push(`s.labels && ${p.add(c.labels)}::text[]`)
  if (c.name !== undefined) w.push(`s.name ILIKE ${p.add(containsPattern(c.name))}`)
  if (c.type !== undefined) w.push(`s.type ILIKE ${p.add(containsPattern(c.type))}`)
  if (c.states !== undefined) w.push(`s.state = ANY(${p.add(c.states)}::text[])`)
  if (c.lifeCycleStates !== undefined) w.push(`s.life_cycle_state = ANY(${p.add(c.lifeCycleStates)}::text[])`)
  if (c.activityStates !== undefined) w.push(`s.activity_state = ANY(${p.add(c.activityStates)}::text[])`)
  if (c.commStatus !== undefined) w.push(`coalesce(st.comm_status, '${NEVER_COMMUNICATED}') = ANY(${p.add(c.commStatus)}::text[])`)
  if (c.syncStatus !== undefined) w.push(`s.sync_status = ANY(${p.add(c.syncStatus)}::text[])`)
  if (c.lastAppliedTemplate !== undefined) w.push(`s.last_applied_template = ${p.add(c.lastAppliedTemplate)}`)
  if (c.lastConfigName !== undefined) w.push(`s.last_config_name = ${p.add(c.lastConfigName)}`)
  for (const [bound, [col, op]] of Object.entries(DATE_COLUMNS)) {
    const v = c[bound as DateBound]
    if (v !== undefined) w.push(`${col} ${op} ${p.add(v)}`)
  }
  // docs/api.md#systems: metadata is = on the name, like on the value.
  for (const [name, value] of Object.entries(c.metadata ?? {})) {
    w.push(`s.metadata ? ${p.add(name)}`, `s.metadata ->> ${p.add(name)} ILIKE ${p.add(containsPattern(value))}`)
  }
  w.push(...keyed(p, GATEWAY_COLUMNS, c.gateway ?? {}))
  w.push(...keyed(p, SUBSCRIPTION_COLUMNS, c.subscription ?? {}))
  if (c.application !== undefined && Object.keys(c.application).length > 0) {
    const inner = keyed(p, APPLICATION_COLUMNS, c.application)
    w.push(`EXISTS (SELECT 1 FROM system_applications sa JOIN applications a ON a.uid = sa.application_uid
      WHERE sa.system_uid = s.uid${inner.map((x) => ` AND ${x}`).join('')})`)
  }
  for (const [key, value] of Object.entries(c.data ?? {})) {
    if (value !== undefined) w.push(`st.data ->> ${p.add(key)} = ${p.add(value)}`)
  }
  if (c.usageStatus !== undefined) w.push(`${USAGE_STATUS_SQL} = ${p.add(c.usageStatus)}`)
  if (c.offer !== undefined) w.push(`s.offer_uid = ${p.add(c.offer)}`)
  if (c.notOffer !== undefined) w.push(`s.offer_uid IS DISTINCT FROM ${p.add(c.notOffer)}`)
  if (c.options !== undefined) {
    w.push(`EXISTS (SELECT 1 FROM system_options so WHERE so.system_uid = s.uid AND so.active AND so.option_uid = ANY(${p.add(c.options)}::text[]))`)
  }
  if (c.notOptions !== undefined) {
    w.push(`NOT EXISTS (SELECT 1 FROM system_options so WHERE so.system_uid = s.uid AND so.active AND so.option_uid = ANY(${p.add(c.notOptions)}::text[]))`)
  }
  const ids = Object.entries(c.identifiers ?? {}).filter(([k, v]) => own(IDENTIFIER_COLUMNS, k) !== undefined && v !== undefined && v.length > 0)
  if (ids.length > 0) {
    w.push('(' + ids.map(([k, v]) => `${own(IDENTIFIER_COLUMNS, k) ?? ''} = ANY(${p.add(v)}::text[])`).join(' OR ') + ')')
  }
  return w
}

/** The joins the conditions of `c` read: the gateway (g), the subscription (b) and the traffic state (st). */
export interface CriteriaJoins { gateway: boolean, subscription: boolean, state: boolean }

export function criteriaJoins (c: SystemCriteria): CriteriaJoins {
  const ids = Object.entries(c.identifiers ?? {}).filter(([, v]) => v !== undefined && v.length > 0).map(([k]) => k)
  return {
    gateway: Object.keys(c.gateway ?? {}).length > 0 || ids.some((k) => k.startsWith('gateway')),
    subscription: Object.keys(c.subscription ?? {}).length > 0 || ids.some((k) => k.startsWith('subscription')),
    state: c.commStatus !== undefined || c.lastCommAfter !== undefined || c.lastCommBefore !== undefined ||
      Object.values(c.data ?? {}).some((v) => v !== undefined)
  }
}

/** The LEFT JOINs of gateways g, subscriptions b and system_state st that `j` asks for, after `FROM systems s`. */
export function joinsSql (j: CriteriaJoins): string {
  return (j.gateway ? ' LEFT JOIN gateways g ON g.uid = s.gateway_uid' : '') +
    (j.subscription ? ' LEFT JOIN subscriptions b ON b.uid = s.subscription_uid' : '') +
    (j.state ? ' LEFT JOIN system_state st ON st.system_uid = s.uid' : '')
}
