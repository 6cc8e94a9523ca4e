// The shell's notice area: messages in a role="status" region (read out politely), errors in a
// role="alert" one; each can be dismissed, messages go by themselves after a while.
import { h } from '../lib/dom.js'
import { sentenceOf } from '../lib/api.js'

const MESSAGE_MS = 6000

export interface Notices { element: HTMLElement, notify: (message: string | Error, kind?: 'info' | 'error') => void }

export function createNotices (): Notices {
  const status = h('div', { class: 'notices-status', role: 'status', 'aria-live': 'polite' })
  const alerts = h('div', { class: 'notices-alert', role: 'alert' })
  const element = h('div', { class: 'notices' }, alerts, status)
  const notify = (message: string | Error, kind: 'info' | 'error' = message instanceof Error ? 'error' : 'info'): void => {
    const text = typeof message === 'string' ? message : sentenceOf(message)
    const item = h('div', { class: `notice notice-${kind}` }, h('span', {}, text))
    const dismiss = h('button', { type: 'button', class: 'notice-dismiss', 'aria-label': `Dismiss: ${text}` }, '×')
    dismiss.addEventListener('click', () => { item.remove() })
    item.append(dismiss)
    ;(kind === 'error' ? alerts : status).append(item)
    if (kind === 'info') setTimeout(() => { item.remove() }, MESSAGE_MS)
  }
  return { element, notify }
}
