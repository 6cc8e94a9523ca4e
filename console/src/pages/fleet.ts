// The fleet page (`#/fleet`): the systems table with the filters of docs/api.md#systems, sort,
// paging and chosen columns, the comm status at a glance (kept live by the stream), a map of the systems with a
// position, and the bulk actions on the selected systems. The whole view is in the hash (fleet/query.ts).
import { h, replace } from '../lib/dom.js'
import type { Page, PageContext, PageFactory } from '../page.js'
import { bulkBar, type Chosen, type SelectionState } from './fleet/actions.js'
import { MAX_SELECTED } from './fleet/bulk.js'
import { columnMenu } from './fleet/column-menu.js'
import { fieldsFor, loadColumns, saveColumns, type Column, type SystemRow } from './fleet/columns.js'
import { filterForm } from './fleet/filters.js'
import { mapPanel } from './fleet/map-panel.js'
import { fleetAlertBadge } from './alerts/badge.js'
import { fleetApiQuery, fleetCriteria, fleetPath, hasFilters, nextSort, PAGE_SIZES, parseFleetQuery, type FleetQuery } from './fleet/query.js'
import { statusSummary } from './fleet/status-summary.js'
import { fleetTable, type FleetTable } from './fleet/table.js'
import './fleet/fleet.css'

interface ListAnswer<T> { items: T[], count: number, size: number, offset: number }
interface StreamEvent { event: string, system?: string, status?: string, lastCommDate?: number, timestamp?: number }

function storage (): Storage | null {
  try { return window.localStorage } catch { return null }
}

function pager (q: FleetQuery, count: number, go: (next: FleetQuery) => void): HTMLElement {
  const first = count === 0 ? 0 : q.offset + 1
  const last = Math.min(q.offset + q.size, count)
  const size = h('select', { 'aria-label': 'Systems per page' }, ...PAGE_SIZES.map((n) => h('option', { value: n, selected: n === q.size }, `${n} per page`)))
  size.addEventListener('change', () => { go({ ...q, size: Number(size.value), offset: 0 }) })
  return h('nav', { class: 'pager', 'aria-label': 'Pages of systems' },
    h('span', { 'aria-live': 'polite' }, `${first}–${last} of ${count}`),
    h('button', { type: 'button', disabled: q.offset === 0, onclick: () => { go({ ...q, offset: Math.max(0, q.offset - q.size) }) } }, 'Previous page'),
    h('button', { type: 'button', disabled: last >= count, onclick: () => { go({ ...q, offset: q.offset + q.size }) } }, 'Next page'),
    size)
}

/**
 * The selection: the boxes ticked on this page, or (offered once the whole page is ticked) every system matching the
 * filters, which the operations then select by criteria rather than by at most 100 uids.
 */
interface Selection {
  criteria: Record<string, unknown> | null
  ticked: string[]
  allMatching: boolean
  /** Systems matching the filters, and rows on this page, as the last answer said. */
  matching: number
  pageRows: number
}

function chosenOf (s: Selection): Chosen | null {
  if (s.allMatching && s.criteria !== null) return { target: { criteria: s.criteria }, count: s.matching }
  const uids = s.ticked.slice(0, MAX_SELECTED)
  return uids.length === 0 ? null : { target: { uids }, count: uids.length }
}

function selectionState (s: Selection): SelectionState {
  const whole = s.ticked.length > 0 && s.ticked.length === s.pageRows && s.matching > s.pageRows && s.criteria !== null
  return { count: s.allMatching ? s.matching : s.ticked.length, all: s.allMatching, offerAll: !s.allMatching && whole ? s.matching : null }
}

/** "12 systems", or "1 system matches these filters". */
function countText (count: number, filtered: boolean): string {
  const one = count === 1
  return `${count} system${one ? '' : 's'}${filtered ? ` match${one ? 'es' : ''} these filters` : ''}`
}

/** Follows the comm status and last communication of these systems; answers how to stop (null: nothing followed). */
function followStatus (ctx: PageContext, uids: string[], update: (uid: string, status: string | null, date: number | null) => void): (() => void) | null {
  if (uids.length === 0) return null
  // Comm status changes and messages (the last communication), no data point (dataIds []): docs/stream.md.
  return ctx.stream.subscribe({ systems: { uids }, dataIds: [] }, (e: StreamEvent) => {
    if (e.system === undefined) return
    if (e.event === 'commStatus' && e.status !== undefined) update(e.system, e.status, e.lastCommDate ?? null)
    else if (e.event === 'message' && e.timestamp !== undefined) update(e.system, null, e.timestamp)
  })
}

export const fleetPage: PageFactory = (ctx: PageContext): Page => {
  const q = parseFleetQuery(ctx.params)
  let disposed = false
  let unsubscribe: (() => void) | null = null
  let loads = 0
  const alive = (): boolean => !disposed
  const go = (next: FleetQuery): void => { ctx.navigate(fleetPath(next)) }
  const fail = (err: unknown): void => { if (!disposed) ctx.notify(err instanceof Error ? err : String(err), 'error') }

  const summary = h('p', { class: 'fleet-count', 'aria-live': 'polite' }, 'Loading…')
  const tableBox = h('div', { class: 'fleet-table-box' })
  const pagerBox = h('div', {})
  let table: FleetTable | null = null
  const sel: Selection = { criteria: fleetCriteria(q), ticked: [], allMatching: false, matching: 0, pageRows: 0 }
  const showSelection = (): void => { bar.setState(selectionState(sel)) }
  const bar = bulkBar(ctx, () => chosenOf(sel), (all) => { sel.allMatching = all; showSelection() })

  function follow (uids: string[]): void {
    unsubscribe?.()
    unsubscribe = followStatus(ctx, uids, (uid, status, date) => { table?.updateStatus(uid, status, date) })
  }

  function load (columns: Column[]): void {
    const mine = ++loads
    table = fleetTable({ columns, query: q, onSort: (field) => { go({ ...q, ...nextSort(q, field), offset: 0 }) }, onSelection: (uids) => { sel.ticked = uids; sel.allMatching = false; showSelection() } })
    replace(tableBox, table.el)
    table.setRows(null)
    const current = table
    ctx.api.get<ListAnswer<SystemRow>>('/api/v1/systems', fleetApiQuery(q, fieldsFor(columns))).then((answer) => {
      if (disposed || mine !== loads) return
      sel.matching = answer.count
      sel.pageRows = answer.items.length
      current.setRows(answer.items, hasFilters(q) ? 'No system matches these filters.' : 'No system yet: register or create systems through the API.')
      summary.textContent = countText(answer.count, hasFilters(q))
      replace(pagerBox, pager(q, answer.count, go))
      follow(answer.items.map((s) => s.uid))
    }, (err: unknown) => {
      if (disposed || mine !== loads) return
      current.setRows([], 'The systems could not be loaded.')
      summary.textContent = ''
      fail(err)
    })
  }

  let columns = loadColumns(storage())
  const menu = columnMenu(columns, (next) => {
    columns = next
    saveColumns(storage(), next)
    load(columns)
  })

  replace(ctx.root, h('div', { class: 'fleet-page' },
    h('header', { class: 'page-header' }, h('h1', {}, 'Fleet'), fleetAlertBadge(ctx, alive), summary),
    statusSummary(ctx, q, alive),
    filterForm(q, go),
    h('div', { class: 'fleet-layout' },
      h('section', { class: 'fleet-systems', 'aria-label': 'Systems' },
        h('div', { class: 'fleet-toolbar' }, bar.el, menu),
        tableBox,
        pagerBox),
      mapPanel(ctx, q, alive, fail))))
  load(columns)

  return {
    dispose () {
      disposed = true
      unsubscribe?.()
    }
  }
}
