// One application (`#/applications/<uid>`): what it is (state, dates, owner, update path), the binaries of its package
// with their sizes and digests, and for the company's own: Publish (an APPLICATION_PUBLISH operation followed to its
// end) and Delete (refused in words while an operation or systems use it: docs/packages.md#release-and-publish).
import { h, replace } from '../lib/dom.js'
import { taskErrorText } from '../lib/errors.js'
import { formatBytes, formatDate } from '../lib/format.js'
import { openFormDialog } from '../lib/form-dialog.js'
import type { Page, PageContext } from '../page.js'
import { followOperation, type Following } from './applications/follow.js'
import { applicationStateText, categoryText, ownedByCompany, ownerText, type Application, type Binary } from './applications/view.js'
import './applications/applications.css'

function details (a: Application): HTMLElement {
  const item = (term: string, value: string | Node): HTMLElement[] => [h('dt', {}, term), h('dd', {}, value)]
  return h('dl', { class: 'details' },
    item('State', h('span', { class: 'app-state' }, applicationStateText(a.state))),
    item('Type', a.type),
    item('Revision', a.revision),
    item('Category', categoryText(a.category)),
    item('Released', a.released === null ? '—' : formatDate(a.released)),
    item('Published', a.published === null ? '—' : formatDate(a.published)),
    item('Owner', ownerText(a)),
    item('Update path', a.applicationManager ?? 'None: it cannot be installed on devices'))
}

function binariesTable (binaries: readonly Binary[]): HTMLElement {
  if (binaries.length === 0) return h('p', { class: 'empty' }, 'No binary: this application was not released from a package that names one.')
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Binaries' },
    h('thead', {}, h('tr', {}, ...['File', 'Revision', 'Type', 'Size', 'SHA-256', 'MD5'].map((t) => h('th', { scope: 'col', class: t === 'Size' ? 'num' : null }, t)))),
    h('tbody', {}, ...binaries.map((b) => h('tr', {},
      h('th', { scope: 'row' }, b.file),
      h('td', {}, b.revision ?? ''),
      h('td', {}, b.type ?? ''),
      h('td', { class: 'num', title: `${b.size} bytes` }, formatBytes(b.size)),
      h('td', {}, h('code', { class: 'digest' }, b.sha256)),
      h('td', {}, h('code', { class: 'digest' }, b.md5)))))))
}

export async function applicationPage (ctx: PageContext): Promise<Page> {
  const uid = ctx.params.uid ?? ''
  const path = `/api/v1/applications/${encodeURIComponent(uid)}`
  let app = await ctx.api.get<Application>(path)
  const heading = h('h1', {}, '')
  const actions = h('div', { class: 'toolbar' })
  const status = h('p', { role: 'status' })
  const info = h('div', { class: 'card' })
  const binaries = h('section', { 'aria-labelledby': 'binaries-title' })
  let following: Following | undefined

  const publish = (button: HTMLButtonElement): void => {
    button.disabled = true
    replace(status, 'Publishing…')
    ctx.api.post<{ operation: string }>('/api/v1/operations/applications/publish', { application: uid }).then(async (answer) => {
      following = followOperation(ctx, answer.operation)
      const outcome = await following.done
      if (outcome.state !== 'SUCCESS') {
        const error = outcome.error ?? { code: 'operation.unknown', message: '' }
        throw new Error(`The publication failed: ${taskErrorText(error.code, error.message)}`)
      }
      app = await ctx.api.get<Application>(path)
      replace(status, 'Published: it can be installed from the fleet page.')
      render()
    }).catch((err: unknown) => {
      replace(status)
      button.disabled = false
      ctx.notify(err as Error, 'error')
    })
  }

  const remove = (): void => {
    openFormDialog({
      title: `Delete ${app.name} ${app.revision}?`,
      body: [h('p', {}, 'The application and its binaries are deleted for good, and the stored bytes no other application uses.')],
      submitLabel: 'Delete application',
      danger: true,
      submit: async () => {
        await ctx.api.delete(path)
        ctx.notify(`${app.name} ${app.revision} is deleted.`)
        ctx.navigate('/applications')
        return true
      }
    })
  }

  const render = (): void => {
    heading.textContent = `${app.name} ${app.revision}`
    replace(info, details(app))
    replace(binaries, h('h2', { id: 'binaries-title' }, 'Binaries'), binariesTable(app.binaries))
    if (!ownedByCompany(app)) { replace(actions); return }
    const publishButton = h('button', { type: 'button', class: 'primary' }, 'Publish')
    publishButton.addEventListener('click', () => { publish(publishButton) })
    const deleteButton = h('button', { type: 'button', class: 'danger' }, 'Delete')
    deleteButton.addEventListener('click', remove)
    replace(actions, app.state === 'PUBLISHED' ? null : publishButton, deleteButton)
  }

  render()
  replace(ctx.root, h('div', { class: 'app-detail' },
    h('p', {}, h('a', { href: '#/applications' }, '← All applications')),
    h('div', { class: 'page-header' }, heading, actions),
    status, info, binaries))
  return { dispose: () => { following?.stop() } }
}
