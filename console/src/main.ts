// The web console's shell: signs in (OAuth 2 code grant with PKCE, lib/auth.ts), loads the session,
// lays out the frame and routes the hash to the pages of pages/index.ts.
import { h, replace } from './lib/dom.js'
import { ApiClient, sentenceOf } from './lib/api.js'
import { LiveStream } from './lib/stream.js'
import { errorSentence } from './lib/errors.js'
import { accessToken, completeSignIn, forget, refresh, signedIn, signIn, SignInError, signOut } from './lib/auth.js'
import { hashPath, matchRoute } from './lib/router.js'
import { routes } from './pages/index.js'
import type { Page, PageContext } from './page.js'
import { chooseCompany, chosenCompany, loadSession } from './shell/session.js'
import { createLayout } from './shell/layout.js'
import { createNotices } from './shell/notices.js'
import './styles.css'

const DEFAULT_ROUTE = '/fleet'

/** Runs a promise whose failure has nowhere better to go than the browser's console. */
const background = (p: Promise<unknown>): void => { p.catch((err: unknown) => { console.error(err) }) }
const goSignIn = (): void => { background(signIn()) }

/** A page of its own outside the frame: the sign-in failed, or the user signed out. */
function standalone (title: string, text: string, action: string, run: () => void): void {
  const button = h('button', { type: 'button', class: 'primary' }, action)
  button.addEventListener('click', run)
  document.body.replaceChildren(h('main', { id: 'main', class: 'standalone' }, h('h1', {}, title), h('p', {}, text), button))
  button.focus()
}

async function start (): Promise<void> {
  try {
    await completeSignIn()
  } catch (err) {
    const text = err instanceof SignInError ? `${errorSentence(err.code)} (${err.message})` : sentenceOf(err)
    standalone('Sign-in failed', text, 'Sign in again', goSignIn)
    return
  }
  if (!signedIn()) { await signIn(); return }

  let company = chosenCompany()
  const signedOut = (): void => { forget(); goSignIn() }
  const api = new ApiClient({ token: accessToken, refresh, company: () => company, onSignedOut: signedOut })
  const stream = new LiveStream({ token: accessToken, company: () => company })
  const { session, companies } = await loadSession(api)
  company = session.company.uid

  const notices = createNotices()
  const layout = createLayout({
    session,
    companies,
    routes,
    notices: notices.element,
    onCompany: (uid) => {
      chooseCompany(uid)
      // Another company's system, operation or application does not open there: its list does (the fleet for a
      // system), or the fleet for a page the user does not administer in the new company.
      const route = matchRoute(routes, location.hash)?.route
      const admin = companies.find((c) => c.uid === uid)?.administrator === true
      const list = routes.find((r) => r.label !== null && route !== undefined && route.pattern.startsWith(`${r.pattern}/`))
      const path = route === undefined || (route.adminOnly === true && !admin)
        ? DEFAULT_ROUTE
        : route.label !== null ? route.pattern : list?.pattern ?? DEFAULT_ROUTE
      history.replaceState(null, '', `#${path}`)
      location.reload()
    },
    onSignOut: () => {
      stream.close()
      background(signOut().then(() => { standalone('Signed out', 'You have signed out of the fleet console.', 'Sign in', goSignIn) }))
    }
  })

  let current: Page | undefined
  let generation = 0
  const navigate = (path: string): void => { location.hash = `#${path}` }
  const show = async (): Promise<void> => {
    const match = matchRoute(routes, location.hash)
    if (match === undefined || (match.route.adminOnly === true && !session.admin)) {
      if (match !== undefined) notices.notify('Only the company\'s administrators can open this page.', 'error')
      history.replaceState(null, '', `#${DEFAULT_ROUTE}`)
      await show()
      return
    }
    const mine = ++generation
    current?.dispose?.()
    current = undefined
    const root = h('div', { class: 'page' })
    replace(layout.main, h('p', { class: 'loading', role: 'status' }, 'Loading…'))
    layout.setCurrent(hashPath(location.hash))
    const ctx: PageContext = { root, params: match.params, api, stream, session, navigate, notify: notices.notify }
    try {
      const page = await match.route.page(ctx)
      if (mine !== generation) { page.dispose?.(); return }
      current = page
      replace(layout.main, root)
      document.title = `${match.route.label ?? root.querySelector('h1')?.textContent ?? 'Fleet'} · Fleet console`
    } catch (err) {
      if (mine !== generation) return
      replace(layout.main, h('h1', {}, 'This page could not be shown'), h('p', { role: 'alert' }, sentenceOf(err)))
    }
  }
  window.addEventListener('hashchange', () => {
    background(show().then(() => { layout.main.focus({ preventScroll: true }) }))
  })
  if (location.hash === '' || location.hash === '#') history.replaceState(null, '', `#${DEFAULT_ROUTE}`)
  await show()
}

start().catch((err: unknown) => {
  standalone('The console could not start', sentenceOf(err), 'Try again', () => { location.reload() })
})
