// The system's last data (docs/devices.md) and levels (§System data): a table of every data id with
// its last value, a button to chart it, and the rows kept up to date by the stream's points.
import { h, replace } from '../../lib/dom.js'
import { formatDate, formatShort, formatValue } from '../../lib/format.js'
import { definitions } from './details.js'
import { levelsOf } from './levels.js'
import type { LastValues } from './series.js'

export type LastData = LastValues

export interface LastDataCard {
  el: HTMLElement
  setLevels: (data: Record<string, unknown> | null | undefined) => void
  setLastData: (last: LastData | null) => void
  /** A live point: its row changes (or appears) when it is newer than what is shown. */
  point: (dataId: string, ts: number, v: unknown) => void
  ids: () => string[]
}

export function lastDataCard (chart: (dataId: string) => void): LastDataCard {
  const levels = h('div', {})
  const tbody = h('tbody', {})
  const rows = new Map<string, { ts: number, value: HTMLElement, time: HTMLElement }>()
  const table = h('table', { class: 'data', 'aria-label': 'Last value of each data id' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Data id'), h('th', { scope: 'col' }, 'Value'), h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Chart'))),
    tbody)
  const el = h('section', { class: 'card', 'aria-labelledby': 'system-last-data' },
    h('h2', { id: 'system-last-data' }, 'Last data and levels'), levels, h('h3', {}, 'Last data'), h('div', { class: 'table-wrap' }, table))

  function row (id: string, ts: number, v: unknown): HTMLTableRowElement {
    const value = h('td', {}, formatValue(v))
    const time = h('td', { title: formatDate(ts) }, formatShort(ts))
    rows.set(id, { ts, value, time })
    return h('tr', { 'data-id': id }, h('th', { scope: 'row' }, id), value, time,
      h('td', {}, h('button', { type: 'button', 'aria-label': `Chart ${id}`, onclick: () => { chart(id) } }, 'Chart')))
  }

  function empty (text: string): void {
    rows.clear()
    replace(tbody, h('tr', {}, h('td', { colspan: 4, class: 'table-state' }, text)))
  }
  empty('Loading the last data…')

  return {
    el,
    setLevels (data) { replace(levels, definitions(levelsOf(data))) },
    setLastData (last) {
      if (last === null) { empty('The last data could not be loaded.'); return }
      // Numbers in ids in their order: lwm2m.3.0.2 before lwm2m.3.0.10 (LwM2M resource paths, docs/protocols/lwm2m.md).
      const ids = Object.keys(last).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      if (ids.length === 0) { empty('No data received yet.'); return }
      rows.clear()
      replace(tbody, ids.map((id) => { const p = last[id]?.[0]; return row(id, p?.timestamp ?? 0, p?.value) }))
    },
    point (dataId, ts, v) {
      const r = rows.get(dataId)
      if (r === undefined) {
        if (rows.size === 0) replace(tbody)
        tbody.append(row(dataId, ts, v))
        return
      }
      if (ts < r.ts) return
      r.ts = ts
      r.value.textContent = formatValue(v)
      r.time.textContent = formatShort(ts)
      r.time.title = formatDate(ts)
    },
    ids: () => [...rows.keys()]
  }
}
