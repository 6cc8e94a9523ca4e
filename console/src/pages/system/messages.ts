// The system's device messages (docs/devices.md): most recent first, older pages through the
// `next` URL the service gives, a message's data points on demand, new messages from the stream on top.
import { h, replace } from '../../lib/dom.js'
import { formatDate, formatShort, formatValue } from '../../lib/format.js'
import type { PageContext } from '../../page.js'

interface Message { uid: string, timestamp: number, protocol: string, nbDataPoints: number }
interface MessagesAnswer { next: string | null, messages: Message[] }
interface MessageDetail extends Message { data: Record<string, Array<{ value: unknown, timestamp: number }>> }

export interface MessagesCard {
  el: HTMLElement
  /** A `message` event: a row on top; the `points` events that follow it count its data points. */
  message: (m: { uid: string, protocol: string, timestamp: number }) => void
  point: () => void
}

const PAGE = 20

/** The `next` URL of the service as a path and query for the API client. */
function nextRequest (next: string): { path: string, query: Record<string, string> } {
  const url = new URL(next, window.location.origin)
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) }
}

export function messagesCard (ctx: Pick<PageContext, 'api' | 'notify'>, uid: string, alive: () => boolean): MessagesCard {
  const tbody = h('tbody', {})
  const more = h('button', { type: 'button', hidden: true }, 'Older messages')
  const el = h('section', { class: 'card', 'aria-labelledby': 'system-messages' },
    h('h2', { id: 'system-messages' }, 'Messages'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Messages received from the device, most recent first' },
      h('thead', {}, h('tr', {}, ...['Time', 'Protocol', 'Data points', 'Data'].map((t) => h('th', { scope: 'col' }, t)))),
      tbody)),
    more)
  let next: string | null = null
  let liveCount: HTMLElement | null = null
  let liveN = 0
  let rows = 0

  function detail (m: Message, button: HTMLButtonElement, tr: HTMLTableRowElement): void {
    const open = tr.nextElementSibling?.classList.contains('message-detail') === true
    if (open) { tr.nextElementSibling?.remove(); button.setAttribute('aria-expanded', 'false'); return }
    button.setAttribute('aria-expanded', 'true')
    const cell = h('td', { colspan: 4 }, 'Loading…')
    tr.after(h('tr', { class: 'message-detail' }, cell))
    ctx.api.get<MessageDetail>(`/api/v1/systems/${encodeURIComponent(uid)}/messages/${encodeURIComponent(m.uid)}`).then((d) => {
      const pairs = Object.entries(d.data).flatMap(([id, pts]) => pts.map((p) => h('li', {}, `${id} = ${formatValue(p.value)} at ${formatDate(p.timestamp)}`)))
      replace(cell, pairs.length === 0 ? 'No data point.' : h('ul', { class: 'message-points' }, pairs))
    }, (err: unknown) => {
      replace(cell, 'The message could not be loaded.')
      ctx.notify(err instanceof Error ? err : String(err), 'error')
    })
  }

  function row (m: Message): { tr: HTMLTableRowElement, count: HTMLElement } {
    const count = h('td', {}, String(m.nbDataPoints))
    const button = h('button', { type: 'button', 'aria-expanded': 'false', 'aria-label': `Data of the message of ${formatDate(m.timestamp)}` }, 'Show')
    const tr = h('tr', {}, h('td', { title: formatDate(m.timestamp) }, formatShort(m.timestamp)), h('td', {}, m.protocol), count, h('td', {}, button))
    button.addEventListener('click', () => { detail(m, button, tr) })
    rows++
    return { tr, count }
  }

  function page (request: { path: string, query: Record<string, string | number> }): void {
    more.disabled = true
    ctx.api.get<MessagesAnswer>(request.path, request.query).then((answer) => {
      if (!alive()) return
      if (rows === 0) replace(tbody)
      tbody.append(...answer.messages.map((m) => row(m).tr))
      if (rows === 0) replace(tbody, h('tr', {}, h('td', { colspan: 4, class: 'table-state' }, 'No message received in the last 3 months.')))
      next = answer.messages.length > 0 ? answer.next : null
      more.hidden = next === null
      more.disabled = false
    }, (err: unknown) => {
      if (!alive()) return
      if (rows === 0) replace(tbody, h('tr', {}, h('td', { colspan: 4, class: 'table-state' }, 'The messages could not be loaded.')))
      more.disabled = false
      ctx.notify(err instanceof Error ? err : String(err), 'error')
    })
  }

  more.addEventListener('click', () => { if (next !== null) page(nextRequest(next)) })
  replace(tbody, h('tr', {}, h('td', { colspan: 4, class: 'table-state' }, 'Loading messages…')))
  page({ path: `/api/v1/systems/${encodeURIComponent(uid)}/messages`, query: { size: PAGE } })

  return {
    el,
    message (m) {
      if (rows === 0) replace(tbody)
      const r = row({ ...m, nbDataPoints: 0 })
      tbody.prepend(r.tr)
      liveCount = r.count
      liveN = 0
    },
    point () {
      if (liveCount === null) return
      liveN++
      liveCount.textContent = String(liveN)
    }
  }
}
