// The system page (`#/systems/<uid>`): details, gateway, subscription, applications, last data and levels,
// a chart of any data id, messages and usage, kept live by the stream while the page is open (new points on the
// chart and in the last data, comm status and levels refreshed); dispose unsubscribes.
import { commStatusBadge, setCommStatus } from '../lib/comm-status.js'
import { h, replace } from '../lib/dom.js'
import { formatAgo, formatDate } from '../lib/format.js'
import type { Page, PageContext, PageFactory } from '../page.js'
import { systemActions } from './fleet/actions.js'
import { systemAlerts } from './system/alerts-card.js'
import { chartPanel } from './system/chart-panel.js'
import { communicationCard } from './system/communication.js'
import { applicationsCard, detailsCard, gatewayCard, subscriptionCard, type SystemView } from './system/details.js'
import { lastDataCard, type LastData } from './system/last-data.js'
import { messagesCard } from './system/messages.js'
import { firstChart } from './system/series.js'
import { usageCard } from './system/usage.js'
import './system/system.css'

interface StreamEvent { event: string, system?: string, dataId?: string, ts?: number, v?: unknown, status?: string, lastCommDate?: number, uid?: string, protocol?: string, timestamp?: number }

/** After a device message, the system (its levels) is read again once things settle, not on every point. */
const REFRESH_MS = 2000

/** The page's title, comm status badge and last communication ("Last communication 3 min ago", its date on hover). */
function pageHead () {
  const title = h('h1', {}, 'System')
  const badge = commStatusBadge(null)
  const lastComm = h('span', { class: 'last-comm' })
  let date: number | null = null
  const show = (): void => {
    lastComm.textContent = date === null ? 'Never communicated' : `Last communication ${formatAgo(date)}`
    lastComm.title = date === null ? '' : formatDate(date)
  }
  const setName = (name: string): void => {
    title.textContent = name
    document.title = `${name} · Fleet console`
  }
  const setLastComm = (next: number | null): void => { date = next; show() }
  return {
    title,
    badge,
    lastComm,
    setLastComm,
    /** The system as read: its name, comm status and last communication. */
    system (s: SystemView): void {
      setName(s.name ?? s.uid)
      setCommStatus(badge, s.commStatus)
      setLastComm(s.lastCommDate ?? null)
    },
    /** A message's date: the last communication, unless a later one is known. */
    communicated (ts: number): void { date = Math.max(date ?? 0, ts); show() },
    /** "3 min ago" grows old: shown again every 30 s. */
    tick: show
  }
}

interface LiveParts {
  head: ReturnType<typeof pageHead>
  last: ReturnType<typeof lastDataCard>
  chart: ReturnType<typeof chartPanel>
  messages: ReturnType<typeof messagesCard>
}

/**
 * A stream event of the page's system, shown: points on the last data and the chart, the comm status, a message.
 * Answers whether it was a device message or an alert (after which the system's levels and open alerts are read
 * again: an alert the periodic check raises comes with no message).
 */
function showEvent (e: StreamEvent, { head, last, chart, messages }: LiveParts): boolean {
  if (e.event === 'points' && e.dataId !== undefined && e.ts !== undefined) {
    const known = last.ids().includes(e.dataId)
    last.point(e.dataId, e.ts, e.v)
    if (!known) chart.setIds(last.ids())
    chart.point(e.dataId, e.ts, e.v)
    messages.point()
  } else if (e.event === 'commStatus') {
    setCommStatus(head.badge, e.status)
    if (e.lastCommDate !== undefined) head.setLastComm(e.lastCommDate)
  } else if (e.event === 'message' && e.uid !== undefined) {
    messages.message({ uid: e.uid, protocol: e.protocol ?? '', timestamp: e.timestamp ?? Date.now() })
    if (e.timestamp !== undefined) head.communicated(e.timestamp)
    return true
  }
  return e.event === 'alert'
}

export const systemPage: PageFactory = (ctx: PageContext): Page => {
  const uid = ctx.params.uid ?? ''
  const path = `/api/v1/systems/${encodeURIComponent(uid)}`
  let disposed = false
  let unsubscribe: (() => void) | null = null
  let refresh: ReturnType<typeof setTimeout> | null = null
  let clock: ReturnType<typeof setInterval> | null = null
  const alive = (): boolean => !disposed
  const fail = (err: unknown): void => { if (!disposed) ctx.notify(err instanceof Error ? err : String(err), 'error') }

  const head = pageHead()
  const info = h('div', { class: 'system-info' }, h('p', { class: 'table-state', 'aria-busy': 'true' }, 'Loading the system…'))
  const chart = chartPanel(ctx, uid, alive)
  const last = lastDataCard((id) => { chart.show(id) })
  const messages = messagesCard(ctx, uid, alive)
  const alerts = systemAlerts(ctx, uid, alive)
  const communication = communicationCard(ctx, alive)
  replace(ctx.root, h('div', { class: 'system-page' },
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/fleet' }, '← Fleet')),
    h('header', { class: 'page-header' }, head.title, head.badge, head.lastComm, alerts.badge),
    uid === '' ? null : [systemActions(ctx, uid), alerts.card],
    info,
    h('div', { class: 'system-grid' }, chart.el, last.el, messages.el, usageCard(ctx, uid, (id) => { chart.show(id) }, alive))))

  function render (s: SystemView): void {
    head.system(s)
    replace(info, h('div', { class: 'system-cards' }, detailsCard(s), gatewayCard(s), subscriptionCard(s), applicationsCard(s), communication.show(s)))
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
    if (showEvent(e, { head, last, chart, messages })) refresh ??= setTimeout(() => { refresh = null; loadSystem().catch(fail); alerts.load() }, REFRESH_MS)
  }

  if (uid === '') replace(info, h('p', { class: 'table-state' }, 'No system named in the address.'))
  else {
    loadSystem().catch(fail)
    loadLastData().catch(fail)
    unsubscribe = ctx.stream.subscribe({ systems: { uids: [uid] } }, onEvent)
    clock = setInterval(head.tick, 30_000)
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
