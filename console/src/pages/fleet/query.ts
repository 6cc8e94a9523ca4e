// The fleet page's view as data: the filters of docs/api.md#systems it offers, the sort and the page. The same
// object is written into the hash (`#/fleet?name=pump&commStatus=ERROR`) so that a link reproduces the view, and
// turned into the query of GET /api/v1/systems. No DOM here (tested in test/unit/console/).

export const COMM_STATUSES = ['OK', 'WARNING', 'ERROR', 'UNDEFINED'] as const
export const LIFE_CYCLE_STATES = ['INVENTORY', 'ACTIVE', 'TEST_READY', 'SUSPENDED', 'RETIRED'] as const
export const USAGE_STATUSES = ['WITHIN_PLAN', 'NEARING_PLAN', 'EXCEEDING_PLAN'] as const
/** docs/api.md#systems: the sortable attributes (anything else answers sort.invalid.field). */
export const SORTS = ['name', 'creationDate', 'activationDate', 'lastStateChangeDate', 'lastCommDate', 'serialNumber',
  'imei', 'identifier', 'ipAddress', 'requestedIp', 'data.rssi', 'data.ecio', 'data.rsrp', 'data.rsrq',
  'data.bytesSent', 'data.bytesReceived', 'data.monthBytesTotal', 'dataUsage.bytesTotal', 'dataUsage.status'] as const
export const PAGE_SIZES = [25, 50, 100] as const
/** At most 100 per page: a bulk operation on the selected systems names at most 100 uids (docs/api.md#limits). */
const DEFAULT_SIZE = 50

export interface FleetQuery {
  /** Name contains this text. */
  name: string
  /** Any of these labels. */
  labels: string[]
  commStatus: string[]
  lifeCycleStates: string[]
  /** Type contains this text. */
  type: string
  /** Gateway serial number contains this text. */
  serialNumber: string
  /** Gateway IMEI contains this text. */
  imei: string
  /** Subscription identifier (ICCID) contains this text. */
  identifier: string
  usageStatus: string
  /** Inclusive bounds of the last communication, epoch ms, or null. */
  lastCommAfter: number | null
  lastCommBefore: number | null
  /** A sortable attribute, or '' for the service's order (creation date). */
  orderBy: string
  desc: boolean
  offset: number
  size: number
}

export const EMPTY_QUERY: Readonly<FleetQuery> = Object.freeze({
  name: '',
  labels: [],
  commStatus: [],
  lifeCycleStates: [],
  type: '',
  serialNumber: '',
  imei: '',
  identifier: '',
  usageStatus: '',
  lastCommAfter: null,
  lastCommBefore: null,
  orderBy: '',
  desc: false,
  offset: 0,
  size: DEFAULT_SIZE
})

const TEXT_KEYS = ['name', 'type', 'serialNumber', 'imei', 'identifier'] as const

function list (text: string | undefined, allowed?: readonly string[]): string[] {
  const items = (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
  const known = allowed === undefined ? items : items.filter((s) => allowed.includes(s))
  return [...new Set(known)]
}

function time (text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return null
  return Number(text)
}

/** The view a hash's query describes; anything unknown or malformed falls back to its default. */
export function parseFleetQuery (params: Record<string, string | undefined>): FleetQuery {
  const q: FleetQuery = { ...EMPTY_QUERY, labels: list(params.labels) }
  for (const k of TEXT_KEYS) q[k] = (params[k] ?? '').trim()
  q.commStatus = list(params.commStatus, COMM_STATUSES)
  q.lifeCycleStates = list(params.lifeCycleStates, LIFE_CYCLE_STATES)
  q.usageStatus = (USAGE_STATUSES as readonly string[]).includes(params.usageStatus ?? '') ? params.usageStatus ?? '' : ''
  q.lastCommAfter = time(params.lastCommAfter)
  q.lastCommBefore = time(params.lastCommBefore)
  q.orderBy = (SORTS as readonly string[]).includes(params.orderBy ?? '') ? params.orderBy ?? '' : ''
  q.desc = q.orderBy !== '' && params.desc === '1'
  const size = Number(params.size)
  q.size = (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_SIZE
  const offset = Number(params.offset)
  q.offset = Number.isInteger(offset) && offset > 0 ? offset - (offset % q.size) : 0
  return q
}

/** The hash query of a view: only what differs from the defaults, in a stable order. */
export function fleetQueryParams (q: FleetQuery): Record<string, string> {
  const out: Record<string, string> = {}
  for (const k of TEXT_KEYS) if (q[k] !== '') out[k] = q[k]
  if (q.labels.length > 0) out.labels = q.labels.join(',')
  if (q.commStatus.length > 0) out.commStatus = q.commStatus.join(',')
  if (q.lifeCycleStates.length > 0) out.lifeCycleStates = q.lifeCycleStates.join(',')
  if (q.usageStatus !== '') out.usageStatus = q.usageStatus
  if (q.lastCommAfter !== null) out.lastCommAfter = String(q.lastCommAfter)
  if (q.lastCommBefore !== null) out.lastCommBefore = String(q.lastCommBefore)
  if (q.orderBy !== '') out.orderBy = q.orderBy
  if (q.orderBy !== '' && q.desc) out.desc = '1'
  if (q.size !== DEFAULT_SIZE) out.size = String(q.size)
  if (q.offset > 0) out.offset = String(q.offset)
  return out
}

/** The route of a view, for `navigate` and links: `/fleet` or `/fleet?name=pump&desc=1`. */
export function fleetPath (q: FleetQuery): string {
  const search = new URLSearchParams(fleetQueryParams(q)).toString()
  return search === '' ? '/fleet' : `/fleet?${search}`
}

/** A map parameter of docs/api.md (`key1:value1,key2:value2`; docs/api.md#using-the-api). */
function mapParam (pairs: Array<[string, string]>): string | undefined {
  const set = pairs.filter(([, v]) => v !== '')
  return set.length === 0 ? undefined : set.map(([k, v]) => `${k}:${v}`).join(',')
}

export type ApiQuery = Record<string, string | number | undefined>

/** The filters of GET /api/v1/systems (docs/api.md#systems), without paging, sort nor fields. */
export function fleetFilters (q: FleetQuery): ApiQuery {
  const out: ApiQuery = {
    name: q.name || undefined,
    type: q.type || undefined,
    labels: q.labels.length > 0 ? q.labels.join(',') : undefined,
    commStatus: q.commStatus.length > 0 ? q.commStatus.join(',') : undefined,
    lifeCycleStates: q.lifeCycleStates.length > 0 ? q.lifeCycleStates.join(',') : undefined,
    usageStatus: q.usageStatus || undefined,
    gateway: mapParam([['serialNumber', q.serialNumber], ['imei', q.imei]]),
    subscription: mapParam([['identifier', q.identifier]]),
    lastCommAfter: q.lastCommAfter ?? undefined,
    lastCommBefore: q.lastCommBefore ?? undefined
  }
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

/** The whole query of one page of the table: filters, `fields`, `orderBy` (docs/api.md#using-the-api), offset, size. */
export function fleetApiQuery (q: FleetQuery, fields: readonly string[]): ApiQuery {
  const out: ApiQuery = { ...fleetFilters(q), fields: fields.join(','), offset: q.offset, size: q.size }
  if (q.orderBy !== '') out.orderBy = `${q.orderBy}:${q.desc ? 'desc' : 'asc'}`
  return out
}

/**
 * The same filters as the `criteria` of a bulk operation (docs/operations.md#bulk-operations: lists as arrays, the
 * gateway and subscription maps as objects), so that an operation acts on every system the table lists; null when a
 * filter has no criteria counterpart (usageStatus).
 */
export function fleetCriteria (q: FleetQuery): Record<string, unknown> | null {
  if (q.usageStatus !== '') return null
  const gateway = { ...(q.serialNumber !== '' ? { serialNumber: q.serialNumber } : {}), ...(q.imei !== '' ? { imei: q.imei } : {}) }
  const c: Record<string, unknown> = {
    name: q.name || undefined,
    type: q.type || undefined,
    labels: q.labels.length > 0 ? [...q.labels] : undefined,
    commStatus: q.commStatus.length > 0 ? [...q.commStatus] : undefined,
    lifeCycleStates: q.lifeCycleStates.length > 0 ? [...q.lifeCycleStates] : undefined,
    gateway: Object.keys(gateway).length > 0 ? gateway : undefined,
    subscription: q.identifier !== '' ? { identifier: q.identifier } : undefined,
    lastCommAfter: q.lastCommAfter ?? undefined,
    lastCommBefore: q.lastCommBefore ?? undefined
  }
  for (const k of Object.keys(c)) if (c[k] === undefined) delete c[k]
  return c
}

/** Whether any filter is set (the empty state then says "no system matches" rather than "no system yet"). */
export function hasFilters (q: FleetQuery): boolean {
  return Object.keys(fleetFilters(q)).length > 0
}

/** Clicking a column's sort: ascending first, then descending, then the service's order again. */
export function nextSort (q: FleetQuery, field: string): Pick<FleetQuery, 'orderBy' | 'desc'> {
  if (q.orderBy !== field) return { orderBy: field, desc: false }
  if (!q.desc) return { orderBy: field, desc: true }
  return { orderBy: '', desc: false }
}
