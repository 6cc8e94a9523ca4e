// What the list pages share (users, applications): a search kept in the address's query with the page's offset, and
// the pager under the table. The route's query holds the view, so a link or a reload shows the same page.
import { h } from './dom.js'

export interface SearchBox {
  form: HTMLFormElement
  /** The text searched for, trimmed ('' for none). */
  text: () => string
  /** Goes to this offset of the list with the text typed. */
  go: (offset: number) => void
}

export interface SearchOptions {
  /** The list's route, e.g. `/users`. */
  route: string
  /** The query parameter that holds the text (also the API's), e.g. `freetext`. */
  param: string
  value: string
  label: string
  placeholder: string
  /** The form's name, when the page has other forms. */
  name?: string
  navigate: (path: string) => void
}

export function searchBox (o: SearchOptions): SearchBox {
  const input = h('input', { type: 'search', value: o.value, placeholder: o.placeholder })
  const form = h('form', { class: 'toolbar', role: 'search', 'aria-label': o.name ?? null },
    h('label', { class: 'inline' }, o.label, input), h('button', { type: 'submit' }, 'Search'))
  const text = (): string => input.value.trim()
  const go = (offset: number): void => {
    const q = new URLSearchParams()
    if (text() !== '') q.set(o.param, text())
    if (offset > 0) q.set('offset', String(offset))
    o.navigate(`${o.route}${q.size === 0 ? '' : `?${q.toString()}`}`)
  }
  form.addEventListener('submit', (e) => { e.preventDefault(); go(0) })
  return { form, text, go }
}

/** "1–50 of 120" with Previous and Next; `shown` is how many items this page holds. */
export function pager (label: string, page: { offset: number, shown: number, count: number, size: number }, go: (offset: number) => void): HTMLElement {
  const { offset, shown, count, size } = page
  const last = Math.min(offset + shown, count)
  return h('nav', { class: 'pager', 'aria-label': label },
    h('span', {}, `${offset + 1}–${last} of ${count}`),
    h('button', { type: 'button', disabled: offset === 0, onclick: () => { go(Math.max(0, offset - size)) } }, 'Previous page'),
    h('button', { type: 'button', disabled: last >= count, onclick: () => { go(offset + size) } }, 'Next page'))
}
