// The column chooser: a disclosure with one checkbox per column; the choice is kept in localStorage (columns.ts).
import { h } from '../../lib/dom.js'
import { COLUMNS, type Column } from './columns.js'

export function columnMenu (chosen: readonly Column[], change: (columns: Column[]) => void): HTMLElement {
  const ids = new Set(chosen.map((c) => c.id))
  const boxes = COLUMNS.map((c) => {
    const input = h('input', { type: 'checkbox', value: c.id, checked: ids.has(c.id), 'aria-label': `Show the ${c.label} column` })
    input.addEventListener('change', () => {
      const next = COLUMNS.filter((col) => boxes.some((b) => b.value === col.id && b.checked))
      // At least one column stays: an empty table says nothing.
      if (next.length === 0) { input.checked = true; return }
      change(next)
    })
    return input
  })
  const summary = h('summary', {}, 'Columns')
  const menu = h('details', { class: 'column-menu' }, summary,
    h('fieldset', { 'aria-label': 'Columns shown' },
      ...COLUMNS.map((c, i) => h('label', { class: 'filter-check' }, boxes[i], ' ', c.label))))
  // A menu closes with Escape (focus back on its button) and when the focus goes elsewhere.
  menu.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && menu.open) { menu.open = false; summary.focus() }
  })
  menu.addEventListener('focusout', (e) => {
    if (!menu.contains(e.relatedTarget as Node | null) && e.relatedTarget !== null) menu.open = false
  })
  return menu
}
