// The alert badge (docs/console.md, Alerts): how many alerts are open, a link to the Alerts page. The fleet page shows
// the company's, the system page the system's; a badge whose count could not be read stays hidden, as the page
// around it is not about alerts.
import { h } from '../../lib/dom.js'
import type { PageContext } from '../../page.js'
import { openCountText, openQuery } from './alert-text.js'
import type { Alert } from './types.js'
import './alerts.css'

export interface AlertBadge {
  el: HTMLAnchorElement
  /** Shows the count (null: unknown, hidden). */
  set: (count: number | null) => void
}

export function alertBadge (href: string): AlertBadge {
  const el = h('a', { class: 'alert-badge', href, hidden: true })
  return {
    el,
    set (count) {
      el.hidden = count === null
      el.classList.toggle('alert-badge-on', count !== null && count > 0)
      el.textContent = count === null ? '' : openCountText(count)
    }
  }
}

/** The open alerts of the company, or of one system (GET /api/v2/alerts). */
export async function openAlerts (ctx: Pick<PageContext, 'api'>, targetId?: string): Promise<Alert[]> {
  return await ctx.api.get<Alert[]>('/api/v2/alerts', openQuery(targetId))
}

/** The fleet page's badge: the company's open alerts, linking to the Alerts page. */
export function fleetAlertBadge (ctx: PageContext, alive: () => boolean): HTMLElement {
  const badge = alertBadge('#/alerts')
  openAlerts(ctx).then((alerts) => { if (alive()) badge.set(alerts.length) }, () => { badge.set(null) })
  return badge.el
}
