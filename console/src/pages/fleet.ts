// The fleet page (`#/fleet`, issue 15): the systems table with the filters of fleet-api.md §Find systems, sort,
// paging and chosen columns, the comm status at a glance (kept live by the stream), a map of the systems with a
// position, and the bulk actions on the selected systems. The whole view is in the hash (fleet/query.ts).
import { h, replace } from '../lib/dom.js'
import type { Page, PageContext, PageFactory } from '../page.js'
import { bulkBar, type Chosen } from './fleet/actions.js'
import { MAX_SELECTED } from './fleet/bulk.js'
import { columnMenu } from './fleet/column-menu.js'
import { fieldsFor, loadColumns, saveColumns, type Column, type SystemRow } from './fleet/columns.js'
import { filterForm } from './fleet/filters.js'
import { mapPanel } from './fleet/map-panel.js'
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
  // The selection: the boxes ticked on this page, or (offered once the whole page is ticked) every system matching
  // the filters, which the operations then select by criteria rather than by at most 100 uids.
  const criteria = fleetCriteria(q)
  let ticked: string[] = []
  let allMatching = false
  let matching = 0
  let pageRows = 0
  const chosen = (): Chosen | null => {
    if (allMatching && criteria !== null) return { target: { criteria }, count: matching }
    const uids = ticked.slice(0, MAX_SELECTED)
    return uids.length === 0 ? null : { target: { uids }, count: uids.length }
  }
  const showSelection = (): void => {
    const whole = ticked.length > 0 && ticked.length === pageRows && matching > pageRows && criteria !== null
    bar.setState({ count: allMatching ? matching : ticked.length, all: allMatching, offerAll: !allMatching && whole ? matching : null })
  }
  const bar = bulkBar(ctx, chosen, (all) => { allMatching = all; showSelection() })

  function follow (uids: string[]): void {
    unsubscribe?.()
    unsubscribe = null
    if (uids.length === 0) return
    // Comm status changes and messages (the last communication), no data point (dataIds []): README "Live stream".
    unsubscribe = ctx.stream.subscribe({ systems: { uids }, dataIds: [] }, (e: StreamEvent) => {
      if (e.system === undefined) return
      if (e.event === 'commStatus' && e.status !== undefined) table?.updateStatus(e.system, e.status, e.lastCommDate ?? null)
      else if (e.event === 'message' && e.timestamp !== undefined) table?.updateStatus(e.system, null, e.timestamp)
    })
  }

  function load (columns: Column[]): void {
    const mine = ++loads
    table = fleetTable({ columns, query: q, onSort: (field) => { go({ ...q, ...nextSort(q, field), offset: 0 }) }, onSelection: (uids) => { ticked = uids; allMatching = false; showSelection() } })
    replace(tableBox, table.el)
    table.setRows(null)
    const current = table
    ctx.api.get<ListAnswer<SystemRow>>('/api/v1/systems', fleetApiQuery(q, fieldsFor(columns))).then((answer) => {
      if (disposed || mine !== loads) return
      matching = answer.count
      pageRows = answer.items.length
      current.setRows(answer.items, hasFilters(q) ? 'No system matches these filters.' : 'No system yet: register or create systems through the API.')
      const one = answer.count === 1
      summary.textContent = `${answer.count} system${one ? '' : 's'}${hasFilters(q) ? ` match${one ? 'es' : ''} these filters` : ''}`
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
    h('header', { class: 'page-header' }, h('h1', {}, 'Fleet'), summary),
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
