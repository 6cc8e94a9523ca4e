// The column chooser: a disclosure with one checkbox per column; the choice is kept in localStorage (columns.ts).
import { h } from '../../lib/dom.js'
import { COLUMNS, type Column } from './columns.js'

export function columnMenu (chosen: readonly Column[], change: (columns: Column[]) => void): HTMLElement {
  const ids = new Set(chosen.map((c) => c.id))
  const boxes = COLUMNS.map((c) => {
    const input = h('input', { type: 'checkbox', value: c.id, checked: ids.has(c.id) })
    input.addEventListener('change', () => {
      const next = COLUMNS.filter((col) => boxes.some((b) => b.value === col.id && b.checked))
      // At least one column stays: an empty table says nothing.
      if (next.length === 0) { input.checked = true; return }
      change(next)
    })
    return input
  })
  return h('details', { class: 'column-menu' },
    h('summary', {}, 'Columns'),
    h('fieldset', {}, h('legend', { class: 'visually-hidden' }, 'Columns shown'),
      ...COLUMNS.map((c, i) => h('label', { class: 'filter-check' }, boxes[i], ' ', c.label))))
}
