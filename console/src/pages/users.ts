// The users page (`#/users`, administrators only): the company's users with their profile
// (docs/api.md#users-and-companies: GET /users with fields=profile), a search, paging, and per user: change the
// profile, remove the access. docs/api.md has no list of profiles: the choice offers the profiles the company's users
// hold.
import { h, replace } from '../lib/dom.js'
import { field, openFormDialog } from '../lib/form-dialog.js'
import { pager, searchBox } from '../lib/paging.js'
import type { Page, PageContext } from '../page.js'

interface Ref { uid: string, name?: string }
interface User { uid: string, name?: string, email?: string, profile?: Ref | null }
interface ListAnswer<T> { items: T[], count: number }

const SIZE = 50

async function knownProfiles (ctx: PageContext): Promise<Ref[]> {
  const all = await ctx.api.get<ListAnswer<User>>('/api/v1/users', { fields: ['uid', 'profile'], size: 500 })
  const byUid = new Map<string, Ref>()
  for (const u of all.items) if (u.profile != null) byUid.set(u.profile.uid, u.profile)
  return [...byUid.values()].sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''))
}

export function usersPage (ctx: PageContext): Page {
  const offset = Math.max(0, Number(ctx.params.offset ?? 0) || 0)
  const search = searchBox({ route: '/users', param: 'freetext', value: ctx.params.freetext ?? '', label: 'Search users', placeholder: 'Name or e-mail', navigate: ctx.navigate })
  const body = h('div', {}, h('p', { class: 'loading', role: 'status' }, 'Loading users…'))
  replace(ctx.root, h('h1', {}, 'Users'), search.form, body)

  const editProfile = (user: User, done: () => void): void => {
    knownProfiles(ctx).then((profiles) => {
      const select = h('select', {}, ...profiles.map((p) => h('option', { value: p.uid, selected: p.uid === user.profile?.uid }, p.name ?? p.uid)))
      openFormDialog({
        title: `Profile of ${user.name ?? user.email ?? ''}`,
        body: [field('Profile', select, 'The profile gives the user their rights in this company.')],
        submitLabel: 'Save profile',
        submit: async () => {
          await ctx.api.put(`/api/v1/users/${encodeURIComponent(user.uid)}`, { profile: { uid: select.value } })
          ctx.notify('The profile is saved.')
          done()
          return true
        }
      })
    }).catch((err: unknown) => { ctx.notify(err as Error) })
  }

  const revoke = (user: User, done: () => void): void => {
    openFormDialog({
      title: `Remove ${user.name ?? user.email ?? ''}?`,
      body: [h('p', {}, `${user.email ?? 'This user'} will no longer have access to ${ctx.session.company.name}.`)],
      submitLabel: 'Remove access',
      danger: true,
      submit: async () => {
        await ctx.api.delete(`/api/v1/users/${encodeURIComponent(user.uid)}`)
        ctx.notify('The access is removed.')
        done()
        return true
      }
    })
  }

  const load = (): void => {
    ctx.api.get<ListAnswer<User>>('/api/v1/users', { fields: ['uid', 'name', 'email', 'profile'], freetext: search.text() || undefined, offset, size: SIZE, orderBy: 'name' })
      .then((answer) => {
        if (answer.items.length === 0) {
          replace(body, h('p', { class: 'empty' }, search.text() === '' ? 'The company has no user.' : 'No user matches this search.'))
          return
        }
        replace(body,
          h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'aria-label': 'Users' },
            h('thead', {}, h('tr', {}, ...['Name', 'E-mail', 'Profile', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, ...answer.items.map((u) => h('tr', {},
              h('td', {}, u.name ?? ''),
              h('td', {}, u.email ?? ''),
              h('td', {}, u.profile?.name ?? 'No profile'),
              h('td', { class: 'actions' },
                h('button', { type: 'button', 'aria-label': `Change the profile of ${u.name ?? u.email ?? ''}`, onclick: () => { editProfile(u, load) } }, 'Change profile'),
                ' ',
                u.uid === ctx.session.user.uid ? null : h('button', { type: 'button', 'aria-label': `Remove ${u.name ?? u.email ?? ''}`, onclick: () => { revoke(u, load) } }, 'Remove'))))))),
          pager('Pages of users', { offset, shown: answer.items.length, count: answer.count, size: SIZE }, search.go))
      })
      .catch((err: unknown) => { replace(body, h('p', { class: 'empty' }, 'The users could not be loaded.')); ctx.notify(err as Error) })
  }
  load()
  return {}
}
