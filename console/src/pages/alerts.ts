// The Alerts page (`#/alerts`, docs/console.md): the open alerts with Acknowledge, the history of those closed or
// acknowledged, and the company's alert rules, created from a form, turned on or off, deleted. `?targetId=<system>`
// narrows the alerts to one system (the system page's badge links there).
import { h, replace } from '../lib/dom.js'
import type { Page, PageContext } from '../page.js'
import { alertsPath, FETCH_SIZE, parseAlertsView, type AlertsView } from './alerts/alert-text.js'
import { openAlerts } from './alerts/badge.js'
import { historySection } from './alerts/history.js'
import { openAlertsTable } from './alerts/open-alerts.js'
import { openRuleForm } from './alerts/rule-form.js'
import { rulesSection } from './alerts/rules.js'
import './alerts/alerts.css'

/** Names the system the page is narrowed to, with the way back to every system. */
function narrowed (view: AlertsView, name: string | null): HTMLElement | null {
  if (view.targetId === '') return null
  return h('p', { class: 'alerts-narrowed' },
    'The alerts of ', h('a', { href: `#/systems/${encodeURIComponent(view.targetId)}` }, name ?? 'one system'), '. ',
    h('a', { href: `#${alertsPath({ ...view, targetId: '', offset: 0 })}` }, 'Every system\'s alerts'))
}

export function alertsPage (ctx: PageContext): Page {
  const view = parseAlertsView(ctx.params)
  let disposed = false
  const go = (next: AlertsView): void => { ctx.navigate(alertsPath(next)) }
  const reloadAll = (): void => { if (!disposed) { loadOpen(); history.load(); rules.load() } }

  const openBody = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading the open alerts…'))
  const note = h('div', {})
  const history = historySection(ctx, view, go, reloadAll)
  const newRule = h('button', { type: 'button', class: 'primary' }, 'New rule')
  const rules = rulesSection(ctx, newRule, reloadAll)
  newRule.addEventListener('click', () => { openRuleForm(ctx, () => { rules.load() }) })

  function loadOpen (): void {
    openAlerts(ctx, view.targetId).then((alerts) => {
      if (disposed) return
      replace(note, narrowed(view, alerts[0]?.target.name ?? null))
      replace(openBody, openAlertsTable(ctx, alerts, { system: true, changed: reloadAll }),
        alerts.length >= FETCH_SIZE ? h('p', { class: 'hint' }, `The ${FETCH_SIZE} newest open alerts are shown: older ones show as these are acknowledged.`) : null)
    }).catch((err: unknown) => {
      if (disposed) return
      replace(openBody, h('p', { class: 'empty' }, 'The open alerts could not be loaded.'))
      ctx.notify(err as Error, 'error')
    })
  }

  replace(ctx.root, h('div', { class: 'alerts-page' },
    h('h1', {}, 'Alerts'),
    note,
    h('section', { 'aria-labelledby': 'open-alerts-title' }, h('h2', { id: 'open-alerts-title' }, 'Open alerts'), openBody),
    history.el,
    rules.el))
  replace(note, narrowed(view, null))
  reloadAll()
  return { dispose: () => { disposed = true } }
}
