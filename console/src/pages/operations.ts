// The operations page (`#/operations`): the company's operations, newest first (docs/operations.md#bulk-operations: GET
// /operations), filtered by state and kind, page by page; each row's progress bar and counters follow the stream's
// `operation` events while the page is open.
import { h, replace } from '../lib/dom.js'
import { formatDate } from '../lib/format.js'
import type { Page, PageContext } from '../page.js'
import { OPERATION_STATE_TEXT, OPERATION_TYPE_TEXT, progress, stateText, typeText, type Operation, type OperationEvent, type Progress } from './operations/view.js'
import './operations/operations.css'

interface ListAnswer<T> { items: T[], count: number, size: number, offset: number }

const SIZE = 20
const RELOAD_MS = 1000

function choice (label: string, options: Record<string, string>, value: string | undefined): HTMLSelectElement {
  return h('select', { 'aria-label': label },
    h('option', { value: '' }, `Any ${label.toLowerCase()}`),
    ...Object.entries(options).map(([v, text]) => h('option', { value: v, selected: v === value }, text)))
}

export function operationsPage (ctx: PageContext): Page {
  const offset = Math.max(0, Number(ctx.params.offset ?? 0) || 0)
  const state = choice('State', OPERATION_STATE_TEXT, ctx.params.states)
  const type = choice('Kind', OPERATION_TYPE_TEXT, ctx.params.operationTypes)
  const go = (next: { offset?: number }): void => {
    const q = new URLSearchParams()
    if (state.value !== '') q.set('states', state.value)
    if (type.value !== '') q.set('operationTypes', type.value)
    if ((next.offset ?? 0) > 0) q.set('offset', String(next.offset))
    const s = q.toString()
    ctx.navigate(`/operations${s === '' ? '' : `?${s}`}`)
  }
  state.addEventListener('change', () => { go({}) })
  type.addEventListener('change', () => { go({}) })

  const body = h('div', { class: 'op-list' }, h('p', { class: 'loading', role: 'status' }, 'Loading operations…'))
  replace(ctx.root,
    h('div', { class: 'page-header' }, h('h1', {}, 'Operations')),
    h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Filters' }, state, type),
    body)

  const bars = new Map<string, Progress>()
  let reloading: ReturnType<typeof setTimeout> | undefined
  const unsubscribe = ctx.stream.subscribe<OperationEvent>({ operations: { all: true } }, (e) => {
    if (e.event !== 'operation') return
    const bar = bars.get(e.uid)
    const row = bar?.element.closest('tr')
    if (bar === undefined || row === null || row === undefined) {
      // A new operation: the first page shows it (once a second at most, however many start).
      if (offset === 0 && !bars.has(e.uid)) reloading ??= setTimeout(() => { reloading = undefined; load() }, RELOAD_MS)
      return
    }
    const total = Number(row.dataset.total ?? 0)
    bar.update(e.state, e.counters, total)
    const cell = row.querySelector('.op-state')
    if (cell !== null) cell.textContent = stateText(e.state)
  })

  const load = (): void => {
    ctx.api.get<ListAnswer<Operation>>('/api/v1/operations', {
      states: state.value || undefined, operationTypes: type.value || undefined, offset, size: SIZE
    }).then((answer) => {
      if (answer.items.length === 0) {
        replace(body, h('p', { class: 'empty' }, answer.count === 0 && offset === 0 ? 'No operation yet. Reboots, settings and the other bulk actions of the fleet page show here.' : 'No operation matches these filters.'))
        return
      }
      bars.clear()
      const rows = answer.items.map((op) => {
        const bar = progress(`Progress of ${typeText(op.operationType)} ${formatDate(op.createdAt)}`)
        bar.update(op.state, op.counters, op.total)
        bars.set(op.uid, bar)
        return h('tr', { 'data-total': op.total },
          h('td', {}, h('a', { href: `#/operations/${encodeURIComponent(op.uid)}` }, typeText(op.operationType))),
          h('td', { class: 'op-state' }, stateText(op.state)),
          h('td', {}, formatDate(op.createdAt)),
          h('td', {}, op.endDate === null ? '' : formatDate(op.endDate)),
          h('td', { class: 'num' }, op.total),
          h('td', { class: 'op-progress-cell' }, bar.element),
          h('td', {}, op.user?.email ?? ''))
      })
      const last = Math.min(offset + answer.items.length, answer.count)
      replace(body,
        h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Operations' },
          h('thead', {}, h('tr', {}, ...['Kind', 'State', 'Created', 'Ended', 'Systems', 'Progress', 'By'].map((t) =>
            h('th', { scope: 'col', class: t === 'Systems' ? 'num' : null }, t)))),
          h('tbody', {}, ...rows))),
        h('nav', { class: 'pager', 'aria-label': 'Pages of operations' },
          h('span', {}, `${offset + 1}–${last} of ${answer.count}`),
          h('button', { type: 'button', disabled: offset === 0, onclick: () => { go({ offset: Math.max(0, offset - SIZE) }) } }, 'Previous page'),
          h('button', { type: 'button', disabled: last >= answer.count, onclick: () => { go({ offset: offset + SIZE }) } }, 'Next page')))
    }).catch((err: unknown) => {
      replace(body, h('p', { class: 'empty' }, 'The operations could not be loaded.'))
      ctx.notify(err as Error)
    })
  }
  load()

  return { dispose: () => { unsubscribe(); clearTimeout(reloading) } }
}
