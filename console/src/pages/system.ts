// The system page (`#/systems/<uid>`, issue 15): details, gateway, subscription, applications, last data and levels,
// a chart of any data id, messages and usage, kept live by the stream while the page is open (new points on the
// chart and in the last data, comm status and levels refreshed); dispose unsubscribes.
import { commStatusBadge, setCommStatus } from '../lib/comm-status.js'
import { h, replace } from '../lib/dom.js'
import { formatAgo, formatDate } from '../lib/format.js'
import type { Page, PageContext, PageFactory } from '../page.js'
import { systemActions } from './fleet/actions.js'
import { chartPanel } from './system/chart-panel.js'
import { applicationsCard, detailsCard, gatewayCard, subscriptionCard, type SystemView } from './system/details.js'
import { lastDataCard, type LastData } from './system/last-data.js'
import { messagesCard } from './system/messages.js'
import { firstChart } from './system/series.js'
import { usageCard } from './system/usage.js'
import './system/system.css'

interface StreamEvent { event: string, system?: string, dataId?: string, ts?: number, v?: unknown, status?: string, lastCommDate?: number, uid?: string, protocol?: string, timestamp?: number }

/** After a device message, the system (its levels) is read again once things settle, not on every point. */
const REFRESH_MS = 2000

export const systemPage: PageFactory = (ctx: PageContext): Page => {
  const uid = ctx.params.uid ?? ''
  const path = `/api/v1/systems/${encodeURIComponent(uid)}`
  let disposed = false
  let unsubscribe: (() => void) | null = null
  let refresh: ReturnType<typeof setTimeout> | null = null
  let clock: ReturnType<typeof setInterval> | null = null
  const alive = (): boolean => !disposed
  const fail = (err: unknown): void => { if (!disposed) ctx.notify(err instanceof Error ? err : String(err), 'error') }

  const title = h('h1', {}, 'System')
  const badge = commStatusBadge(null)
  const lastComm = h('span', { class: 'last-comm' })
  let lastCommDate: number | null = null
  const showLastComm = (): void => {
    lastComm.textContent = lastCommDate === null ? 'Never communicated' : `Last communication ${formatAgo(lastCommDate)}`
    lastComm.title = lastCommDate === null ? '' : formatDate(lastCommDate)
  }
  const info = h('div', { class: 'system-info' })
  const chart = chartPanel(ctx, uid, alive)
  const last = lastDataCard((id) => { chart.show(id) })
  const messages = messagesCard(ctx, uid, alive)
  replace(ctx.root, h('div', { class: 'system-page' },
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/fleet' }, '← Fleet')),
    h('header', { class: 'page-header' }, title, badge, lastComm),
    uid === '' ? null : systemActions(ctx, uid),
    info,
    h('div', { class: 'system-grid' }, chart.el, last.el, messages.el, usageCard(ctx, uid, (id) => { chart.show(id) }, alive))))
  replace(info, h('p', { class: 'table-state', 'aria-busy': 'true' }, 'Loading the system…'))

  function render (s: SystemView): void {
    title.textContent = s.name ?? s.uid
    document.title = `${title.textContent} · Fleet console`
    setCommStatus(badge, s.commStatus)
    lastCommDate = s.lastCommDate ?? null
    showLastComm()
    replace(info, h('div', { class: 'system-cards' }, detailsCard(s), gatewayCard(s), subscriptionCard(s), applicationsCard(s)))
    last.setLevels(s.data)
  }

  async function loadSystem (): Promise<void> {
    try {
      const s = await ctx.api.get<SystemView>(path)
      if (!disposed) render(s)
    } catch (err) {
      if (disposed) return
      replace(info, h('p', { class: 'table-state' }, 'The system could not be loaded.'))
      fail(err)
    }
  }

  async function loadLastData (): Promise<void> {
    try {
      const data = await ctx.api.get<LastData>(`${path}/data`)
      if (disposed) return
      last.setLastData(data)
      chart.setIds(last.ids())
      const first = ctx.params.chart ?? firstChart(data)
      if (first !== null) chart.show(first, false)
    } catch (err) {
      if (disposed) return
      last.setLastData(null)
      fail(err)
    }
  }

  function onEvent (e: StreamEvent): void {
    if (disposed || e.system !== uid) return
    if (e.event === 'points' && e.dataId !== undefined && e.ts !== undefined) {
      const known = last.ids().includes(e.dataId)
      last.point(e.dataId, e.ts, e.v)
      if (!known) chart.setIds(last.ids())
      chart.point(e.dataId, e.ts, e.v)
      messages.point()
    } else if (e.event === 'commStatus') {
      setCommStatus(badge, e.status)
      if (e.lastCommDate !== undefined) { lastCommDate = e.lastCommDate; showLastComm() }
    } else if (e.event === 'message' && e.uid !== undefined) {
      messages.message({ uid: e.uid, protocol: e.protocol ?? '', timestamp: e.timestamp ?? Date.now() })
      if (e.timestamp !== undefined) { lastCommDate = Math.max(lastCommDate ?? 0, e.timestamp); showLastComm() }
      refresh ??= setTimeout(() => { refresh = null; loadSystem().catch(fail) }, REFRESH_MS)
    }
  }

  if (uid === '') replace(info, h('p', { class: 'table-state' }, 'No system named in the address.'))
  else {
    loadSystem().catch(fail)
    loadLastData().catch(fail)
    unsubscribe = ctx.stream.subscribe({ systems: { uids: [uid] } }, onEvent)
    clock = setInterval(showLastComm, 30_000)
  }

  return {
    dispose () {
      disposed = true
      unsubscribe?.()
      if (refresh !== null) clearTimeout(refresh)
      if (clock !== null) clearInterval(clock)
      chart.destroy()
    }
  }
}
