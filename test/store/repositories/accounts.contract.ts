// The account repositories (companies, profiles, users, memberships, API clients, sign-in unlocks): lookups that
// ignore case, unique names mapped to the service's errors, JSON and text[] columns, bytea pictures, user search.
import { expect } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { newCompany, uniq, defineContract, type Repos } from './store.js'

async function newUser (repos: Repos, companyUid: string, patch: { email?: string, name?: string } = {}): Promise<string> {
  const uid = uniq('user')
  await repos.users.insert({ uid, email: patch.email ?? `${uid}@test.local`, name: patch.name ?? uid, phoneNumber: null, passwordHash: null, companyUid }, 1)
  return uid
}

export const accountsContract = defineContract('Account repositories', {

  'companies: found by name ignoring case, JSON filters round-trip, a rename onto a taken name is company.not.unique.name': async ({ repos }) => {
    const name = uniq('Acme Ünïcode')
    const co = await newCompany(repos, name)
    const other = await newCompany(repos)
    expect(await repos.companies.any()).toBe(true)
    expect((await repos.companies.findByName(name.toUpperCase()))?.uid).toBe(co)
    const filters = { startIPAddress: '10.0.0.1', endIPAddress: null, ipAddresses: ['192.168.0.1', '::1'] }
    await repos.companies.update(co, { address: 'Rue "A", 1', ipFiltering: true, ipFilters: filters })
    await repos.companies.setSystemLimit(co, 12)
    expect(await repos.companies.findByUid(co)).toEqual({
      uid: co,
      name,
      address: 'Rue "A", 1',
      nFactor: false,
      ipFiltering: true,
      ipFilters: filters,
      deviceIpFiltering: false,
      deviceIpFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] },
      picture: null,
      systemLimit: 12
    })
    const err: unknown = await repos.companies.update(other, { name }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(FleetError)
    expect(err).toMatchObject({ code: 'company.not.unique.name', params: [name] })
    await repos.companies.setSystemLimit(co, null)
    expect((await repos.companies.findByUid(co))?.systemLimit).toBeNull()
    expect(await repos.companies.findByUid('none')).toBeUndefined()
  },

  'companies: partners in uid order once each, pictures as bytes': async ({ repos }) => {
    const co = await newCompany(repos)
    const [p1, p2] = [await newCompany(repos), await newCompany(repos)]
    for (const p of [p2, p1, p2]) await repos.companies.addPartner(co, p)
    expect(await repos.companies.partners(co)).toEqual([p1, p2].sort())
    const data = Buffer.from([0, 255, 0x5c, 1])
    const pic = { contentType: 'image/png', data }
    await repos.companies.putPictures(co, { normal: pic, small: { contentType: 'image/jpeg', data: Buffer.alloc(0) }, icon: pic })
    expect((await repos.companies.findByUid(co))?.picture).not.toBeNull()
    const got = await repos.companies.getPicture(co, 'normal')
    expect(got?.contentType).toBe('image/png')
    expect(Buffer.isBuffer(got?.data) && got.data.equals(data)).toBe(true)
    expect((await repos.companies.getPicture(co, 'small'))?.data.length).toBe(0)
    expect(await repos.companies.getPicture(p1, 'icon')).toBeUndefined()
  },

  'users: by email ignoring case; find by contains (LIKE escaped), sorted with NULL profiles last, counted': async ({ repos }) => {
    const co = await newCompany(repos)
    const profile = { uid: uniq('prof'), companyUid: co, name: 'Operators', rights: ['entities.systems.view', 'x'] }
    await repos.profiles.insert(profile)
    expect(await repos.profiles.findByName(co, 'Operators')).toEqual(profile)
    expect(await repos.profiles.findByName(co, 'operators')).toBeUndefined()
    await repos.profiles.updateRights(profile.uid, [])
    expect((await repos.profiles.findByUid(co, profile.uid))?.rights).toEqual([])
    const a = await newUser(repos, co, { email: `${uniq('Ann')}@Test.local`, name: 'ann 100%' })
    const b = await newUser(repos, co, { name: 'Bob_x' })
    const c = await newUser(repos, co, { name: 'Rebob' })
    await newUser(repos, co) // no membership: not listed
    for (const u of [a, b]) await repos.memberships.put(u, co, null, false)
    await repos.memberships.put(c, co, profile.uid, true)
    const email = (await repos.users.findByUid(a))?.email ?? ''
    expect((await repos.users.findByEmail(email.toUpperCase()))?.uid).toBe(a)
    const find = async (filter: Omit<Parameters<Repos['users']['find']>[0], 'companyUid'>, sort: Parameters<Repos['users']['find']>[1] = []): Promise<[number, string[]]> => {
      const f = await repos.users.find({ companyUid: co, ...filter }, sort, { offset: 0, size: 2 })
      return [f.count, f.items.map((u) => u.uid)]
    }
    expect(await find({ name: '0%' })).toEqual([1, [a]])
    expect(await find({ freetext: 'BOB_' })).toEqual([1, [b]])
    expect(await find({ name: 'bob' }, [{ field: 'name', dir: 'asc' }])).toEqual([2, [b, c]])
    expect(await find({}, [{ field: 'profile', dir: 'desc' }])).toEqual([3, [c, ...[a, b].sort().slice(0, 1)]])
    expect(await find({ profile: profile.uid })).toEqual([1, [c]])
    const [listed] = (await repos.users.find({ companyUid: co, uid: c }, [], { offset: 0, size: 5 })).items
    expect(listed?.profile).toEqual({ uid: profile.uid, name: 'Operators' })
    await repos.users.update(a, { name: 'Ann', phoneNumber: '+33 6', passwordHash: 'h' })
    expect(await repos.users.findByUid(a)).toMatchObject({ name: 'Ann', phoneNumber: '+33 6', passwordHash: 'h' })
  },

  'memberships: put replaces, profile rights read with the membership, administrators set as a whole': async ({ repos }) => {
    const co = await newCompany(repos, uniq('Co'))
    const profile = { uid: uniq('prof'), companyUid: co, name: 'P', rights: ['r1'] }
    await repos.profiles.insert(profile)
    const a = await newUser(repos, co, { email: `a-${uniq('u')}@x` })
    const b = await newUser(repos, co, { email: `b-${uniq('u')}@x` })
    await repos.memberships.put(a, co, null, true)
    await repos.memberships.put(a, co, profile.uid, false)
    await repos.memberships.put(b, co, null, false)
    expect(await repos.memberships.get(a, co)).toMatchObject({ userUid: a, companyUid: co, administrator: false, profile: { uid: profile.uid, rights: ['r1'], companyUid: co } })
    expect((await repos.memberships.forUser(b))[0]?.profile).toBeNull()
    await repos.memberships.setAdministrators(co, [a, b])
    expect((await repos.memberships.administrators(co)).map((u) => [u.uid, u.hasProfile])).toEqual([[a, true], [b, false]])
    await repos.memberships.setAdministrators(co, [])
    expect(await repos.memberships.administrators(co)).toEqual([])
    await repos.memberships.setProfile(b, co, profile.uid)
    expect((await repos.memberships.members(co, [b, 'x'])).map((m) => [m.user.uid, m.profile?.uid])).toEqual([[b, profile.uid]])
    expect(await repos.memberships.remove(b, co)).toBe(true)
    expect(await repos.memberships.remove(b, co)).toBe(false)
  },

  'API clients: put creates then replaces, redirect URIs as text[], a missing implicit grant false': async ({ repos }) => {
    const before = await repos.clients.count()
    const clientId = uniq('client')
    await repos.clients.put({ clientId, secretHash: null, name: 'Console', userUid: null, redirectUris: ['https://a/cb', 'x,"y"'] }, 1)
    expect(await repos.clients.find(clientId)).toEqual({ clientId, secretHash: null, name: 'Console', userUid: null, redirectUris: ['https://a/cb', 'x,"y"'], implicitGrant: false })
    await repos.clients.put({ clientId, secretHash: 'h', name: 'C2', userUid: null, redirectUris: [], implicitGrant: true }, 2)
    expect(await repos.clients.find(clientId)).toEqual({ clientId, secretHash: 'h', name: 'C2', userUid: null, redirectUris: [], implicitGrant: true })
    expect(await repos.clients.count()).toBe(before + 1)
  },

  'sign-in unlocks: the latest unlock kept, and always later than the one before': async ({ repos }) => {
    const account = uniq('hash')
    expect(await repos.signInUnlocks.unlockedAt(account)).toBeUndefined()
    await repos.signInUnlocks.unlock(account, 1_767_225_600_123)
    expect(await repos.signInUnlocks.unlockedAt(account)).toBe(1_767_225_600_123)
    await repos.signInUnlocks.unlock(account, 1000) // a process whose clock is behind
    expect(await repos.signInUnlocks.unlockedAt(account)).toBe(1_767_225_600_124)
    await repos.signInUnlocks.unlock(account, 1_800_000_000_000)
    expect(await repos.signInUnlocks.unlockedAt(account)).toBe(1_800_000_000_000)
  }
})
