// The operations page (issue 15): filled in next; for now its heading, so that the route list and the bundle hold.
import { h } from '../lib/dom.js'
import type { Page, PageContext } from '../page.js'

export function operationsPage (ctx: PageContext): Page {
  ctx.root.append(h('h1', {}, 'Operations'))
  return {}
}
