// What every API call goes through (docs/api.md#using-the-api, docs/api.md#get-a-token; docs/api.md#using-the-api): the
// token, the context company, the company's IP filters, the rate limit, unknown routes and malformed requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { companyUid, createUser, seed, uniq, type TestUser } from '../helpers/factories.js'

const VIEW = 'accountNetwork.users.view'
const WRITE = 'accountNetwork.users.write'

describe('with the default rate limit', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack() })
  afterAll(async () => { await stack.close() })

  const get = async (token: string, url: string, remoteAddress?: string) =>
    await stack.call(token, { method: 'GET', url, ...(remoteAddress === undefined ? {} : { remoteAddress }) })

  describe('company context (fleet-api.md §Conventions 6)', () => {
    const HOME = 'Home Co'
    const SECOND = 'Second Co'
    const STRANGER = 'Stranger Co'
    let home: string
    let second: string
    let stranger: string
    let both: TestUser // member of HOME (its company) and administrator of SECOND
    let homeOnly: TestUser
    let secondOnly: TestUser
    let strangerUser: TestUser

    beforeAll(async () => {
      await seed(stack, {
        companies: [{ name: HOME }, { name: SECOND }, { name: STRANGER }],
        profiles: [
          { company: HOME, name: 'Reader', rights: [VIEW] },
          { company: SECOND, name: 'Manager', rights: [VIEW, WRITE, 'entities.systems.view'] },
          { company: STRANGER, name: 'Everything', rights: [VIEW, WRITE] }
        ]
      })
      const email = `${uniq('both')}@test.local`
      await seed(stack, {
        users: [{
          email,
          name: 'Both Companies',
          password: 'both-password',
          companies: [{ company: HOME, profile: 'Reader' }, { company: SECOND, profile: 'Manager', administrator: true }]
        }]
      })
      const token = await stack.login(email, 'both-password')
      both = { uid: (await get(token, '/api/v1/users/current')).json().uid, email, password: 'both-password', token }
      homeOnly = await createUser(stack, { company: HOME, profile: 'Reader' })
      secondOnly = await createUser(stack, { company: SECOND, profile: 'Manager' })
      strangerUser = await createUser(stack, { company: STRANGER, profile: 'Everything' })
      home = await companyUid(stack, HOME)
      second = await companyUid(stack, SECOND)
      stranger = await companyUid(stack, STRANGER)
    })

    it('defaults to the company the user belongs to', async () => {
      const me = (await get(both.token, '/api/v1/users/current')).json()
      expect(me.company).toEqual({ uid: home, name: HOME })
      expect(me.profile.name).toBe('Reader')
      expect((await get(both.token, '/api/v1/users/rights')).json()).toEqual([VIEW])
      const uids = (await get(both.token, '/api/v1/users')).json().items.map((u: { uid: string }) => u.uid)
      expect(uids.sort()).toEqual([both.uid, homeOnly.uid].sort())
    })

    it('selects another company the user is a member of with the company parameter', async () => {
      const rights = (await get(both.token, `/api/v1/users/rights?company=${second}`)).json()
      expect([...rights].sort()).toEqual(['administrator', 'entities.systems.view', VIEW, WRITE].sort())
      const list = (await get(both.token, `/api/v1/users?company=${second}`)).json()
      expect(list.items.map((u: { uid: string }) => u.uid).sort()).toEqual([both.uid, secondOnly.uid].sort())
      const details = (await get(both.token, `/api/v1/users/${secondOnly.uid}?company=${second}`)).json()
      expect(details.company).toEqual({ uid: second, name: SECOND })
      const self = (await get(both.token, `/api/v1/users/${both.uid}?company=${second}`)).json()
      expect(self.profile.name).toBe('Manager')
      expect(self.company).toEqual({ uid: second, name: SECOND })
    })

    it('acts on the selected company only', async () => {
      // administrator in SECOND, not in HOME: editing is refused at home and allowed in SECOND
      const atHome = await stack.call(both.token, { method: 'DELETE', url: `/api/v1/users/${homeOnly.uid}` })
      expect(atHome.statusCode).toBe(403)
      expect(atHome.json()).toEqual({ error: 'missing.rights', errorParameters: [WRITE] })
      // a HOME user is unknown in SECOND
      const cross = await get(both.token, `/api/v1/users/${homeOnly.uid}?company=${second}`)
      expect(cross.json()).toEqual({ error: 'user.unknown', errorParameters: [homeOnly.uid] })
      const crossDelete = await stack.call(both.token, { method: 'DELETE', url: `/api/v1/users/${homeOnly.uid}?company=${second}` })
      expect(crossDelete.json()).toEqual({ error: 'user.unknown', errorParameters: [homeOnly.uid] })
      const manager = (await get(both.token, `/api/v1/users?company=${second}&fields=uid,profile&uid=${secondOnly.uid}`)).json()
      const edited = await stack.call(both.token, {
        method: 'PUT', url: `/api/v1/users/${secondOnly.uid}?company=${second}`, payload: { profile: { uid: manager.items[0].profile.uid } }
      })
      expect(edited.statusCode, edited.body).toBe(200)
      expect(edited.json().company).toEqual({ uid: second, name: SECOND })
      // HOME is untouched
      expect((await get(homeOnly.token, '/api/v1/users/rights')).json()).toEqual([VIEW])
    })

    it('revoking in one company keeps the access to the other', async () => {
      const email = `${uniq('two')}@test.local`
      await seed(stack, { users: [{ email, name: 'Two', password: 'two-password', companies: [{ company: HOME, profile: 'Reader' }, { company: SECOND, profile: 'Manager' }] }] })
      const token = await stack.login(email, 'two-password')
      const uid = (await get(token, '/api/v1/users/current')).json().uid
      const res = await stack.call(both.token, { method: 'DELETE', url: `/api/v1/users/${uid}?company=${second}` })
      expect(res.statusCode).toBe(200)
      expect((await get(token, `/api/v1/users/rights?company=${second}`)).json()).toEqual({ error: 'partner.unknown', errorParameters: [second] })
      expect((await get(token, `/api/v1/users/rights?company=${home}`)).json()).toEqual([VIEW])
    })

    it('answers partner.unknown for a company the user is not a member of, exactly as for one that does not exist', async () => {
      const nobody = await createUser(stack, { company: HOME, rights: [] })
      for (const token of [both.token, nobody.token]) {
        for (const url of ['/api/v1/users', '/api/v1/users/rights', `/api/v1/users/${strangerUser.uid}`]) {
          for (const company of [stranger, 'no-such-company']) {
            const res = await get(token, `${url}?company=${company}`)
            expect(res.statusCode, `${url}?company=${company}`).toBe(400)
            expect(res.json()).toEqual({ error: 'partner.unknown', errorParameters: [company] })
          }
        }
        for (const method of ['PUT', 'DELETE'] as const) {
          const res = await stack.call(token, { method, url: `/api/v1/users/${strangerUser.uid}?company=${stranger}`, ...(method === 'PUT' ? { payload: { profile: { uid: 'x' } } } : {}) })
          expect(res.statusCode).toBe(400)
          expect(res.json()).toEqual({ error: 'partner.unknown', errorParameters: [stranger] })
        }
      }
      // the stranger was left alone
      expect((await get(strangerUser.token, '/api/v1/users/rights')).statusCode).toBe(200)
    })

    it('never shows a user of another company in a find', async () => {
      for (const qs of [`uid=${strangerUser.uid}`, `freetext=${strangerUser.email}`, `email=${strangerUser.email}`, `company=${home}&uid=${secondOnly.uid}`]) {
        const res = (await get(both.token, `/api/v1/users?${qs}`)).json()
        expect(res, qs).toMatchObject({ count: 0, size: 0, items: [] })
      }
    })
  })

  describe('company ipFiltering (fleet-api.md §Company)', () => {
    const FILTERED = 'Filtered Co'
    const OPEN = 'Open Co'
    let filtered: string
    let admin: TestUser
    let reader: TestUser

    beforeAll(async () => {
      await seed(stack, {
        companies: [{ name: FILTERED }, { name: OPEN }],
        profiles: [{ company: FILTERED, name: 'All', rights: [VIEW, WRITE, 'accountNetwork.company.viewDetails'] }, { company: OPEN, name: 'Reader', rights: [VIEW] }]
      })
      filtered = await companyUid(stack, FILTERED)
      admin = await createUser(stack, { company: FILTERED, profile: 'All', administrator: true })
      const email = `${uniq('reader')}@test.local`
      await seed(stack, { users: [{ email, name: 'Reader', password: 'reader-password', companies: [{ company: OPEN, profile: 'Reader' }, { company: FILTERED, profile: 'All' }] }] })
      const token = await stack.login(email, 'reader-password')
      reader = { uid: (await get(token, '/api/v1/users/current')).json().uid, email, password: 'reader-password', token }
      const res = await stack.call(admin.token, {
        method: 'PUT',
        url: `/api/v1/company/${filtered}`,
        payload: {
          ipFiltering: true,
          ipFilters: { startIPAddress: '10.0.0.10', endIPAddress: '10.0.0.20', ipAddresses: ['192.0.2.7', '2001:db8::1'] }
        }
      })
      expect(res.statusCode, res.body).toBe(200)
    })

    it('lets through a listed address, an address inside the range and a listed IPv6 address', async () => {
      for (const ip of ['192.0.2.7', '10.0.0.10', '10.0.0.15', '10.0.0.20', '2001:db8::1', '2001:db8:0:0:0:0:0:1', '::ffff:10.0.0.12']) {
        const res = await get(admin.token, '/api/v1/users', ip)
        expect(res.statusCode, ip).toBe(200)
        const rights = await get(reader.token, `/api/v1/users/rights?company=${filtered}`, ip)
        expect(rights.statusCode, ip).toBe(200)
      }
    })

    it('refuses any other address with 403 ip.forbidden on calls acting on the company', async () => {
      for (const ip of ['127.0.0.1', '10.0.0.9', '10.0.0.21', '192.0.2.8', '2001:db8::2', '::1']) {
        for (const [token, url] of [
          [admin.token, '/api/v1/users'],
          [admin.token, `/api/v1/users/${admin.uid}`],
          [admin.token, `/api/v1/company/${filtered}`],
          [reader.token, `/api/v1/users/rights?company=${filtered}`]
        ] as const) {
          const res = await get(token, url, ip)
          expect(res.statusCode, `${ip} ${url}`).toBe(403)
          expect(res.json()).toEqual({ error: 'ip.forbidden', errorParameters: [ip] })
        }
      }
      const del = await stack.call(admin.token, { method: 'DELETE', url: `/api/v1/users/${reader.uid}`, remoteAddress: '127.0.0.2' })
      expect(del.statusCode).toBe(403)
      expect(del.json().error).toBe('ip.forbidden')
      expect((await get(reader.token, `/api/v1/users/rights?company=${filtered}`, '192.0.2.7')).statusCode).toBe(200)
    })

    it('filters IPv6 ranges too', async () => {
      const v6 = uniq('V6 Co')
      await seed(stack, { companies: [{ name: v6 }], profiles: [{ company: v6, name: 'All', rights: [VIEW] }] })
      const a = await createUser(stack, { company: v6, profile: 'All', administrator: true })
      const res = await stack.call(a.token, {
        method: 'PUT',
        url: `/api/v1/company/${await companyUid(stack, v6)}`,
        payload: { ipFiltering: true, ipFilters: { startIPAddress: 'fd00::10', endIPAddress: 'fd00::1f', ipAddresses: [] } }
      })
      expect(res.statusCode, res.body).toBe(200)
      expect((await get(a.token, '/api/v1/users', 'fd00::1a')).statusCode).toBe(200)
      expect((await get(a.token, '/api/v1/users', 'fd00::20')).json()).toEqual({ error: 'ip.forbidden', errorParameters: ['fd00::20'] })
      expect((await get(a.token, '/api/v1/users', '10.0.0.15')).statusCode).toBe(403)
    })

    it('filters the current user by the filters of the company the user belongs to', async () => {
      const refused = await get(admin.token, '/api/v1/users/current', '127.0.0.1')
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({ error: 'ip.forbidden', errorParameters: ['127.0.0.1'] })
      expect((await get(admin.token, '/api/v1/users/current', '10.0.0.11')).statusCode).toBe(200)
    })

    it('does not filter calls acting on another company of the same user', async () => {
      const res = await get(reader.token, '/api/v1/users', '127.0.0.1') // OPEN, the reader's own company
      expect(res.statusCode).toBe(200)
      expect((await get(reader.token, '/api/v1/users/current', '127.0.0.1')).statusCode).toBe(200)
    })

    it('answers partner.unknown, not ip.forbidden, to a caller that is not a member', async () => {
      const outsider = await createUser(stack, { rights: [VIEW] })
      const res = await get(outsider.token, `/api/v1/users?company=${filtered}`, '127.0.0.1')
      expect(res.json()).toEqual({ error: 'partner.unknown', errorParameters: [filtered] })
    })
  })

  describe('unknown routes and malformed requests (conventions.md §Errors)', () => {
    it('answers 404 not.found for an unknown route, with or without a token', async () => {
      for (const res of [
        await get(stack.adminToken, '/api/v1/nope'),
        await stack.api.inject({ method: 'GET', url: '/api/v1/nope?x=1' }),
        await stack.call(stack.adminToken, { method: 'PATCH', url: '/api/v1/users' }),
        await stack.api.inject({ method: 'GET', url: '/nothing/here' })
      ]) {
        expect(res.statusCode).toBe(404)
        expect(res.headers['content-type']).toMatch(/application\/json/)
        expect(res.json()).toMatchObject({ error: 'not.found', errorParameters: expect.any(Array) })
      }
      expect((await get(stack.adminToken, '/api/v1/nope?x=1')).json()).toEqual({ error: 'not.found', errorParameters: ['/api/v1/nope'] })
    })

    it('answers 400 with a JSON body for a malformed query or body', async () => {
      for (const url of ['/api/v1/users?size=abc', '/api/v1/users?offset=-1', '/api/v1/users?offset=1.5']) {
        const res = await get(stack.adminToken, url)
        expect(res.statusCode, url).toBe(400)
        expect(res.headers['content-type']).toMatch(/application\/json/)
        expect(res.json()).toMatchObject({ error: 'request.invalid', errorParameters: expect.any(Array) })
      }
      const badJson = await stack.call(stack.adminToken, {
        method: 'PUT', url: `/api/v1/users/${stack.adminUid}`, headers: { 'content-type': 'application/json' }, payload: '{"profile":'
      })
      expect(badJson.statusCode).toBe(400)
      expect(badJson.json().error).toBe('request.invalid')
      const badShape = await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/users/${stack.adminUid}`, payload: { profile: 'admin' } })
      expect(badShape.statusCode).toBe(400)
      expect(badShape.json().error).toBe('request.invalid')
    })

    it('answers 401 invalid_token for a missing, unknown or refresh token', async () => {
      const refresh = (await stack.api.inject({
        method: 'POST', url: '/api/oauth/token', payload: { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
      })).json().refresh_token
      for (const res of [
        await stack.api.inject({ method: 'GET', url: '/api/v1/users/rights' }),
        await get('nope', '/api/v1/users'),
        await get(refresh, '/api/v1/users/current')
      ]) {
        expect(res.statusCode).toBe(401)
        expect(res.json()).toMatchObject({ error: 'invalid_token', error_description: expect.any(String) })
      }
    })
  })
})

describe('rate limit (conventions.md §Rate limiting)', () => {
  const PER_S = 3
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ env: { RATE_LIMIT_PER_S: String(PER_S) } }) })
  afterAll(async () => { await stack.close() })

  // The token endpoint is limited per address: each token comes from its own.
  let next = 0
  const token = async (): Promise<string> => {
    next++
    const res = await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/token',
      remoteAddress: `198.51.100.${next}`,
      payload: { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().access_token
  }
  const burst = async (t: string, n: number) =>
    await Promise.all(Array.from({ length: n }, async () => await stack.call(t, { method: 'GET', url: '/api/v1/users/rights' })))

  it('answers 429 rate.limit.exceeded with Retry-After past the quota of one token', async () => {
    const t = await token()
    const answers = await burst(t, 10)
    const ok = answers.filter((r) => r.statusCode === 200)
    const limited = answers.filter((r) => r.statusCode === 429)
    expect(ok.length + limited.length).toBe(10)
    // a burst can straddle two windows: at most two quotas get through
    expect(ok.length).toBeLessThanOrEqual(2 * PER_S)
    expect(limited.length).toBeGreaterThanOrEqual(1)
    for (const r of limited) {
      expect(r.json()).toEqual({ error: 'rate.limit.exceeded', errorParameters: [] })
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
  })

  it('counts per token: another token is not affected', async () => {
    const [a, b] = [await token(), await token()]
    const answers = await burst(a, 10)
    expect(answers.some((r) => r.statusCode === 429)).toBe(true)
    const other = await stack.call(b, { method: 'GET', url: '/api/v1/users/current' })
    expect(other.statusCode).toBe(200)
  })

  it('counts a token given as the access_token query parameter like a bearer header', async () => {
    const t = await token()
    const answers = await Promise.all(Array.from({ length: 10 }, async (_, i) =>
      i % 2 === 0
        ? await stack.api.inject({ method: 'GET', url: `/api/v1/users/rights?access_token=${t}` })
        : await stack.call(t, { method: 'GET', url: '/api/v1/users/rights' })))
    expect(answers.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(2 * PER_S)
    expect(answers.some((r) => r.statusCode === 429)).toBe(true)
  })

  it('limits the token endpoint per client address', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, async () => await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/token',
      remoteAddress: '203.0.113.9',
      payload: { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
    })))
    expect(answers.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(2 * PER_S)
    const limited = answers.filter((r) => r.statusCode === 429)
    expect(limited.length).toBeGreaterThanOrEqual(1)
    expect(limited[0]?.json()).toEqual({ error: 'rate.limit.exceeded', errorParameters: [] })
    expect(limited[0]?.headers['retry-after']).toBeDefined()
  })
})
