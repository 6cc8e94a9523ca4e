// A system's open alerts on its page (docs/console.md, Alerts): the badge in the page's header, linking to the Alerts
// page narrowed to the system, and, while any is open, a card listing them with Acknowledge. Read at once, and again
// (`load`) after the device's messages, which may raise or close one. When the alerts cannot be read both stay hidden: the page is
// about the system.
import { h, replace } from '../../lib/dom.js'
import type { PageContext } from '../../page.js'
import { alertsPath, DEFAULT_RANGE } from '../alerts/alert-text.js'
import { alertBadge, openAlerts } from '../alerts/badge.js'
import { openAlertsTable } from '../alerts/open-alerts.js'

export interface SystemAlerts {
  badge: HTMLElement
  card: HTMLElement
  load: () => void
}

export function systemAlerts (ctx: PageContext, uid: string, alive: () => boolean): SystemAlerts {
  const badge = alertBadge(`#${alertsPath({ targetId: uid, range: DEFAULT_RANGE, offset: 0 })}`)
  const body = h('div', {})
  const card = h('section', { class: 'card system-alerts', 'aria-labelledby': 'system-alerts', hidden: true },
    h('h2', { id: 'system-alerts' }, 'Open alerts'), body)
  const load = (): void => {
    openAlerts(ctx, uid).then((alerts) => {
      if (!alive()) return
      badge.set(alerts.length)
      card.hidden = alerts.length === 0
      replace(body, openAlertsTable(ctx, alerts, { system: false, changed: load }))
    }, () => {
      badge.set(null)
      card.hidden = true
    })
  }
  if (uid !== '') load()
  return { badge: badge.el, card, load }
}
