// The fleet page's filter form: the useful filters of docs/api.md#systems. Applying it goes to the new view's
// hash (the page is drawn again from it), so the browser's back button and a copied link both work.
import { h } from '../../lib/dom.js'
import { COMM_STATUS_TEXT } from '../../lib/comm-status.js'
import { COMM_STATUSES, EMPTY_QUERY, LIFE_CYCLE_STATES, USAGE_STATUSES, type FleetQuery } from './query.js'

const text = (name: string, label: string, value: string, placeholder = ''): HTMLElement =>
  h('label', { class: 'filter' }, h('span', {}, label), h('input', { type: 'search', name, value, placeholder, autocomplete: 'off' }))

function select (name: string, label: string, value: string, options: Array<[string, string]>): HTMLElement {
  const el = h('select', { name }, ...options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)))
  return h('label', { class: 'filter' }, h('span', {}, label), el)
}

/** A date input's value (local day) from epoch ms, and back; the after bound is the day's start, before its end. */
const dayOf = (ms: number | null): string => {
  if (ms === null) return ''
  const d = new Date(ms)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}
const dayStart = (v: string): number | null => v === '' ? null : new Date(`${v}T00:00:00`).getTime()
const dayEnd = (v: string): number | null => v === '' ? null : new Date(`${v}T23:59:59.999`).getTime()

const human = (s: string): string => s.charAt(0) + s.slice(1).toLowerCase().replace(/_/g, ' ')

export function filterForm (q: FleetQuery, apply: (next: FleetQuery) => void): HTMLFormElement {
  const statuses = h('fieldset', { class: 'filter filter-status' }, h('legend', {}, 'Comm status'),
    ...COMM_STATUSES.map((s) => h('label', { class: 'filter-check' },
      h('input', { type: 'checkbox', name: 'commStatus', value: s, checked: q.commStatus.includes(s) }), ' ', COMM_STATUS_TEXT[s] ?? s)))
  const more = h('details', { class: 'filter-more', open: q.serialNumber !== '' || q.imei !== '' || q.identifier !== '' || q.type !== '' || q.usageStatus !== '' || q.lastCommAfter !== null || q.lastCommBefore !== null },
    h('summary', {}, 'More filters'),
    h('div', { class: 'filter-grid' },
      text('type', 'Type', q.type),
      text('serialNumber', 'Serial number', q.serialNumber),
      text('imei', 'IMEI', q.imei),
      text('identifier', 'ICCID', q.identifier),
      select('usageStatus', 'Data usage', q.usageStatus, [['', 'Any'], ...USAGE_STATUSES.map((s): [string, string] => [s, human(s)])]),
      h('label', { class: 'filter' }, h('span', {}, 'Last communication from'), h('input', { type: 'date', name: 'lastCommAfter', value: dayOf(q.lastCommAfter) })),
      h('label', { class: 'filter' }, h('span', {}, 'Last communication until'), h('input', { type: 'date', name: 'lastCommBefore', value: dayOf(q.lastCommBefore) }))))
  const form = h('form', { class: 'fleet-filters', role: 'search', 'aria-label': 'Filter systems' },
    h('div', { class: 'filter-grid' },
      text('name', 'Name', q.name, 'contains…'),
      text('labels', 'Labels', q.labels.join(', '), 'any of: north, south'),
      select('lifeCycleStates', 'Life cycle', q.lifeCycleStates.length === 1 ? q.lifeCycleStates[0] ?? '' : '',
        [['', 'Any'], ...LIFE_CYCLE_STATES.map((s): [string, string] => [s, human(s)])]),
      statuses),
    more,
    h('div', { class: 'filter-buttons' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply filters'),
      h('button', { type: 'button', onclick: () => { apply({ ...EMPTY_QUERY, size: q.size, orderBy: q.orderBy, desc: q.desc }) } }, 'Clear filters')))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const data = new FormData(form)
    const str = (k: string): string => String(data.get(k) ?? '').trim()
    const lifeCycle = str('lifeCycleStates')
    apply({
      ...q,
      name: str('name'),
      labels: [...new Set(str('labels').split(',').map((s) => s.trim()).filter((s) => s !== ''))],
      commStatus: data.getAll('commStatus').map(String),
      lifeCycleStates: lifeCycle === '' ? [] : [lifeCycle],
      type: str('type'),
      serialNumber: str('serialNumber'),
      imei: str('imei'),
      identifier: str('identifier'),
      usageStatus: str('usageStatus'),
      lastCommAfter: dayStart(str('lastCommAfter')),
      lastCommBefore: dayEnd(str('lastCommBefore')),
      offset: 0
    })
  })
  return form
}
