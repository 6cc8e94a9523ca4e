// The contract between the console's shell and its pages: the shell signs in, routes and lays out; a page
// renders into the element it is given and stops its timers and stream subscriptions when disposed.
import type { ApiClient } from './lib/api.js'
import type { LiveStream } from './lib/stream.js'

export interface Session {
  /** The signed-in user (GET /api/v1/users/current). */
  user: { uid: string, email: string, name?: string, profile?: { uid: string, name?: string } }
  /** The company the API calls act in (the company switcher changes it and reloads the page). */
  company: { uid: string, name: string }
  /** Whether the user may administer the company (company and users pages). */
  admin: boolean
}

export interface PageContext {
  root: HTMLElement
  /** The route's parameters, e.g. `{ uid }` for `#/systems/:uid`, plus the query of the hash (`#/fleet?labels=a`). */
  params: Record<string, string>
  api: ApiClient
  stream: LiveStream
  session: Session
  /** Goes to another route, e.g. `navigate('/systems/' + uid)`. */
  navigate: (path: string) => void
  /** Shows an error (an ApiError's sentence) or a message in the shell's notice area. */
  notify: (message: string | Error, kind?: 'info' | 'error') => void
}

export interface Page {
  dispose?: () => void
}

export type PageFactory = (ctx: PageContext) => Page | Promise<Page>
