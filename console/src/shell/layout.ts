// The console's frame: a skip link, the header with the menu (folded behind a button on narrow screens),
// the company switcher for users of several companies and the sign-out button, the notice area and <main>.
import { h } from '../lib/dom.js'
import type { Session } from '../page.js'
import type { Route } from '../pages/index.js'
import type { CompanyChoice } from './session.js'

export interface Layout {
  main: HTMLElement
  /** Marks the menu item of the path as the current page. */
  setCurrent: (path: string) => void
}

export interface LayoutOptions {
  session: Session
  companies: CompanyChoice[]
  routes: readonly Route[]
  notices: HTMLElement
  onCompany: (uid: string) => void
  onSignOut: () => void
}

function companySwitcher (opts: LayoutOptions): HTMLElement | null {
  if (opts.companies.length < 2) return null
  const select = h('select', { id: 'shell-company' },
    ...opts.companies.map((c) => h('option', { value: c.uid, selected: c.uid === opts.session.company.uid }, c.name)))
  select.addEventListener('change', () => { opts.onCompany(select.value) })
  return h('div', { class: 'shell-company' }, h('label', { for: 'shell-company' }, 'Company'), select)
}

export function createLayout (opts: LayoutOptions): Layout {
  const items = opts.routes
    .filter((r) => r.label !== null && (r.adminOnly !== true || opts.session.admin))
    .map((r) => ({ path: r.pattern, link: h('a', { href: `#${r.pattern}` }, r.label ?? '') }))
  const nav = h('nav', { id: 'shell-nav', class: 'shell-nav', 'aria-label': 'Main' }, h('ul', {}, ...items.map((i) => h('li', {}, i.link))))
  const toggle = h('button', { type: 'button', class: 'shell-menu-toggle', 'aria-expanded': 'false', 'aria-controls': 'shell-nav' }, 'Menu')
  const setOpen = (open: boolean): void => {
    toggle.setAttribute('aria-expanded', String(open))
    nav.classList.toggle('open', open)
  }
  toggle.addEventListener('click', () => { setOpen(toggle.getAttribute('aria-expanded') !== 'true') })
  nav.addEventListener('click', () => { setOpen(false) })
  nav.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && nav.classList.contains('open')) { setOpen(false); toggle.focus() }
  })
  const user = opts.session.user
  const signOut = h('button', { type: 'button', class: 'shell-sign-out' }, 'Sign out')
  signOut.addEventListener('click', opts.onSignOut)
  const header = h('header', { class: 'shell-header' },
    h('a', { class: 'shell-brand', href: '#/fleet' }, 'Fleet console'),
    toggle,
    nav,
    h('div', { class: 'shell-account' },
      companySwitcher(opts),
      h('span', { class: 'shell-user', title: user.email }, user.name ?? user.email),
      signOut))
  const main = h('main', { id: 'main', class: 'shell-main', tabindex: '-1' })
  document.body.replaceChildren(h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'), header, opts.notices, main)
  // The skip link must not change the hash route.
  document.querySelector('.skip-link')?.addEventListener('click', (e) => { e.preventDefault(); main.focus() })
  return {
    main,
    setCurrent (path) {
      for (const i of items) {
        const current = path === i.path || path.startsWith(`${i.path}/`) || (i.path === '/fleet' && path.startsWith('/systems/'))
        if (current) i.link.setAttribute('aria-current', 'page')
        else i.link.removeAttribute('aria-current')
      }
    }
  }
}
