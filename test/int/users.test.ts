// docs/api.md#users-and-companies through HTTP: current, rights, details, find, edit, revoke, and the right of each
// row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, ADMIN_PASSWORD, COMPANY_NAME, startStack, type Stack } from '../helpers/stack.js'
import { companyUid, createUser, seed, uniq, type TestUser } from '../helpers/factories.js'

let stack: Stack

const VIEW = 'accountNetwork.users.view'
const WRITE = 'accountNetwork.users.write'

// A company of our own, so that find answers exactly the users below (the stack's company gains members
// as other tests create users).
const FIND_CO = 'Find Co'
const OTHER_CO = 'Other Co'
let findCo: string
let otherCo: string
let caller: TestUser // FIND_CO, profile Viewer (users.view), not an administrator
let admin: TestUser // FIND_CO administrator with users.view and users.write
let writer: TestUser // FIND_CO, users.view and users.write, not an administrator
let outsider: TestUser // OTHER_CO only
const uids: Record<string, string> = {}
const profiles: Record<string, string> = {}

async function userUid (email: string): Promise<string> {
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM users WHERE email = $1', [email])
  if (rows[0] === undefined) throw new Error(`no user ${email}`)
  return rows[0].uid
}

async function profileUid (company: string, name: string): Promise<string> {
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM profiles WHERE company_uid = $1 AND name = $2', [company, name])
  if (rows[0] === undefined) throw new Error(`no profile ${name}`)
  return rows[0].uid
}

beforeAll(async () => {
  stack = await startStack()
  await seed(stack, {
    companies: [{ name: FIND_CO }, { name: OTHER_CO }],
    profiles: [
      { company: FIND_CO, name: 'Viewer', rights: [VIEW] },
      { company: FIND_CO, name: 'Ops', rights: [VIEW, 'entities.systems.view'] },
      { company: FIND_CO, name: 'Editor', rights: [VIEW, WRITE] },
      { company: OTHER_CO, name: 'Foreign', rights: [VIEW, WRITE] }
    ],
    users: [
      { email: 'alice.smith@find.test', name: 'Alice Smith', phoneNumber: '+33612345678', companies: [{ company: FIND_CO, profile: 'Ops' }] },
      { email: 'bob@find.test', name: 'Bob Jones', companies: [{ company: FIND_CO, profile: 'Viewer' }] },
      { email: 'carol@other.test', name: 'Carol Smithers', companies: [{ company: FIND_CO, profile: null }] },
      { email: 'alice.out@find.test', name: 'Alice Outsider', companies: [{ company: OTHER_CO, profile: 'Foreign' }] }
    ]
  })
  findCo = await companyUid(stack, FIND_CO)
  otherCo = await companyUid(stack, OTHER_CO)
  for (const e of ['alice.smith@find.test', 'bob@find.test', 'carol@other.test', 'alice.out@find.test']) uids[e] = await userUid(e)
  for (const p of ['Viewer', 'Ops', 'Editor']) profiles[p] = await profileUid(findCo, p)
  profiles.Foreign = await profileUid(otherCo, 'Foreign')
  caller = await createUser(stack, { company: FIND_CO, profile: 'Viewer', name: 'Zed Caller' })
  admin = await createUser(stack, { company: FIND_CO, profile: 'Editor', administrator: true, name: 'Yan Admin' })
  writer = await createUser(stack, { company: FIND_CO, profile: 'Editor', name: 'Xavier Writer' })
  outsider = await createUser(stack, { company: OTHER_CO, profile: 'Foreign', name: 'Olga Outsider' })
})
afterAll(async () => { await stack.close() })

const get = async (token: string, url: string) => await stack.call(token, { method: 'GET', url })

describe('GET /users/current', () => {
  it('answers the caller as a User, with no right needed', async () => {
    const nobody = await createUser(stack, { rights: [] })
    const res = await get(nobody.token, '/api/v1/users/current')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ uid: nobody.uid, email: nobody.email, phoneNumber: null, picture: null })
    expect(body.company).toEqual({ uid: stack.companyUid, name: COMPANY_NAME })
    expect(body.profile).toMatchObject({ name: expect.any(String), uid: expect.any(String) })
  })

  it('answers profile null for a user without profile', async () => {
    const bare = await createUser(stack, { profile: null })
    const res = await get(bare.token, '/api/v1/users/current')
    expect(res.statusCode).toBe(200)
    expect(res.json().profile).toBeNull()
  })

  it('answers user.unknown for an API client that has no owning user', async () => {
    const clientId = uniq('ownerless')
    await seed(stack, { clients: [{ clientId, clientSecret: 'ownerless-secret' }] })
    const tok = await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: 'ownerless-secret' }
    })
    expect(tok.statusCode).toBe(200)
    const res = await get(tok.json().access_token, '/api/v1/users/current')
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'user.unknown', errorParameters: [] })
  })
})

describe('GET /users/rights', () => {
  it('answers the right strings of the caller in the context company, with no right needed', async () => {
    const res = await get(caller.token, '/api/v1/users/rights')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual([VIEW])
    const nobody = await createUser(stack, { rights: [] })
    const none = await get(nobody.token, '/api/v1/users/rights')
    expect(none.statusCode).toBe(200)
    expect(none.json()).toEqual([])
  })

  it('includes administrator for a company administrator', async () => {
    const res = await get(admin.token, `/api/v1/users/rights?company=${findCo}`)
    expect(res.statusCode).toBe(200)
    expect([...res.json()].sort()).toEqual(['administrator', VIEW, WRITE].sort())
  })

  it('answers partner.unknown for an existing company the caller is not a member of, and an unknown one', async () => {
    const res = await get(caller.token, `/api/v1/users/rights?company=${otherCo}`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'partner.unknown', errorParameters: [otherCo] })
    for (const company of ['no-such-company', 'c'.repeat(100)]) {
      const unknown = await get(caller.token, `/api/v1/users/rights?company=${company}`)
      expect(unknown.statusCode).toBe(400)
      expect(unknown.json()).toEqual({ error: 'partner.unknown', errorParameters: [company] })
    }
  })
})

describe('GET /users/{uid}', () => {
  it('answers the User with its profile and company in the context company', async () => {
    const res = await get(caller.token, `/api/v1/users/${uids['alice.smith@find.test']}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      uid: uids['alice.smith@find.test'],
      email: 'alice.smith@find.test',
      name: 'Alice Smith',
      phoneNumber: '+33612345678',
      profile: { uid: profiles.Ops, name: 'Ops' },
      company: { uid: findCo, name: FIND_CO },
      picture: null
    })
  })

  it('answers user.unknown for a user of another company and for an unknown uid', async () => {
    for (const uid of [outsider.uid, uids['alice.out@find.test'], 'no-such-user', 'u'.repeat(100)]) {
      const res = await get(caller.token, `/api/v1/users/${uid}`)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ error: 'user.unknown', errorParameters: [uid] })
    }
  })
})

describe('GET /users (find)', () => {
  type Item = Record<string, unknown>
  const find = async (qs: string): Promise<{ items: Item[], count: number, size: number, offset: number }> => {
    const res = await get(caller.token, `/api/v1/users?${qs}`)
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }
  const emails = (items: Item[]): unknown[] => items.map((i) => i.email)
  const ALL = ['alice.smith@find.test', 'bob@find.test', 'carol@other.test']

  it('lists the members of the context company with uid, name and email only by default', async () => {
    const page = await find('')
    expect(page.count).toBe(6)
    expect(page.size).toBe(6)
    expect(page.offset).toBe(0)
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(['email', 'name', 'uid'])
    expect(emails(page.items)).toEqual(expect.arrayContaining([...ALL, caller.email, admin.email, writer.email]))
    expect(emails(page.items)).not.toContain(outsider.email)
    expect(emails(page.items)).not.toContain('alice.out@find.test')
  })

  it('answers the fields asked for, profile included', async () => {
    const page = await find(`uid=${uids['alice.smith@find.test']}&fields=uid,profile`)
    expect(page.items).toEqual([{ uid: uids['alice.smith@find.test'], profile: { uid: profiles.Ops, name: 'Ops' } }])
    const repeated = await find(`uid=${uids['carol@other.test']}&fields=name&fields=profile`)
    expect(repeated.items).toEqual([{ name: 'Carol Smithers', profile: null }])
  })

  it('filters by uid, email like, name like, profile and freetext', async () => {
    expect(emails((await find(`uid=${uids['bob@find.test']}`)).items)).toEqual(['bob@find.test'])
    expect(emails((await find('email=smith')).items)).toEqual(['alice.smith@find.test'])
    expect(emails((await find('email=other.test')).items)).toEqual(['carol@other.test'])
    expect(emails((await find('name=Smith&orderBy=name')).items)).toEqual(['alice.smith@find.test', 'carol@other.test'])
    expect(emails((await find(`profile=${profiles.Ops}`)).items)).toEqual(['alice.smith@find.test'])
    expect(emails((await find('freetext=jones')).items)).toEqual(['bob@find.test']) // on the name
    expect(emails((await find('freetext=other.test')).items)).toEqual(['carol@other.test']) // on the e-mail
    expect((await find('email=100%25')).count).toBe(0) // like means "contains": % is not a wildcard
  })

  it('never answers a user of another company, whatever the filter', async () => {
    for (const qs of [`uid=${outsider.uid}`, 'name=Outsider', 'freetext=alice.out', 'email=alice.out', `profile=${profiles.Foreign}`]) {
      const page = await find(qs)
      expect(page.count, qs).toBe(0)
      expect(page.items, qs).toEqual([])
    }
  })

  it('sorts by name, email and profile in both directions (orderBy, asc, desc)', async () => {
    const names = (items: Item[]): string[] => items.map((i) => i.name as string)
    const byName = names((await find('orderBy=name')).items)
    expect(byName).toEqual([...byName].sort())
    expect(byName[0]).toBe('Alice Smith')
    expect(names((await find('orderBy=name:desc')).items)).toEqual([...byName].reverse())
    expect(names((await find('asc=name')).items)).toEqual(byName)
    expect(names((await find('desc=name')).items)).toEqual([...byName].reverse())

    const byEmail = emails((await find('orderBy=email:asc')).items) as string[]
    expect(byEmail).toEqual([...byEmail].sort())
    expect(emails((await find('desc=email')).items)).toEqual([...byEmail].reverse())

    const profileNames = async (qs: string): Promise<Array<string | null>> =>
      (await find(`${qs}&fields=email,profile`)).items.map((i) => (i.profile as { name: string } | null)?.name ?? null)
    const up = await profileNames('asc=profile')
    const down = await profileNames('orderBy=profile:desc')
    const present = (xs: Array<string | null>): string[] => xs.filter((x): x is string => x !== null)
    expect(present(up)).toEqual([...present(up)].sort())
    expect(present(down)).toEqual([...present(up)].reverse())
    expect(present(up)).toEqual(['Editor', 'Editor', 'Ops', 'Viewer', 'Viewer'])
  })

  it('answers sort.invalid.field for an attribute that is not sortable', async () => {
    for (const qs of ['orderBy=uid', 'orderBy=phoneNumber:desc', 'asc=company', 'desc=password_hash', 'orderBy=name:sideways']) {
      const res = await get(caller.token, `/api/v1/users?${qs}`)
      expect(res.statusCode, qs).toBe(400)
      expect(res.json().error, qs).toBe('sort.invalid.field')
    }
  })

  it('pages with offset and size: count is the total, size the page length', async () => {
    const all = await find('orderBy=email')
    const page = await find('orderBy=email&offset=1&size=2')
    expect(page).toMatchObject({ count: 6, size: 2, offset: 1 })
    expect(page.items).toEqual(all.items.slice(1, 3))
    const tail = await find('orderBy=email&offset=5&size=2')
    expect(tail).toMatchObject({ count: 6, size: 1, offset: 5 })
    const past = await find('offset=50')
    expect(past).toMatchObject({ count: 6, size: 0, offset: 50, items: [] })
  })

  it('answers 100 by default and clamps size at 500', async () => {
    const big = uniq('Big Co')
    await seed(stack, {
      companies: [{ name: big }],
      users: Array.from({ length: 510 }, (_, i) => ({ email: `m${i}@${big.toLowerCase().replace(/ /g, '')}.test`, name: `Member ${i}`, companies: [{ company: big }] }))
    })
    const viewer = await createUser(stack, { company: big, rights: [VIEW] })
    const dflt = (await get(viewer.token, '/api/v1/users')).json()
    expect(dflt).toMatchObject({ count: 511, size: 100, offset: 0 })
    expect(dflt.items).toHaveLength(100)
    const clamped = (await get(viewer.token, '/api/v1/users?size=1000')).json()
    expect(clamped).toMatchObject({ count: 511, size: 500, offset: 0 })
    expect(clamped.items).toHaveLength(500)
  })

  it('answers partner.unknown for a company parameter the caller has no access to', async () => {
    const res = await get(caller.token, `/api/v1/users?company=${otherCo}`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'partner.unknown', errorParameters: [otherCo] })
  })
})

describe('PUT /users/{uid} (edit)', () => {
  const edit = async (token: string, uid: string, payload: unknown) =>
    await stack.call(token, { method: 'PUT', url: `/api/v1/users/${uid}`, payload: payload as Record<string, unknown> })

  it('lets an administrator change the profile; answers the updated User with phoneNumber and company', async () => {
    const alice = uids['alice.smith@find.test'] as string
    const res = await edit(admin.token, alice, { profile: { uid: profiles.Editor } })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      uid: alice,
      email: 'alice.smith@find.test',
      name: 'Alice Smith',
      phoneNumber: '+33612345678',
      profile: { uid: profiles.Editor, name: 'Editor' },
      company: { uid: findCo, name: FIND_CO },
      picture: null
    })
    expect((await get(caller.token, `/api/v1/users/${alice}`)).json().profile).toEqual({ uid: profiles.Editor, name: 'Editor' })
    const back = await edit(admin.token, alice, { profile: { uid: profiles.Ops } })
    expect(back.json().profile).toEqual({ uid: profiles.Ops, name: 'Ops' })
  })

  it('the new profile gives its rights to the user', async () => {
    const u = await createUser(stack, { company: FIND_CO, profile: 'Viewer' })
    expect((await edit(admin.token, u.uid, { profile: { uid: profiles.Ops } })).statusCode).toBe(200)
    expect([...(await get(u.token, '/api/v1/users/rights')).json()].sort()).toEqual(['entities.systems.view', VIEW].sort())
  })

  it('answers user.not.authorize when the caller is not an administrator', async () => {
    const res = await edit(writer.token, uids['bob@find.test'] as string, { profile: { uid: profiles.Ops } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'user.not.authorize', errorParameters: [uids['bob@find.test']] })
    expect((await get(caller.token, `/api/v1/users/${uids['bob@find.test']}`)).json().profile.name).toBe('Viewer')
  })

  it('answers profile.unknown for a missing, unknown or other-company profile', async () => {
    const bob = uids['bob@find.test'] as string
    for (const payload of [{}, { profile: null }, { profile: {} }, { profile: { uid: 'no-such-profile' } }, { profile: { uid: profiles.Foreign } }]) {
      const res = await edit(admin.token, bob, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().error, JSON.stringify(payload)).toBe('profile.unknown')
    }
    expect((await get(caller.token, `/api/v1/users/${bob}`)).json().profile.name).toBe('Viewer')
  })

  it('answers user.unknown for an unknown user and a user of another company', async () => {
    for (const uid of ['no-such-user', outsider.uid, 'u'.repeat(100)]) {
      const res = await edit(admin.token, uid, { profile: { uid: profiles.Ops } })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ error: 'user.unknown', errorParameters: [uid] })
    }
  })
})

describe('DELETE /users/{uid} (revoke)', () => {
  it('removes the access of the user to the company with an empty 200 answer', async () => {
    const victim = await createUser(stack, { company: FIND_CO, profile: 'Viewer' })
    expect((await get(victim.token, '/api/v1/users/rights')).statusCode).toBe(200)
    const res = await stack.call(admin.token, { method: 'DELETE', url: `/api/v1/users/${victim.uid}` })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('')

    // The user is gone from the company and has lost its access there.
    const details = await get(caller.token, `/api/v1/users/${victim.uid}`)
    expect(details.json()).toEqual({ error: 'user.unknown', errorParameters: [victim.uid] })
    expect((await get(caller.token, `/api/v1/users?uid=${victim.uid}`)).json().count).toBe(0)
    const rights = await get(victim.token, `/api/v1/users/rights?company=${findCo}`)
    expect(rights.statusCode).toBe(400)
    expect(rights.json()).toEqual({ error: 'partner.unknown', errorParameters: [findCo] })
    const list = await get(victim.token, '/api/v1/users')
    expect(list.statusCode).toBe(400)
    expect(list.json().error).toBe('partner.unknown')
  })

  it('answers user.unknown for a user that is not a member', async () => {
    for (const uid of ['no-such-user', outsider.uid, 'u'.repeat(100)]) {
      const res = await stack.call(admin.token, { method: 'DELETE', url: `/api/v1/users/${uid}` })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ error: 'user.unknown', errorParameters: [uid] })
    }
    const again = await createUser(stack, { company: FIND_CO, profile: 'Viewer' })
    expect((await stack.call(admin.token, { method: 'DELETE', url: `/api/v1/users/${again.uid}` })).statusCode).toBe(200)
    expect((await stack.call(admin.token, { method: 'DELETE', url: `/api/v1/users/${again.uid}` })).json().error).toBe('user.unknown')
    // the outsider keeps its own company
    expect((await get(outsider.token, '/api/v1/users/rights')).statusCode).toBe(200)
  })
})

describe('permissions (fleet-api.md §Users rows)', () => {
  const rows = [
    { method: 'GET', path: (u: string) => `/api/v1/users/${u}`, right: VIEW },
    { method: 'GET', path: () => '/api/v1/users', right: VIEW },
    { method: 'PUT', path: (u: string) => `/api/v1/users/${u}`, right: WRITE },
    { method: 'DELETE', path: (u: string) => `/api/v1/users/${u}`, right: WRITE }
  ] as const

  it('answers 403 missing.rights naming the right to a user whose profile lacks it', async () => {
    const nobody = await createUser(stack, { rights: [] })
    const target = await createUser(stack, { rights: [] })
    for (const row of rows) {
      const res = await stack.call(nobody.token, { method: row.method, url: row.path(target.uid), ...(row.method === 'PUT' ? { payload: { profile: { uid: 'x' } } } : {}) })
      expect(res.statusCode, `${row.method} ${row.path('{uid}')}`).toBe(403)
      expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: [row.right] })
    }
    // the target is untouched
    expect((await get(target.token, '/api/v1/users/current')).statusCode).toBe(200)
  })

  it('lets a viewer read but not write', async () => {
    const viewer = await createUser(stack, { rights: [VIEW] })
    expect((await get(viewer.token, `/api/v1/users/${stack.adminUid}`)).statusCode).toBe(200)
    expect((await get(viewer.token, '/api/v1/users')).statusCode).toBe(200)
    const del = await stack.call(viewer.token, { method: 'DELETE', url: `/api/v1/users/${stack.adminUid}` })
    expect(del.statusCode).toBe(403)
    expect(del.json()).toEqual({ error: 'missing.rights', errorParameters: [WRITE] })
    const me = await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    expect((await get(me, '/api/v1/users/current')).statusCode).toBe(200)
  })

  it('a user without profile holds no right', async () => {
    const bare = await createUser(stack, { profile: null })
    expect((await get(bare.token, '/api/v1/users/rights')).json()).toEqual([])
    const res = await get(bare.token, '/api/v1/users')
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: [VIEW] })
  })
})
