// The system's description (docs/api.md#systems, docs/api.md#applications-and-templates): what it is, its gateway,
// its subscription and its applications, as definition lists and a table.
import { h } from '../../lib/dom.js'
import { formatBytes, formatDate, formatValue as str } from '../../lib/format.js'

type Text = string | null | undefined

export interface SystemView {
  uid: string
  name?: Text
  type?: Text
  lifeCycleState?: Text
  commStatus?: Text
  syncStatus?: Text
  labels?: string[] | null
  creationDate?: number | null
  activationDate?: number | null
  lastCommDate?: number | null
  lastStateChangeDate?: number | null
  metadata?: Record<string, string> | null
  gateway?: Record<string, unknown> | null
  subscription?: Record<string, unknown> | null
  applications?: Array<{ uid: string, name?: Text, revision?: Text, type?: Text, category?: Text }> | null
  data?: Record<string, unknown> | null
  heartbeat?: { state?: Text, period?: Text } | null
  offer?: { name?: Text } | null
  dataUsage?: { bytesTotal?: number | null, timestamp?: number | null, status?: Text } | null
  /** Device credentials per protocol; the API gives null for each secret to callers without entities.systems.edit. */
  communication?: { lwm2m?: { pskIdentity?: Text, pskSecretHex?: Text } | null } & Record<string, unknown> | null
}

const date = (v: number | null | undefined): string => typeof v === 'number' ? formatDate(v) : ''

/** A definition list of the pairs that have a value; a dash where none has. */
export function definitions (pairs: Array<[string, string | Node]>): HTMLElement {
  const shown = pairs.filter(([, v]) => typeof v !== 'string' || v !== '')
  if (shown.length === 0) return h('p', { class: 'empty' }, 'Nothing recorded.')
  return h('dl', { class: 'details' }, ...shown.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))
}

export function card (title: string, ...content: Node[]): HTMLElement {
  const id = `system-${title.toLowerCase().replace(/\W+/g, '-')}`
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...content)
}

export function detailsCard (s: SystemView): HTMLElement {
  const labels = (s.labels ?? []).length === 0 ? '' : h('span', { class: 'labels' }, ...(s.labels ?? []).map((l) => h('span', { class: 'label-chip' }, l)))
  const metadata = Object.entries(s.metadata ?? {}).map(([k, v]): [string, string] => [`Metadata ${k}`, v])
  const usage = s.dataUsage
  return card('Details', definitions([
    ['uid', s.uid],
    ['Type', str(s.type)],
    ['Life cycle state', str(s.lifeCycleState)],
    ['Sync status', str(s.syncStatus)],
    ['Labels', labels],
    ['Created', date(s.creationDate)],
    ['Activated', date(s.activationDate)],
    ['Last state change', date(s.lastStateChangeDate)],
    ['Heartbeat', s.heartbeat === null || s.heartbeat === undefined ? '' : `${str(s.heartbeat.state)} every ${str(s.heartbeat.period)}`],
    ['Offer', str(s.offer?.name)],
    ['Data this month', typeof usage?.bytesTotal === 'number' ? `${formatBytes(usage.bytesTotal)} (${str(usage.status).toLowerCase().replace(/_/g, ' ')})` : ''],
    ...metadata
  ]))
}

const GATEWAY: Array<[string, string]> = [['serialNumber', 'Serial number'], ['imei', 'IMEI'], ['macAddress', 'MAC address'], ['type', 'Type'], ['uid', 'uid'], ['creationDate', 'Created']]
const SUBSCRIPTION: Array<[string, string]> = [['identifier', 'ICCID'], ['operator', 'Operator'], ['state', 'State'], ['mobileNumber', 'Mobile number'],
  ['networkIdentifier', 'IMSI'], ['ipAddress', 'IP address'], ['technology', 'Technology'], ['formFactor', 'Form factor'], ['eid', 'EID'], ['uid', 'uid']]

function fieldsOf (o: Record<string, unknown> | null | undefined, names: Array<[string, string]>): Array<[string, string]> {
  return names.map(([k, label]) => [label, k === 'creationDate' ? date(o?.[k] as number | null) : str(o?.[k])])
}

export function gatewayCard (s: SystemView): HTMLElement {
  return card('Gateway', s.gateway == null ? h('p', { class: 'empty' }, 'No gateway.') : definitions(fieldsOf(s.gateway, GATEWAY)))
}

export function subscriptionCard (s: SystemView): HTMLElement {
  return card('Subscription', s.subscription == null ? h('p', { class: 'empty' }, 'No subscription.') : definitions(fieldsOf(s.subscription, SUBSCRIPTION)))
}

export function applicationsCard (s: SystemView): HTMLElement {
  const apps = s.applications ?? []
  if (apps.length === 0) return card('Applications', h('p', { class: 'empty' }, 'No application.'))
  // A list, not a table: the card is a quarter of the page wide, and four columns did not fit in it.
  return card('Applications', h('ul', { class: 'app-list', 'aria-label': 'Applications' },
    ...apps.map((a) => h('li', {}, h('strong', {}, str(a.name)), ' ', h('span', { class: 'app-revision' }, `revision ${str(a.revision)}`),
      h('div', { class: 'app-kind' }, [str(a.type), str(a.category)].filter((t) => t !== '').join(' · '))))))
}
