// The Alerts page's rules (GET /api/v2/alertrules): name, conditions in words, stateful or not, active; each turned
// on or off (PUT with the rule whole, only active changed) or deleted after a confirmation.
import { h, replace } from '../../lib/dom.js'
import { openFormDialog } from '../../lib/form-dialog.js'
import type { PageContext } from '../../page.js'
import { conditionsText, withActive } from './rule-text.js'
import type { AlertRule } from './types.js'

const path = (rule: AlertRule): string => `/api/v2/alertrules/${encodeURIComponent(rule.uid)}`

function toggle (ctx: PageContext, rule: AlertRule, button: HTMLButtonElement, changed: () => void): void {
  button.disabled = true
  ctx.api.put<AlertRule>(path(rule), withActive(rule, !rule.active)).then((saved) => {
    ctx.notify(`The rule ${saved.name} is ${saved.active ? 'active' : 'inactive'}.`)
    changed()
  }, (err: unknown) => {
    button.disabled = false
    ctx.notify(err as Error, 'error')
  })
}

function remove (ctx: PageContext, rule: AlertRule, changed: () => void): void {
  openFormDialog({
    title: `Delete the rule ${rule.name}?`,
    body: [h('p', {}, 'The rule is deleted with its hooks and its alerts, open or past.')],
    submitLabel: 'Delete rule',
    danger: true,
    submit: async () => {
      await ctx.api.delete(path(rule))
      ctx.notify(`The rule ${rule.name} is deleted.`)
      changed()
      return true
    }
  })
}

function row (ctx: PageContext, rule: AlertRule, changed: () => void): HTMLElement {
  const onOff = h('button', { type: 'button', 'aria-label': `${rule.active ? 'Deactivate' : 'Activate'} ${rule.name}` }, rule.active ? 'Deactivate' : 'Activate')
  onOff.addEventListener('click', () => { toggle(ctx, rule, onOff, changed) })
  const del = h('button', { type: 'button', 'aria-label': `Delete ${rule.name}` }, 'Delete')
  del.addEventListener('click', () => { remove(ctx, rule, changed) })
  return h('tr', { class: rule.active ? null : 'rule-inactive' },
    h('th', { scope: 'row' }, rule.name),
    h('td', { class: 'alert-values' }, conditionsText(rule.conditions)),
    h('td', {}, rule.stateful ? 'While it holds' : 'Each time'),
    h('td', { class: 'rule-active' }, rule.active ? 'Active' : 'Inactive'),
    h('td', { class: 'actions' }, onOff, ' ', del))
}

export interface RulesSection {
  el: HTMLElement
  load: () => void
}

/**
 * The rules' section; `newRule` is the header's button that opens the form, `changed` reads the page again after a
 * rule is turned on or off or deleted (a deleted rule's alerts go with it).
 */
export function rulesSection (ctx: PageContext, newRule: HTMLElement, changed: () => void): RulesSection {
  const body = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading the rules…'))
  const el = h('section', { 'aria-labelledby': 'alert-rules-title' },
    h('div', { class: 'page-header' }, h('h2', { id: 'alert-rules-title' }, 'Rules'), newRule),
    body)
  const load = (): void => {
    ctx.api.get<AlertRule[]>('/api/v2/alertrules').then((rules) => {
      if (rules.length === 0) { replace(body, h('p', { class: 'empty' }, 'No rule yet: create one to be alerted when a system\'s data crosses a value.')); return }
      replace(body, h('div', { class: 'table-wrap' }, h('table', { class: 'data alerts-table', 'aria-label': 'Alert rules' },
        h('thead', {}, h('tr', {}, ...['Name', 'Conditions', 'Alerts', 'State', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...rules.map((r) => row(ctx, r, changed))))))
    }).catch((err: unknown) => {
      replace(body, h('p', { class: 'empty' }, 'The rules could not be loaded.'))
      ctx.notify(err as Error, 'error')
    })
  }
  return { el, load }
}
