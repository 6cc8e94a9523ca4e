// The applications page (`#/applications`): the company's applications and the public ones it may use (GET
// /applications, docs/packages.md#release-and-publish), with their state, release and publication dates and owner,
// page by page, and the release of a package.
import { h, replace } from '../lib/dom.js'
import { formatDate } from '../lib/format.js'
import { pager, searchBox } from '../lib/paging.js'
import type { Page, PageContext } from '../page.js'
import { releasePanel } from './applications/release.js'
import { applicationStateText, categoryText, ownerText, type Application } from './applications/view.js'
import './applications/applications.css'

interface ListAnswer<T> { items: T[], count: number }

const SIZE = 50
const FIELDS = ['uid', 'name', 'type', 'revision', 'category', 'public', 'state', 'released', 'published', 'owner']
const COLUMNS = ['Name', 'Type', 'Revision', 'Category', 'State', 'Released', 'Published', 'Owner']

const date = (ms: number | null): string => ms === null ? '' : formatDate(ms)

function row (a: Application): HTMLElement {
  return h('tr', {},
    h('th', { scope: 'row' }, h('a', { href: `#/applications/${encodeURIComponent(a.uid)}` }, a.name)),
    h('td', {}, a.type),
    h('td', {}, a.revision),
    h('td', {}, categoryText(a.category)),
    h('td', {}, h('span', { class: `app-state app-state-${a.state.toLowerCase()}` }, applicationStateText(a.state))),
    h('td', {}, date(a.released)),
    h('td', {}, date(a.published)),
    h('td', {}, ownerText(a)))
}

export function applicationsPage (ctx: PageContext): Page {
  const offset = Math.max(0, Number(ctx.params.offset ?? 0) || 0)
  const search = searchBox({ route: '/applications', param: 'name', value: ctx.params.name ?? '', label: 'Name', placeholder: 'Name contains', name: 'Find applications', navigate: ctx.navigate })
  const body = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading applications…'))

  const load = (): void => {
    ctx.api.get<ListAnswer<Application>>('/api/v1/applications', { fields: FIELDS, name: search.text() || undefined, offset, size: SIZE })
      .then((answer) => {
        if (answer.items.length === 0) {
          replace(body, h('p', { class: 'empty' }, search.text() === '' ? 'No application yet: release a package above.' : 'No application matches this name.'))
          return
        }
        replace(body,
          h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Applications' },
            h('thead', {}, h('tr', {}, ...COLUMNS.map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, ...answer.items.map(row)))),
          pager('Pages of applications', { offset, shown: answer.items.length, count: answer.count, size: SIZE }, search.go))
      })
      .catch((err: unknown) => { replace(body, h('p', { class: 'empty' }, 'The applications could not be loaded.')); ctx.notify(err as Error) })
  }

  const release = releasePanel(ctx, load)
  replace(ctx.root, h('div', { class: 'applications-page' },
    h('h1', {}, 'Applications'), release.element, h('h2', {}, 'The company\'s applications'), search.form, body))
  load()
  return { dispose: release.dispose }
}
