// The comm status at a glance (docs/api.md#systems: commStatus OK, WARNING, ERROR, UNDEFINED): a coloured badge
// whose text says the status too, so colour is never the only signal.
import { h } from './dom.js'
import './comm-status.css'

export const COMM_STATUS_TEXT: Record<string, string> = { OK: 'OK', WARNING: 'Warning', ERROR: 'Error', UNDEFINED: 'Unknown' }

/** The colour class of a status (`comm-ok`...); anything unknown looks like UNDEFINED. */
export function commStatusClass (status: string | null | undefined): string {
  const s = status ?? 'UNDEFINED'
  return `comm-${s in COMM_STATUS_TEXT ? s.toLowerCase() : 'undefined'}`
}

export function commStatusBadge (status: string | null | undefined): HTMLSpanElement {
  const el = h('span', {})
  setCommStatus(el, status)
  return el
}

/** Changes a badge in place (a `commStatus` event of the live stream). */
export function setCommStatus (el: HTMLElement, status: string | null | undefined): void {
  el.className = `comm-badge ${commStatusClass(status)}`
  el.textContent = COMM_STATUS_TEXT[status ?? 'UNDEFINED'] ?? status ?? 'Unknown'
  el.title = `Comm status: ${status ?? 'UNDEFINED'}`
}
