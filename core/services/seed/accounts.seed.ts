// The account part of a seed document (README.md#seed-file): companies, profiles, users and API clients. Each is
// matched by a natural key (company name, profile name within its company, user e-mail, client id), so seeding
// twice changes nothing.
import { Type, type Static } from 'typebox'
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import { emptyIpFilters } from '../../domain/company.js'
import { PHONE_NUMBER_PATTERN } from '../../domain/phone-number.js'
import { isRedirectUri } from '../../domain/redirect-uri.js'
import { hashPassword, newUid } from '../../security/secrets.js'
import { SeedError } from './seed-error.js'

const SeedCompany = Type.Object({
  name: Type.String({ minLength: 1 }),
  address: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  systemLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  partners: Type.Optional(Type.Array(Type.String()))
}, { additionalProperties: false })

const SeedProfile = Type.Object({
  company: Type.String(),
  name: Type.String({ minLength: 1 }),
  rights: Type.Array(Type.String())
}, { additionalProperties: false })

const SeedUser = Type.Object({
  email: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$' }),
  name: Type.String(),
  phoneNumber: Type.Optional(Type.Union([Type.String({ pattern: PHONE_NUMBER_PATTERN }), Type.Null()])),
  password: Type.Optional(Type.String({ minLength: 1 })),
  companies: Type.Array(Type.Object({
    company: Type.String(),
    profile: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    administrator: Type.Optional(Type.Boolean())
  }, { additionalProperties: false }), { minItems: 1 })
}, { additionalProperties: false })

const SeedClient = Type.Object({
  clientId: Type.String({ minLength: 1 }),
  /** Absent: the secret the client has; none for a new one, which makes it a public client (PKCE only). */
  clientSecret: Type.Optional(Type.String({ minLength: 1 })),
  name: Type.Optional(Type.String()),
  user: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** The authorization_code grant's redirect URIs; absent: those the client has, none for a new one. */
  redirectUris: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** May use the implicit grant (response_type=token); absent: what the client has, false for a new one. */
  implicitGrant: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

/** The sections of the seed document this file writes, in the order they are written (and checked). */
export const AccountSeedSections = {
  companies: Type.Optional(Type.Array(SeedCompany)),
  profiles: Type.Optional(Type.Array(SeedProfile)),
  users: Type.Optional(Type.Array(SeedUser)),
  clients: Type.Optional(Type.Array(SeedClient))
}
export const AccountSeedSchema = Type.Object(AccountSeedSections)
export type AccountSeed = Static<typeof AccountSeedSchema>

export interface AccountSeedContext {
  clock: Clock
  /** scrypt cost of the passwords and client secrets written (config PASSWORD_HASH_COST). */
  hashCost?: number | undefined
}

/** @throws SeedError when no company has that name. */
export async function seedCompanyUid (repos: Repositories, name: string): Promise<string> {
  const c = await repos.companies.findByName(name)
  if (c === undefined) throw new SeedError(`unknown company "${name}"`)
  return c.uid
}

async function companies (repos: Repositories, list: AccountSeed['companies'] = [], { clock }: AccountSeedContext): Promise<void> {
  for (const c of list) {
    const found = await repos.companies.findByName(c.name)
    if (found === undefined) {
      await repos.companies.insert({
        uid: newUid(),
        name: c.name,
        address: c.address ?? null,
        nFactor: false,
        ipFiltering: false,
        ipFilters: emptyIpFilters(),
        deviceIpFiltering: false,
        deviceIpFilters: emptyIpFilters(),
        picture: null,
        systemLimit: c.systemLimit ?? null
      }, clock.now())
    } else {
      if (c.address !== undefined) await repos.companies.update(found.uid, { address: c.address })
      if (c.systemLimit !== undefined) await repos.companies.setSystemLimit(found.uid, c.systemLimit)
    }
  }
  // Partners once every company of the document exists: a company may name one listed after it.
  for (const c of list) {
    for (const partner of c.partners ?? []) {
      await repos.companies.addPartner(await seedCompanyUid(repos, c.name), await seedCompanyUid(repos, partner))
    }
  }
}

async function profiles (repos: Repositories, list: AccountSeed['profiles'] = []): Promise<void> {
  for (const p of list) {
    const company = await seedCompanyUid(repos, p.company)
    const found = await repos.profiles.findByName(company, p.name)
    if (found === undefined) await repos.profiles.insert({ uid: newUid(), companyUid: company, name: p.name, rights: p.rights })
    else await repos.profiles.updateRights(found.uid, p.rights)
  }
}

type SeedUserEntry = Static<typeof SeedUser>

/** The user's memberships, as the document lists them. @throws SeedError for an unknown company or profile. */
async function memberships (repos: Repositories, userUid: string, u: SeedUserEntry): Promise<void> {
  for (const m of u.companies) {
    const company = await seedCompanyUid(repos, m.company)
    let profileUid: string | null = null
    if (m.profile != null) {
      const p = await repos.profiles.findByName(company, m.profile)
      if (p === undefined) throw new SeedError(`unknown profile "${m.profile}" in company "${m.company}"`)
      profileUid = p.uid
    }
    await repos.memberships.put(userUid, company, profileUid, m.administrator ?? false)
  }
}

async function users (repos: Repositories, list: AccountSeed['users'] = [], { clock, hashCost }: AccountSeedContext): Promise<void> {
  for (const u of list) {
    const [home] = u.companies
    if (home === undefined) continue
    const passwordHash = u.password === undefined ? undefined : await hashPassword(u.password, hashCost)
    let user = await repos.users.findByEmail(u.email)
    if (user === undefined) {
      user = { uid: newUid(), email: u.email, name: u.name, phoneNumber: u.phoneNumber ?? null, passwordHash: passwordHash ?? null, companyUid: await seedCompanyUid(repos, home.company) }
      await repos.users.insert(user, clock.now())
    } else {
      await repos.users.update(user.uid, { name: u.name, phoneNumber: u.phoneNumber, passwordHash })
    }
    await memberships(repos, user.uid, u)
  }
}

async function clients (repos: Repositories, list: AccountSeed['clients'] = [], { clock, hashCost }: AccountSeedContext): Promise<void> {
  for (const c of list) {
    let userUid: string | null = null
    if (c.user != null) {
      const u = await repos.users.findByEmail(c.user)
      if (u === undefined) throw new SeedError(`unknown user "${c.user}" for client "${c.clientId}"`)
      userUid = u.uid
    }
    for (const uri of c.redirectUris ?? []) {
      if (!isRedirectUri(uri)) throw new SeedError(`redirect URI "${uri}" of client "${c.clientId}" is not an absolute http(s) URL without a fragment`)
    }
    const found = await repos.clients.find(c.clientId)
    await repos.clients.put({
      clientId: c.clientId,
      secretHash: c.clientSecret === undefined ? found?.secretHash ?? null : await hashPassword(c.clientSecret, hashCost),
      name: c.name ?? found?.name ?? c.clientId,
      userUid,
      redirectUris: c.redirectUris ?? found?.redirectUris ?? [],
      implicitGrant: c.implicitGrant ?? found?.implicitGrant ?? false
    }, clock.now())
  }
}

/** Writes the account sections: companies, then profiles, users and clients, which name them. @throws SeedError */
export async function seedAccounts (repos: Repositories, doc: AccountSeed, ctx: AccountSeedContext): Promise<void> {
  await companies(repos, doc.companies, ctx)
  await profiles(repos, doc.profiles)
  await users(repos, doc.users, ctx)
  await clients(repos, doc.clients, ctx)
}
