// The system's usage (docs/usage.md): the records of the last 30 or 90 days,
// and buttons that chart the usage data ids (aggregated from the same records).
import { h, replace } from '../../lib/dom.js'
import { formatBytes, formatDate } from '../../lib/format.js'
import type { PageContext } from '../../page.js'

interface UsageRecord {
  uid: string
  type: string
  start: number
  end?: number
  partial?: boolean
  bytesTotal?: number | null
  phoneNumber?: string | null
  roundedDuration?: number | null
  visitedCountry?: string | null
  visitedNetwork?: string | null
}

const DAY = 86_400_000
const SIZE = 100

function amount (r: UsageRecord): string {
  if (r.type === 'DATA') return typeof r.bytesTotal === 'number' ? `${formatBytes(r.bytesTotal)}${r.partial === true ? ' (interim)' : ''}` : ''
  if (r.type.startsWith('VOICE')) return typeof r.roundedDuration === 'number' ? `${r.roundedDuration} s` : ''
  return '1'
}

export function usageCard (ctx: Pick<PageContext, 'api' | 'notify'>, uid: string, chart: (dataId: string) => void, alive: () => boolean): HTMLElement {
  const days = h('select', {}, h('option', { value: 30 }, 'Last 30 days'), h('option', { value: 90 }, 'Last 90 days'))
  const tbody = h('tbody', {})
  const note = h('p', { class: 'hint' })
  const el = h('section', { class: 'card', 'aria-labelledby': 'system-usage' },
    h('h2', { id: 'system-usage' }, 'Usage'),
    h('div', { class: 'usage-tools' },
      h('label', { class: 'control' }, h('span', {}, 'Usage period'), days),
      h('button', { type: 'button', onclick: () => { chart('DATA_BYTES_TOTAL') } }, 'Chart data bytes'),
      h('button', { type: 'button', onclick: () => { chart('SMS_SENT') } }, 'Chart SMS sent')),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Usage records, most recent first' },
      h('thead', {}, h('tr', {}, ...['Type', 'Start', 'End', 'Amount', 'Peer', 'Visited network'].map((t) => h('th', { scope: 'col' }, t)))),
      tbody)),
    note)

  const state = (text: string): void => { replace(tbody, h('tr', {}, h('td', { colspan: 6, class: 'table-state' }, text))) }

  function load (): void {
    state('Loading usage…')
    const to = Date.now()
    ctx.api.get<UsageRecord[]>(`/api/v1/systems/${encodeURIComponent(uid)}/usages/records`, { from: to - Number(days.value) * DAY, to, size: SIZE }).then((records) => {
      if (!alive()) return
      if (records.length === 0) { state('No usage record in this period.'); note.textContent = ''; return }
      replace(tbody, records.map((r) => h('tr', {},
        h('td', {}, r.type), h('td', {}, formatDate(r.start)), h('td', {}, r.end === undefined ? '' : formatDate(r.end)),
        h('td', {}, amount(r)), h('td', {}, r.phoneNumber ?? ''), h('td', {}, [r.visitedNetwork, r.visitedCountry].filter(Boolean).join(' ')))))
      note.textContent = records.length >= SIZE ? `The ${SIZE} most recent records are shown.` : ''
    }, (err: unknown) => {
      if (!alive()) return
      state('The usage could not be loaded.')
      ctx.notify(err instanceof Error ? err : String(err), 'error')
    })
  }

  days.addEventListener('change', load)
  load()
  return el
}
