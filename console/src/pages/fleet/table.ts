// The systems table: a real <table> (column headers with scope, sort buttons with aria-sort), a checkbox per row and
// one to select the whole page, the comm status as a badge and the name as a link to the system.
import { h, replace } from '../../lib/dom.js'
import { commStatusBadge, setCommStatus } from '../../lib/comm-status.js'
import type { Column, SystemRow } from './columns.js'
import type { FleetQuery } from './query.js'

export interface FleetTable {
  el: HTMLElement
  /** Rows of this page; null while loading. */
  setRows: (rows: SystemRow[] | null, empty?: string) => void
  selected: () => string[]
  /**
   * A `commStatus` event of the live stream (or a `message`, with a null status): the badge and the last
   * communication of that row change in place.
   */
  updateStatus: (uid: string, status: string | null, lastCommDate: number | null) => void
}

export interface FleetTableOptions {
  columns: readonly Column[]
  query: FleetQuery
  onSort: (field: string) => void
  onSelection: (uids: string[]) => void
}

function header (col: Column, q: FleetQuery, onSort: (field: string) => void): HTMLTableCellElement {
  if (col.sort === undefined) return h('th', { scope: 'col' }, col.label)
  const sorted = q.orderBy === col.sort
  const dir = sorted ? (q.desc ? 'descending' : 'ascending') : 'none'
  const arrow = sorted ? (q.desc ? ' ▼' : ' ▲') : ''
  const sortField = col.sort
  return h('th', { scope: 'col', 'aria-sort': dir },
    h('button', { type: 'button', class: 'sort', onclick: () => { onSort(sortField) }, title: `Sort by ${col.label}` }, col.label, h('span', { 'aria-hidden': 'true' }, arrow)))
}

export function fleetTable (opts: FleetTableOptions): FleetTable {
  const { columns } = opts
  const all = h('input', { type: 'checkbox', 'aria-label': 'Select all systems on this page' })
  const tbody = h('tbody', {})
  const table = h('table', { class: 'data fleet-table', 'aria-label': 'Systems' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'select' }, all), ...columns.map((c) => header(c, opts.query, opts.onSort)))),
    tbody)
  const el = h('div', { class: 'table-wrap' }, table)
  const boxes = new Map<string, HTMLInputElement>()
  const statusCells = new Map<string, { badge: HTMLElement | null, lastComm: HTMLElement | null }>()

  const selected = (): string[] => [...boxes].filter(([, b]) => b.checked).map(([uid]) => uid)
  const changed = (): void => {
    const n = selected().length
    all.checked = n > 0 && n === boxes.size
    all.indeterminate = n > 0 && n < boxes.size
    opts.onSelection(selected())
  }
  all.addEventListener('change', () => {
    for (const b of boxes.values()) b.checked = all.checked
    changed()
  })

  function row (s: SystemRow): HTMLTableRowElement {
    const name = s.name ?? s.uid
    const box = h('input', { type: 'checkbox', 'aria-label': `Select ${name}`, onchange: changed })
    boxes.set(s.uid, box)
    const refs: { badge: HTMLElement | null, lastComm: HTMLElement | null } = { badge: null, lastComm: null }
    statusCells.set(s.uid, refs)
    const cells = columns.map((c) => {
      if (c.id === 'name') return h('th', { scope: 'row' }, h('a', { href: `#/systems/${encodeURIComponent(s.uid)}` }, name))
      if (c.id === 'commStatus') {
        refs.badge = commStatusBadge(s.commStatus)
        return h('td', {}, refs.badge)
      }
      const td = h('td', { title: c.title?.(s) || null }, c.text(s))
      if (c.id === 'lastCommDate') refs.lastComm = td
      return td
    })
    return h('tr', {}, h('td', { class: 'select' }, box), ...cells)
  }

  return {
    el,
    setRows (rows, empty = 'No system.') {
      boxes.clear()
      statusCells.clear()
      all.checked = false
      all.indeterminate = false
      all.disabled = rows === null || rows.length === 0
      table.setAttribute('aria-busy', String(rows === null))
      const span = columns.length + 1
      if (rows === null) replace(tbody, h('tr', {}, h('td', { colspan: span, class: 'table-state' }, 'Loading systems…')))
      else if (rows.length === 0) replace(tbody, h('tr', {}, h('td', { colspan: span, class: 'table-state' }, empty)))
      else replace(tbody, rows.map(row))
      opts.onSelection([])
    },
    selected,
    updateStatus (uid, status, lastCommDate) {
      const refs = statusCells.get(uid)
      if (refs === undefined) return
      if (refs.badge !== null && status !== null) setCommStatus(refs.badge, status)
      const col = columns.find((c) => c.id === 'lastCommDate')
      if (refs.lastComm !== null && col !== undefined && lastCommDate !== null) {
        refs.lastComm.textContent = col.text({ uid, lastCommDate })
        refs.lastComm.title = col.title?.({ uid, lastCommDate }) ?? ''
      }
    }
  }
}
