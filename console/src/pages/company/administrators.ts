// The company's administrators (docs/api.md#users-and-companies: GET and PUT /company/{uid}/administrators): the list
// replaces the current one, may not be empty, and keeps anyone without a profile (admin.without.profile).
import { h, replace } from '../../lib/dom.js'
import type { PageContext } from '../../page.js'

interface Administrator { uid: string, email: string, name: string }
interface Member { uid: string, name?: string, email?: string }

export function administratorsPanel (ctx: PageContext, companyUid: string): HTMLElement {
  const path = `/api/v1/company/${encodeURIComponent(companyUid)}/administrators`
  const body = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading administrators…'))

  const render = (admins: Administrator[], members: Member[]): void => {
    const chosen = new Set(admins.map((a) => a.uid))
    const boxes = members.map((m) => {
      const box = h('input', { type: 'checkbox', checked: chosen.has(m.uid), value: m.uid })
      return { box, el: h('li', {}, h('label', { class: 'inline' }, box, `${m.name ?? ''} ${m.email === undefined ? '' : `(${m.email})`}`.trim())) }
    })
    const save = h('button', { type: 'submit', class: 'primary' }, 'Save administrators')
    const form = h('form', {}, h('fieldset', {}, h('legend', {}, 'Who administers the company'), h('ul', { class: 'plain-list' }, ...boxes.map((b) => b.el))), save)
    form.addEventListener('submit', (e) => {
      e.preventDefault()
      save.disabled = true
      const administrators = boxes.filter((b) => b.box.checked).map((b) => ({ uid: b.box.value }))
      ctx.api.put<Administrator[]>(path, { administrators }).then((next) => {
        ctx.notify('The administrators are saved.')
        render(next, members)
      }).catch((err: unknown) => { ctx.notify(err as Error) }).finally(() => { save.disabled = false })
    })
    replace(body, form)
  }

  Promise.all([
    ctx.api.get<Administrator[]>(path),
    ctx.api.get<{ items: Member[] }>('/api/v1/users', { fields: ['uid', 'name', 'email'], size: 500 })
  ]).then(([admins, members]) => { render(admins, members.items) })
    .catch((err: unknown) => { replace(body, h('p', { class: 'empty' }, 'The administrators could not be loaded.')); ctx.notify(err as Error) })

  return h('section', { class: 'card', 'aria-labelledby': 'admins-title' }, h('h2', { id: 'admins-title' }, 'Administrators'), body)
}
