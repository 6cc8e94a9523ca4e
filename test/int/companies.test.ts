import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../helpers/factories.js'

// docs/api.md#users-and-companies and docs/api.md#using-the-api rows "company details, ...", "company edit", "company
// edit administrators".

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const VIEW_DETAILS = 'accountNetwork.company.viewDetails'
const VIEW_ADMINS = 'accountNetwork.company.viewAdministrators'

interface Fresh { uid: string, name: string, admin: TestUser }

/** A company of its own with an administrator holding both view rights, so edits never touch other tests. */
async function freshCompany (): Promise<Fresh> {
  const name = uniq('Company')
  const admin = await createUser(stack, { company: name, administrator: true, rights: [VIEW_DETAILS, VIEW_ADMINS] })
  return { uid: await companyUid(stack, name), name, admin }
}

async function details (c: Fresh) {
  const res = await stack.call(c.admin.token, { method: 'GET', url: `/api/v1/company/${c.uid}` })
  expect(res.statusCode).toBe(200)
  return res.json()
}

async function edit (c: Fresh, payload: Record<string, unknown>) {
  return await stack.call(c.admin.token, { method: 'PUT', url: `/api/v1/company/${c.uid}`, payload })
}

function expectError (res: { statusCode: number, json: () => unknown }, code: string, status = 400): void {
  expect({ status: res.statusCode, error: (res.json() as { error: string }).error }).toEqual({ status, error: code })
  expect(Array.isArray((res.json() as { errorParameters: unknown }).errorParameters)).toBe(true)
}

/** The edit fails with `code` and the company reads exactly as before. */
async function expectRejectedEdit (c: Fresh, payload: Record<string, unknown>, code: string): Promise<void> {
  const before = await details(c)
  expectError(await edit(c, payload), code)
  expect(await details(c)).toEqual(before)
}

describe('GET /company/{uid}', () => {
  it('answers the Company of a member holding viewDetails', async () => {
    const c = await freshCompany()
    expect(await details(c)).toEqual({
      uid: c.uid,
      name: c.name,
      address: null,
      nFactor: false,
      ipFiltering: false,
      ipFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] },
      deviceIpFiltering: false,
      deviceIpFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] },
      picture: null
    })
  })

  it('answers company.unknown for an unknown uid and for a company the caller is not a member of', async () => {
    const unknown = await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/company/no-such-company' })
    expectError(unknown, 'company.unknown')
    expect(unknown.json().errorParameters).toEqual(['no-such-company'])
    const other = await freshCompany()
    expectError(await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/company/${other.uid}` }), 'company.unknown')
    // every other endpoint of the resource hides the company the same way
    for (const [method, path] of [['PUT', ''], ['GET', '/administrators'], ['PUT', '/administrators'], ['GET', '/picture/normal']] as const) {
      const res = await stack.call(stack.adminToken, { method, url: `/api/v1/company/${other.uid}${path}`, ...(method === 'PUT' ? { payload: {} } : {}) })
      expectError(res, 'company.unknown')
    }
  })

  it('answers 403 missing.rights to a member lacking viewDetails', async () => {
    const u = await createUser(stack, { rights: [VIEW_ADMINS] })
    const res = await stack.call(u.token, { method: 'GET', url: `/api/v1/company/${stack.companyUid}` })
    expectError(res, 'missing.rights', 403)
    expect(res.json().errorParameters).toEqual([VIEW_DETAILS])
  })
})

describe('PUT /company/{uid}', () => {
  it('needs the administrator right', async () => {
    const u = await createUser(stack, { rights: [VIEW_DETAILS, VIEW_ADMINS] })
    const res = await stack.call(u.token, { method: 'PUT', url: `/api/v1/company/${stack.companyUid}`, payload: { address: 'x' } })
    expectError(res, 'missing.rights', 403)
    expect(res.json().errorParameters).toEqual(['administrator'])
    const after = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/company/${stack.companyUid}` })
    expect(after.json()).toMatchObject({ name: COMPANY_NAME, address: null })
  })

  it('changes only name, address and the filters; uid, nFactor and picture are ignored', async () => {
    const c = await freshCompany()
    const name = uniq('Renamed')
    const res = await edit(c, {
      uid: 'forged-uid',
      nFactor: true,
      picture: { normal: '/x', small: '/y', icon: '/z' },
      name,
      address: '1 Main Street',
      ipFiltering: true,
      ipFilters: { ipAddresses: ['127.0.0.1', '::1'] },
      deviceIpFiltering: true,
      deviceIpFilters: { startIPAddress: '10.0.0.1', endIPAddress: '10.0.0.255', ipAddresses: [] }
    })
    expect(res.statusCode).toBe(200)
    const expected = {
      uid: c.uid,
      name,
      address: '1 Main Street',
      nFactor: false,
      ipFiltering: true,
      ipFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: ['127.0.0.1', '::1'] },
      deviceIpFiltering: true,
      deviceIpFilters: { startIPAddress: '10.0.0.1', endIPAddress: '10.0.0.255', ipAddresses: [] },
      picture: null
    }
    expect(res.json()).toEqual(expected)
    expect(await details(c)).toEqual(expected)
    const forged = await stack.call(c.admin.token, { method: 'GET', url: '/api/v1/company/forged-uid' })
    expectError(forged, 'company.unknown')
  })

  it('leaves the fields that are not sent untouched and clears the address and the filters with null', async () => {
    const c = await freshCompany()
    expect((await edit(c, { address: 'Somewhere' })).statusCode).toBe(200)
    expect((await edit(c, { deviceIpFilters: { ipAddresses: ['192.0.2.7'] } })).statusCode).toBe(200)
    expect(await details(c)).toMatchObject({ name: c.name, address: 'Somewhere', deviceIpFilters: { ipAddresses: ['192.0.2.7'] } })
    const res = await edit(c, { address: null })
    expect(res.json()).toMatchObject({ name: c.name, address: null, deviceIpFilters: { ipAddresses: ['192.0.2.7'] } })
    // null filters are no filters: they clear the stored ones
    const cleared = await edit(c, { deviceIpFilters: null })
    expect(cleared.json().deviceIpFilters).toEqual({ startIPAddress: null, endIPAddress: null, ipAddresses: [] })
    expectError(await edit(c, { deviceIpFiltering: true }), 'company.missing.device.ip.address.filtering')
  })

  it('refuses a null or empty name with company.missing.name', async () => {
    const c = await freshCompany()
    await expectRejectedEdit(c, { name: null, address: 'changed' }, 'company.missing.name')
    await expectRejectedEdit(c, { name: '', address: 'changed' }, 'company.missing.name')
    await expectRejectedEdit(c, { name: '   ' }, 'company.missing.name')
  })

  it('refuses the name of another company, compared without case, with company.not.unique.name', async () => {
    const c = await freshCompany()
    const other = await freshCompany()
    await expectRejectedEdit(c, { name: other.name, address: 'changed' }, 'company.not.unique.name')
    await expectRejectedEdit(c, { name: other.name.toUpperCase() }, 'company.not.unique.name')
    await expectRejectedEdit(c, { name: COMPANY_NAME.toLowerCase() }, 'company.not.unique.name')
    // its own name in another case is a rename, not a clash
    const res = await edit(c, { name: c.name.toUpperCase() })
    expect(res.statusCode).toBe(200)
    expect(res.json().name).toBe(c.name.toUpperCase())
  })

  it('maps the unique index of the store to company.not.unique.name (a rename racing past the check)', async () => {
    const [a, b] = [await freshCompany(), await freshCompany()]
    // The service checks first; only a concurrent rename reaches the index, so the repository is driven directly.
    await expect(stack.ctx.services.companiesRepo.update(a.uid, { name: b.name.toUpperCase() }))
      .rejects.toMatchObject({ code: 'company.not.unique.name' })
    expect((await details(a)).name).toBe(a.name)
  })

  it('accepts an address of 255 characters and refuses 256 with value.too.long', async () => {
    const c = await freshCompany()
    const ok = await edit(c, { address: 'a'.repeat(255) })
    expect(ok.statusCode).toBe(200)
    expect(ok.json().address).toHaveLength(255)
    await expectRejectedEdit(c, { address: 'b'.repeat(256) }, 'value.too.long')
  })

  it('accepts valid IPv4 and IPv6 addresses and ranges and answers them', async () => {
    const c = await freshCompany()
    const ipFilters = { startIPAddress: '2001:db8::1', endIPAddress: '2001:db8::ffff', ipAddresses: ['127.0.0.1', '198.51.100.4', 'fe80::1'] }
    const deviceIpFilters = { startIPAddress: '192.0.2.1', endIPAddress: '192.0.2.1', ipAddresses: ['2001:db8:0:0:0:0:0:2'] }
    const res = await edit(c, { ipFiltering: true, ipFilters, deviceIpFiltering: true, deviceIpFilters })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ ipFiltering: true, ipFilters, deviceIpFiltering: true, deviceIpFilters })
    expect(await details(c)).toMatchObject({ ipFilters, deviceIpFilters })
    // a range alone is enough for filtering
    const range = { startIPAddress: '127.0.0.0', endIPAddress: '127.255.255.255', ipAddresses: [] }
    expect((await edit(c, { ipFilters: range })).json()).toMatchObject({ ipFiltering: true, ipFilters: range })
  })

  it('switches filtering off and on again with the stored filters', async () => {
    const c = await freshCompany()
    expect((await edit(c, { ipFiltering: true, ipFilters: { ipAddresses: ['127.0.0.1'] } })).statusCode).toBe(200)
    expect((await edit(c, { ipFiltering: false })).json()).toMatchObject({ ipFiltering: false, ipFilters: { ipAddresses: ['127.0.0.1'] } })
    expect((await edit(c, { ipFiltering: true })).json()).toMatchObject({ ipFiltering: true })
  })

  it('filters API calls by the caller address once ipFiltering is on', async () => {
    const c = await freshCompany()
    expect((await edit(c, { ipFiltering: true, ipFilters: { ipAddresses: ['198.51.100.4'] } })).statusCode).toBe(200)
    expectError(await stack.call(c.admin.token, { method: 'GET', url: `/api/v1/company/${c.uid}` }), 'ip.forbidden', 403)
  })

  const variants = [
    { kind: 'API', on: 'ipFiltering', filters: 'ipFilters', infix: '' },
    { kind: 'device', on: 'deviceIpFiltering', filters: 'deviceIpFilters', infix: 'device.' }
  ] as const

  for (const v of variants) {
    describe(`${v.kind} filters`, () => {
      it(`refuses ${v.on} true without filters with company.missing.${v.infix}ip.address.filtering`, async () => {
        const c = await freshCompany()
        const code = `company.missing.${v.infix}ip.address.filtering`
        await expectRejectedEdit(c, { [v.on]: true }, code)
        await expectRejectedEdit(c, { [v.on]: true, [v.filters]: { ipAddresses: [] } }, code)
        await expectRejectedEdit(c, { [v.on]: true, [v.filters]: null }, code)
        await expectRejectedEdit(c, { [v.on]: true, [v.filters]: { startIPAddress: null, endIPAddress: null, ipAddresses: [] } }, code)
        await expectRejectedEdit(c, { [v.on]: true, [v.filters]: { startIPAddress: '', endIPAddress: '', ipAddresses: [] } }, code)
      })

      it(`refuses malformed addresses with company.invalid.${v.infix}ip.address`, async () => {
        const c = await freshCompany()
        const code = `company.invalid.${v.infix}ip.address`
        for (const bad of ['256.1.1.1', '10.0.0', 'host.example', '10.0.0.1/24']) {
          await expectRejectedEdit(c, { address: 'changed', [v.filters]: { ipAddresses: ['10.0.0.1', bad] } }, code)
        }
        for (const bad of ['2001:db8::g', '2001:db8:::1', '1:2:3:4:5:6:7:8:9']) {
          await expectRejectedEdit(c, { [v.filters]: { ipAddresses: [bad] } }, code)
        }
        await expectRejectedEdit(c, { [v.filters]: { startIPAddress: '2001:db8::1', endIPAddress: '2001:db8::zz' } }, code)
        await expectRejectedEdit(c, { [v.filters]: { startIPAddress: '10.0.0.300', endIPAddress: '10.0.0.1' } }, code)
      })

      it(`refuses incomplete, inverted and mixed ranges with company.invalid.${v.infix}ip.address.range`, async () => {
        const c = await freshCompany()
        const code = `company.invalid.${v.infix}ip.address.range`
        const ranges = [
          { startIPAddress: '10.0.0.1' },
          { startIPAddress: '10.0.0.1', endIPAddress: null },
          { endIPAddress: '10.0.0.1' },
          { startIPAddress: '10.0.0.9', endIPAddress: '10.0.0.1' },
          { startIPAddress: '10.0.1.0', endIPAddress: '10.0.0.255' },
          { startIPAddress: '2001:db8::10', endIPAddress: '2001:db8::f' },
          { startIPAddress: '10.0.0.1', endIPAddress: '2001:db8::1' }
        ]
        for (const r of ranges) await expectRejectedEdit(c, { [v.on]: true, [v.filters]: { ...r, ipAddresses: ['127.0.0.1'] } }, code)
      })
    })
  }
})

describe('GET /company/{uid}/administrators', () => {
  it('answers the administrator entries {uid, company: {uid}, email, name}', async () => {
    const c = await freshCompany()
    const plain = await createUser(stack, { company: c.name, rights: [VIEW_ADMINS] })
    for (const token of [c.admin.token, plain.token]) {
      const res = await stack.call(token, { method: 'GET', url: `/api/v1/company/${c.uid}/administrators` })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual([{ uid: c.admin.uid, company: { uid: c.uid }, email: c.admin.email, name: c.admin.email }])
    }
  })

  it('answers 403 missing.rights without viewAdministrators and company.unknown for an unknown company', async () => {
    const u = await createUser(stack, { rights: [VIEW_DETAILS] })
    const res = await stack.call(u.token, { method: 'GET', url: `/api/v1/company/${stack.companyUid}/administrators` })
    expectError(res, 'missing.rights', 403)
    expect(res.json().errorParameters).toEqual([VIEW_ADMINS])
    expectError(await stack.call(u.token, { method: 'GET', url: '/api/v1/company/nope/administrators' }), 'company.unknown')
  })
})

describe('PUT /company/{uid}/administrators', () => {
  async function admins (c: Fresh): Promise<string[]> {
    const res = await stack.call(c.admin.token, { method: 'GET', url: `/api/v1/company/${c.uid}/administrators` })
    expect(res.statusCode).toBe(200)
    return (res.json() as Array<{ uid: string }>).map((a) => a.uid).sort()
  }
  const put = async (c: Fresh, payload: unknown, token = c.admin.token) =>
    await stack.call(token, { method: 'PUT', url: `/api/v1/company/${c.uid}/administrators`, payload: payload as Record<string, unknown> })

  async function expectRejected (c: Fresh, payload: unknown, code: string): Promise<void> {
    const before = await admins(c)
    expectError(await put(c, payload), code)
    expect(await admins(c)).toEqual(before)
  }

  it('adds an administrator when the existing uids are sent with a new one, and answers the new list', async () => {
    const c = await freshCompany()
    const u = await createUser(stack, { company: c.name, rights: [VIEW_DETAILS] })
    const res = await put(c, { administrators: [{ uid: c.admin.uid }, { uid: u.uid }] })
    expect(res.statusCode).toBe(200)
    const entries = res.json() as Array<{ uid: string }>
    expect(entries).toHaveLength(2)
    expect(entries).toContainEqual({ uid: u.uid, company: { uid: c.uid }, email: u.email, name: u.email })
    expect(await admins(c)).toEqual([c.admin.uid, u.uid].sort())
    // the new administrator now holds the right
    const edited = await stack.call(u.token, { method: 'PUT', url: `/api/v1/company/${c.uid}`, payload: { address: 'by the new admin' } })
    expect(edited.statusCode).toBe(200)
  })

  it('replaces the list: an administrator with a profile left out is no longer one', async () => {
    const c = await freshCompany()
    const u = await createUser(stack, { company: c.name, rights: [VIEW_DETAILS] })
    expect((await put(c, { administrators: [{ uid: c.admin.uid }, { uid: u.uid }] })).statusCode).toBe(200)
    const res = await put(c, { administrators: [{ uid: u.uid }] })
    expect(res.statusCode).toBe(200)
    expect((res.json() as Array<{ uid: string }>).map((a) => a.uid)).toEqual([u.uid])
    const denied = await stack.call(c.admin.token, { method: 'PUT', url: `/api/v1/company/${c.uid}`, payload: { address: 'x' } })
    expectError(denied, 'missing.rights', 403)
  })

  it('needs the administrator right', async () => {
    const c = await freshCompany()
    const u = await createUser(stack, { company: c.name, rights: [VIEW_DETAILS, VIEW_ADMINS] })
    const res = await put(c, { administrators: [{ uid: c.admin.uid }, { uid: u.uid }] }, u.token)
    expectError(res, 'missing.rights', 403)
    expect(await admins(c)).toEqual([c.admin.uid])
  })

  it('refuses an empty list or a missing field with user.missing', async () => {
    const c = await freshCompany()
    await expectRejected(c, { administrators: [] }, 'user.missing')
    await expectRejected(c, {}, 'user.missing')
    await expectRejected(c, { administrators: null }, 'user.missing')
  })

  it('refuses a uid that is not a user of the company with user.unknown', async () => {
    const c = await freshCompany()
    const outsider = await createUser(stack, { rights: [VIEW_DETAILS] }) // a user of another company
    await expectRejected(c, { administrators: [{ uid: c.admin.uid }, { uid: 'no-such-user' }] }, 'user.unknown')
    await expectRejected(c, { administrators: [{ uid: c.admin.uid }, { uid: outsider.uid }] }, 'user.unknown')
    const res = await put(c, { administrators: [{ uid: outsider.uid }] })
    expect(res.json().errorParameters).toEqual([outsider.uid])
    await expectRejected(c, { administrators: [{ uid: c.admin.uid }, {}] }, 'user.unknown')
  })

  it('refuses to drop an administrator who has no profile with admin.without.profile', async () => {
    const c = await freshCompany()
    const bare = await createUser(stack, { company: c.name, administrator: true, profile: null })
    expect(await admins(c)).toEqual([c.admin.uid, bare.uid].sort())
    await expectRejected(c, { administrators: [{ uid: c.admin.uid }] }, 'admin.without.profile')
    const res = await put(c, { administrators: [{ uid: c.admin.uid }] })
    expect(res.json().errorParameters).toEqual([bare.uid])
    // keeping them is fine, and so is dropping the administrator who has a profile
    const kept = await put(c, { administrators: [{ uid: bare.uid }] })
    expect(kept.statusCode).toBe(200)
    expect((kept.json() as Array<{ uid: string }>).map((a) => a.uid)).toEqual([bare.uid])
  })
})
