// The table of open alerts (Alerts page, and a system's page without its system column): the rule and its message,
// the system, since when, the values that raised it, and Acknowledge.
import { h } from '../../lib/dom.js'
import { formatDate } from '../../lib/format.js'
import type { PageContext } from '../../page.js'
import { valuesText } from './alert-text.js'
import type { Alert } from './types.js'

export interface OpenAlertsOptions {
  /** Whether to show the system column (not on the system's own page). */
  system: boolean
  /** Called once an alert is acknowledged, to read the alerts again. */
  changed: () => void
}

export const systemLink = (a: Alert): HTMLElement =>
  h('a', { href: `#/systems/${encodeURIComponent(a.target.uid)}` }, a.target.name ?? a.target.uid)

export const ruleCell = (a: Alert): HTMLElement =>
  h('th', { scope: 'row' }, a.rule.name, a.rule.message === null || a.rule.message === '' ? null : h('small', { class: 'alert-message' }, a.rule.message))

/** An Acknowledge button: POST /api/v2/alerts/{uid}/acknowledge, then `changed`. */
export function acknowledgeButton (ctx: PageContext, a: Alert, changed: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button', 'aria-label': `Acknowledge ${a.rule.name} on ${a.target.name ?? a.target.uid}` }, 'Acknowledge')
  button.addEventListener('click', () => {
    button.disabled = true
    ctx.api.post(`/api/v2/alerts/${encodeURIComponent(a.uid)}/acknowledge`).then(() => {
      ctx.notify(`The alert ${a.rule.name} is acknowledged.`)
      changed()
    }, (err: unknown) => {
      button.disabled = false
      ctx.notify(err as Error, 'error')
    })
  })
  return button
}

export function openAlertsTable (ctx: PageContext, alerts: readonly Alert[], o: OpenAlertsOptions): HTMLElement {
  if (alerts.length === 0) return h('p', { class: 'empty' }, 'No open alert.')
  const heads = ['Rule', o.system ? 'System' : null, 'Since', 'Values', 'Actions'].filter((t) => t !== null)
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data alerts-table', 'aria-label': 'Open alerts' },
    h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...alerts.map((a) => h('tr', {},
      ruleCell(a),
      o.system ? h('td', {}, systemLink(a)) : null,
      h('td', {}, formatDate(a.date)),
      h('td', { class: 'alert-values' }, valuesText(a.attributes)),
      h('td', { class: 'actions' }, acknowledgeButton(ctx, a, o.changed)))))))
}
