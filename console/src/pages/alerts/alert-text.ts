// Alerts in words and in order (docs/console.md, Alerts): which alerts are open, the history newest first a page at a
// time, the values that raised an alert, the badge's count. No DOM here: the pages and their tests share it.
import { formatValue } from '../../lib/format.js'
import type { Alert, AlertAttribute } from './types.js'

/**
 * Open: its conditions still hold and nobody has acknowledged it yet. An acknowledged alert, or one whose conditions
 * stopped (a stateless rule's alert is closed at once), is history.
 */
export const isOpen = (a: Alert): boolean => a.state === 'OPEN' && !a.acknowledged

/**
 * How many alerts one read asks for: the most GET /api/v2/alerts answers at once (docs/alerts.md#alerts). The lists
 * say when a read came back full, rather than reading page after page of a company with thousands of alerts.
 */
export const FETCH_SIZE = 500

const ofTarget = (targetId: string | undefined): Record<string, string> => targetId === undefined || targetId === '' ? {} : { targetId }

/** The GET /api/v2/alerts query of the open alerts, of one system or of the company. */
export function openQuery (targetId?: string): Record<string, string | number> {
  return { state: 'OPEN', acknowledged: 'false', ...ofTarget(targetId), size: FETCH_SIZE }
}

/** Newest first; alerts raised at the same time keep one order, by uid. */
export const newestFirst = (alerts: readonly Alert[]): Alert[] =>
  [...alerts].sort((a, b) => b.date - a.date || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0))

/**
 * The history a page at a time: what is not open, newest first, `size` from `offset` (the last page when the history
 * has shrunk below it since the address was made), and how many there are.
 */
export function historyPage (alerts: readonly Alert[], offset: number, size: number): { items: Alert[], count: number, offset: number } {
  const past = newestFirst(alerts.filter((a) => !isOpen(a)))
  const start = offset < past.length ? offset : Math.max(0, Math.floor((past.length - 1) / size) * size)
  return { items: past.slice(start, start + size), count: past.length, offset: start }
}

/** How far back the history reaches (its dateAfter), by the choice of the page. */
export const HISTORY_RANGES: Record<string, { label: string, ms: number }> = {
  day: { label: 'Last 24 hours', ms: 86_400_000 },
  week: { label: 'Last 7 days', ms: 7 * 86_400_000 },
  month: { label: 'Last 30 days', ms: 30 * 86_400_000 }
}
export const DEFAULT_RANGE = 'week'

/** The two reads of the history within the range: the closed alerts, and the open ones acknowledged. */
export function historyQueries (range: string, now: number, targetId?: string): Array<Record<string, string | number>> {
  const ms = (HISTORY_RANGES[range] ?? HISTORY_RANGES[DEFAULT_RANGE] ?? { ms: 0 }).ms
  const common = { ...ofTarget(targetId), dateAfter: now - ms, size: FETCH_SIZE }
  return [{ state: 'CLOSED', ...common }, { state: 'OPEN', acknowledged: 'true', ...common }]
}

function attributeValue (a: AlertAttribute): string {
  const v = a.value.valueNum ?? a.value.valueStr
  return formatValue(v)
}

/** The values that made the conditions true: `engine.temp = 95.5, system.commStatus = ERROR`. */
export function valuesText (attributes: readonly AlertAttribute[]): string {
  return attributes.map((a) => `${a.id.name.replace(/^DATA\./, '')} = ${attributeValue(a)}`).join(', ')
}

/** The badge's words: "No open alert", "1 open alert", "3 open alerts", and for a full read "500 or more open alerts". */
export function openCountText (n: number): string {
  if (n >= FETCH_SIZE) return `${FETCH_SIZE} or more open alerts`
  return n === 0 ? 'No open alert' : `${n} open alert${n === 1 ? '' : 's'}`
}

/**
 * Who acknowledged: the service names a user by uid (or an API client by its id); the signed-in user is shown by their
 * e-mail, a user object by its e-mail, name or uid.
 */
export function acknowledgedByText (by: unknown, me: { uid: string, email: string }): string {
  if (typeof by === 'string') return by === me.uid ? me.email : by
  if (typeof by === 'object' && by !== null) {
    const u = by as { email?: unknown, name?: unknown, uid?: unknown }
    if (u.uid === me.uid) return me.email
    for (const v of [u.email, u.name, u.uid]) if (typeof v === 'string' && v !== '') return v
  }
  return ''
}

/** The alert's state in words for the history: "Closed", "Open, acknowledged". */
export function stateText (a: Alert): string {
  if (a.state === 'OPEN') return a.acknowledged ? 'Open, acknowledged' : 'Open'
  return a.acknowledged ? 'Closed, acknowledged' : 'Closed'
}

/** The Alerts page's view, kept in the address (`#/alerts?targetId=...&range=month&offset=20`). */
export interface AlertsView { targetId: string, range: string, offset: number }

export function parseAlertsView (params: Record<string, string>): AlertsView {
  const range = params.range !== undefined && params.range in HISTORY_RANGES ? params.range : DEFAULT_RANGE
  return { targetId: params.targetId ?? '', range, offset: Math.max(0, Math.floor(Number(params.offset ?? 0)) || 0) }
}

export function alertsPath (v: AlertsView): string {
  const q = new URLSearchParams()
  if (v.targetId !== '') q.set('targetId', v.targetId)
  if (v.range !== DEFAULT_RANGE) q.set('range', v.range)
  if (v.offset > 0) q.set('offset', String(v.offset))
  const s = q.toString()
  return `/alerts${s === '' ? '' : `?${s}`}`
}
