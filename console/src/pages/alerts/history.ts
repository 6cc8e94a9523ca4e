// The Alerts page's history: the alerts closed or acknowledged within the chosen range (two reads of GET
// /api/v2/alerts with dateAfter, as the API has no "closed or acknowledged" filter), newest first, a page at a time;
// a closed one not yet acknowledged can still be.
import { h, replace } from '../../lib/dom.js'
import { formatDate } from '../../lib/format.js'
import { pager } from '../../lib/paging.js'
import type { PageContext } from '../../page.js'
import { acknowledgedByText, FETCH_SIZE, HISTORY_RANGES, historyPage, historyQueries, stateText, valuesText, type AlertsView } from './alert-text.js'
import { acknowledgeButton, ruleCell, systemLink } from './open-alerts.js'
import type { Alert } from './types.js'

const SIZE = 20

function table (ctx: PageContext, alerts: readonly Alert[], changed: () => void): HTMLElement {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data alerts-table', 'aria-label': 'Alert history' },
    h('thead', {}, h('tr', {}, ...['Rule', 'System', 'Raised', 'Closed', 'State', 'Values', 'Acknowledged by'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...alerts.map((a) => h('tr', {},
      ruleCell(a),
      h('td', {}, systemLink(a)),
      h('td', {}, formatDate(a.date)),
      h('td', {}, a.closedDate === null ? '' : formatDate(a.closedDate)),
      h('td', {}, stateText(a)),
      h('td', { class: 'alert-values' }, valuesText(a.attributes)),
      h('td', { class: 'actions' }, a.acknowledged ? acknowledgedByText(a.acknowledgedBy, ctx.session.user) : acknowledgeButton(ctx, a, changed)))))))
}

export interface HistorySection {
  el: HTMLElement
  load: () => void
}

export function historySection (ctx: PageContext, view: AlertsView, go: (next: AlertsView) => void, changed: () => void): HistorySection {
  const range = h('select', { 'aria-label': 'History range' },
    ...Object.entries(HISTORY_RANGES).map(([value, r]) => h('option', { value, selected: value === view.range }, r.label)))
  range.addEventListener('change', () => { go({ ...view, range: range.value, offset: 0 }) })
  const body = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading the history…'))
  const el = h('section', { 'aria-labelledby': 'alert-history-title' },
    h('div', { class: 'page-header' }, h('h2', { id: 'alert-history-title' }, 'History'), range),
    body)
  const load = (): void => {
    const reads = historyQueries(view.range, Date.now(), view.targetId).map(async (q) => await ctx.api.get<Alert[]>('/api/v2/alerts', q))
    Promise.all(reads).then((answers) => {
      const page = historyPage(answers.flat(), view.offset, SIZE)
      if (page.count === 0) { replace(body, h('p', { class: 'empty' }, 'No alert closed or acknowledged in this period.')); return }
      const full = answers.some((a) => a.length >= FETCH_SIZE)
      replace(body, table(ctx, page.items, changed),
        full ? h('p', { class: 'hint' }, `The ${FETCH_SIZE} newest closed alerts and ${FETCH_SIZE} newest acknowledged ones of the period at most are shown: choose a shorter period for older ones.`) : null,
        pager('Pages of the alert history', { offset: page.offset, shown: page.items.length, count: page.count, size: SIZE }, (offset) => { go({ ...view, offset }) }))
    }).catch((err: unknown) => {
      replace(body, h('p', { class: 'empty' }, 'The history could not be loaded.'))
      ctx.notify(err as Error, 'error')
    })
  }
  return { el, load }
}
