// The columns the fleet table can show, the `fields` each needs from GET /api/v1/systems (docs/api.md#systems: "a
// system in a list response carries only the requested fields"), and the operator's choice kept in localStorage. No DOM
// here: the table renders the text these give.
import { formatDate, formatShort, formatValue as str } from '../../lib/format.js'

/** A system as a list answers it: only the fields asked for are there. */
export interface SystemRow {
  uid: string
  name?: string | null
  commStatus?: string | null
  lifeCycleState?: string | null
  type?: string | null
  labels?: string[] | null
  lastCommDate?: number | null
  creationDate?: number | null
  syncStatus?: string | null
  gateway?: { serialNumber?: string | null, imei?: string | null, type?: string | null } | null
  subscription?: { identifier?: string | null, operator?: string | null, ipAddress?: string | null } | null
  data?: Record<string, unknown> | null
}

export interface Column {
  id: string
  label: string
  /** The attribute of `fields` the column reads. */
  field: string
  /** The sortable attribute (docs/api.md#systems), when the service sorts on it. */
  sort?: string
  text: (s: SystemRow) => string
  /** The full text where the cell shortens it (a date of today shows only its time). */
  title?: (s: SystemRow) => string
}

const date = (v: number | null | undefined): string => v === null || v === undefined ? '' : formatShort(v)
const fullDate = (v: number | null | undefined): string => v === null || v === undefined ? '' : formatDate(v)

export const COLUMNS: readonly Column[] = [
  { id: 'name', label: 'Name', field: 'name', sort: 'name', text: (s) => str(s.name) },
  { id: 'commStatus', label: 'Comm status', field: 'commStatus', text: (s) => str(s.commStatus) },
  { id: 'lastCommDate', label: 'Last communication', field: 'lastCommDate', sort: 'lastCommDate', text: (s) => date(s.lastCommDate), title: (s) => fullDate(s.lastCommDate) },
  { id: 'lifeCycleState', label: 'Life cycle', field: 'lifeCycleState', text: (s) => str(s.lifeCycleState) },
  { id: 'labels', label: 'Labels', field: 'labels', text: (s) => (s.labels ?? []).join(', ') },
  { id: 'type', label: 'Type', field: 'type', text: (s) => str(s.type) },
  { id: 'serialNumber', label: 'Serial number', field: 'gateway', sort: 'serialNumber', text: (s) => str(s.gateway?.serialNumber) },
  { id: 'imei', label: 'IMEI', field: 'gateway', sort: 'imei', text: (s) => str(s.gateway?.imei) },
  { id: 'identifier', label: 'ICCID', field: 'subscription', sort: 'identifier', text: (s) => str(s.subscription?.identifier) },
  { id: 'operator', label: 'Operator', field: 'subscription', text: (s) => str(s.subscription?.operator) },
  { id: 'ipAddress', label: 'IP address', field: 'subscription', sort: 'ipAddress', text: (s) => str(s.subscription?.ipAddress) },
  { id: 'rssi', label: 'RSSI', field: 'data', sort: 'data.rssi', text: (s) => str(s.data?.rssi) },
  { id: 'signalStrength', label: 'Signal', field: 'data', text: (s) => str(s.data?.signalStrength) },
  { id: 'networkServiceType', label: 'Network', field: 'data', text: (s) => str(s.data?.networkServiceType) },
  { id: 'firmwareVersion', label: 'Firmware', field: 'data', text: (s) => str(s.data?.firmwareVersion) },
  { id: 'syncStatus', label: 'Sync status', field: 'syncStatus', text: (s) => str(s.syncStatus) },
  { id: 'creationDate', label: 'Created', field: 'creationDate', sort: 'creationDate', text: (s) => date(s.creationDate), title: (s) => fullDate(s.creationDate) }
]

export const DEFAULT_COLUMNS: readonly string[] = ['name', 'commStatus', 'lastCommDate', 'lifeCycleState', 'labels', 'serialNumber']
const STORAGE_KEY = 'fleet.console.fleetColumns'

/** The part of localStorage used here (a fake in the unit tests). */
export interface KeyValueStore { getItem: (key: string) => string | null, setItem: (key: string, value: string) => void }

/** The chosen columns, in the table's order; the defaults when nothing (or nothing readable) was kept. */
export function loadColumns (store: KeyValueStore | null): Column[] {
  let ids: unknown = null
  try { ids = JSON.parse(store?.getItem(STORAGE_KEY) ?? 'null') } catch { ids = null }
  const chosen = Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [...DEFAULT_COLUMNS]
  const columns = COLUMNS.filter((c) => chosen.includes(c.id))
  return columns.length > 0 ? columns : COLUMNS.filter((c) => DEFAULT_COLUMNS.includes(c.id))
}

export function saveColumns (store: KeyValueStore | null, columns: readonly Column[]): void {
  try { store?.setItem(STORAGE_KEY, JSON.stringify(columns.map((c) => c.id))) } catch { /* storage full or refused: the choice lasts this page only */ }
}

/** What GET /api/v1/systems must answer for these columns, the map's position and the status badge. */
export function fieldsFor (columns: readonly Column[]): string[] {
  return [...new Set(['uid', 'name', 'commStatus', ...columns.map((c) => c.field)])]
}
