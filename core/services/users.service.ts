import { FleetError } from '../errors.js'
import type { AccessEpoch } from './access-epoch.js'
import type { Actor } from '../domain/actor.js'
import type { Repositories, Found } from '../ports/repositories.js'
import { checkAddress, type CompanyAccess } from './access.js'
import { fields as pickFields, page, pick, sorts, type SortQuery } from '../domain/lists.js'
import { USER_FIELDS, USER_SORTS, type UserField, type UserRecord, type UserView } from '../domain/user.js'

export interface UserFindQuery extends SortQuery {
  uid?: string | undefined
  email?: string | undefined
  name?: string | undefined
  profile?: string | undefined
  freetext?: string | undefined
  fields?: string | string[] | undefined
  offset?: number | undefined
  size?: number | undefined
}

export interface UsersServiceDeps {
  repos: Pick<Repositories, 'users' | 'memberships' | 'profiles' | 'companies'>
  epoch: AccessEpoch
}

// docs/api.md#users-and-companies, Find: without `fields` only uid, name, email are answered.
export interface UserListItem { uid: string, name: string, email: string, profile: { uid: string, name: string } | null }

const DEFAULT_FIELDS: readonly UserField[] = ['uid', 'name', 'email']

export function createUsersService ({ repos, epoch }: UsersServiceDeps) {
  async function view (user: UserRecord, companyUid: string): Promise<UserView> {
    const m = await repos.memberships.get(user.uid, companyUid)
    const company = m === undefined ? await repos.companies.findByUid(companyUid) : undefined
    return {
      uid: user.uid,
      email: user.email,
      name: user.name,
      phoneNumber: user.phoneNumber,
      profile: m?.profile == null ? null : { uid: m.profile.uid, name: m.profile.name },
      company: { uid: companyUid, name: m?.companyName ?? company?.name ?? '' },
      picture: null
    }
  }

  async function member (access: CompanyAccess, uid: string): Promise<UserRecord> {
    const user = await repos.users.findByUid(uid)
    if (user === undefined || (await repos.memberships.get(uid, access.company.uid)) === undefined) {
      throw new FleetError('user.unknown', [uid])
    }
    return user
  }

  /**
   * The caller, a resource of its company: that company's IP filters apply (docs/api.md#users-and-companies,
   * ipFiltering).
   * @throws user.unknown when the caller has no login (an API client without an owner); ip.forbidden
   */
  async function current (actor: Actor): Promise<UserView> {
    const user = actor.userUid === null ? undefined : await repos.users.findByUid(actor.userUid)
    if (user === undefined) throw new FleetError('user.unknown', [])
    const company = await repos.companies.findByUid(user.companyUid)
    if (company !== undefined) checkAddress(company, actor.ip)
    return await view(user, user.companyUid)
  }

  function rights (access: CompanyAccess): string[] {
    return [...access.membership.rights].sort()
  }

  /** @throws user.unknown when uid has no access to the context company. */
  async function details (access: CompanyAccess, uid: string): Promise<UserView> {
    return await view(await member(access, uid), access.company.uid)
  }

  /** @throws sort.invalid.field */
  async function find (access: CompanyAccess, q: UserFindQuery): Promise<Found<Partial<UserListItem>> & { size: number, offset: number }> {
    const chosen = pickFields(q.fields, USER_FIELDS, DEFAULT_FIELDS)
    const order = sorts(q, USER_SORTS)
    const p = page(q.offset, q.size)
    const found = await repos.users.find({
      companyUid: access.company.uid, uid: q.uid, email: q.email, name: q.name, profile: q.profile, freetext: q.freetext
    }, order, p)
    const items = found.items.map((u) => pick<UserListItem, UserField>({ uid: u.uid, name: u.name, email: u.email, profile: u.profile }, chosen))
    return { items, count: found.count, size: items.length, offset: p.offset }
  }

  /**
   * Changes the user's profile in the context company; only administrators may (docs/api.md#users-and-companies, Edit).
   * @throws user.unknown, user.not.authorize, profile.unknown
   */
  async function edit (access: CompanyAccess, uid: string, body: { profile?: { uid?: string | undefined } | null | undefined }): Promise<UserView> {
    const user = await member(access, uid)
    if (!access.membership.administrator) throw new FleetError('user.not.authorize', [uid])
    const profileUid = body.profile?.uid
    const profile = profileUid === undefined ? undefined : await repos.profiles.findByUid(access.company.uid, profileUid)
    if (profile === undefined) throw new FleetError('profile.unknown', [profileUid ?? ''])
    await repos.memberships.setProfile(uid, access.company.uid, profile.uid)
    epoch.bump()
    return await view(user, access.company.uid)
  }

  /** Removes the user's access to the context company. @throws user.unknown */
  async function revoke (access: CompanyAccess, uid: string): Promise<void> {
    if (!(await repos.memberships.remove(uid, access.company.uid))) throw new FleetError('user.unknown', [uid])
    epoch.bump()
  }

  return { current, rights, details, find, edit, revoke }
}

export type UsersService = ReturnType<typeof createUsersService>
