// The fleet's comm status at a glance: how many systems matching the other filters are OK, in warning,
// in error or unknown, each a link to that view. Four counts (`size=0`: docs/api.md#using-the-api, count only).
import { COMM_STATUS_TEXT, commStatusClass } from '../../lib/comm-status.js'
import { h, replace } from '../../lib/dom.js'
import type { PageContext } from '../../page.js'
import { COMM_STATUSES, fleetFilters, fleetPath, type FleetQuery } from './query.js'

export function statusSummary (ctx: Pick<PageContext, 'api'>, q: FleetQuery, alive: () => boolean): HTMLElement {
  const el = h('nav', { class: 'status-summary', 'aria-label': 'Systems by comm status', 'aria-busy': 'true' })
  const others = { ...q, commStatus: [], offset: 0 }
  const counts = COMM_STATUSES.map(async (status) =>
    await ctx.api.get<{ count: number }>('/api/v1/systems', { ...fleetFilters(others), commStatus: status, fields: 'uid', size: 0 }))
  Promise.all(counts).then((answers) => {
    if (!alive()) return
    replace(el, COMM_STATUSES.map((status, i) => {
      const only = q.commStatus.length === 1 && q.commStatus[0] === status
      const target = only ? others : { ...others, commStatus: [status] }
      return h('a', { href: `#${fleetPath(target)}`, class: `status-count ${commStatusClass(status)}`, 'aria-current': only ? 'true' : null },
        h('span', { class: 'status-count-n' }, String(answers[i]?.count ?? 0)), ' ', COMM_STATUS_TEXT[status] ?? status)
    }))
    el.setAttribute('aria-busy', 'false')
  }, () => {
    // The table reports the error; the summary just stays empty.
    el.setAttribute('aria-busy', 'false')
  })
  return el
}
