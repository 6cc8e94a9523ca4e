import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import type { UnitOfWork, Clock } from '../ports/store.js'
import type { Repositories } from '../ports/repositories.js'
import { emptyIpFilters } from '../domain/company.js'
import { hashPassword, newUid } from '../security/secrets.js'
import type { AccessEpoch } from './access-epoch.js'
import { FleetSeedSections, seedFleet } from './seed/fleet.seed.js'
import { isRedirectUri } from '../domain/redirect-uri.js'
import { SeedError } from './seed/seed-error.js'
import { PHONE_NUMBER_PATTERN } from '../domain/phone-number.js'

// The shape of a `fleet seed <file.json>` document (README, "Seed file"). Everything is matched by a natural
// key (company name, profile name within its company, user e-mail, client id), so seeding twice changes nothing.
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

export const SeedDocumentSchema = Type.Object({
  companies: Type.Optional(Type.Array(SeedCompany)),
  profiles: Type.Optional(Type.Array(SeedProfile)),
  users: Type.Optional(Type.Array(SeedUser)),
  clients: Type.Optional(Type.Array(SeedClient)),
  ...FleetSeedSections
}, { additionalProperties: false })
export type SeedDocument = Static<typeof SeedDocumentSchema>

/**
 * The first problem of a document of the wrong shape, in words: typebox reports an unknown key as "schema is false"
 * at the key's own path, which tells a user nothing, so that one says which field is unknown and where.
 */
export function seedShapeError (doc: unknown): string {
  const first = [...Value.Errors(SeedDocumentSchema, doc)][0]
  if (first === undefined) return 'invalid seed document'
  if (first.keyword === 'boolean' && first.schemaPath.endsWith('/additionalProperties')) {
    const at = first.instancePath.lastIndexOf('/')
    const field = first.instancePath.slice(at + 1).replaceAll('~1', '/').replaceAll('~0', '~')
    return `invalid seed document at ${first.instancePath.slice(0, at) || '/'}: unknown field "${field}" (README, "Seed file", lists the fields)`
  }
  return `invalid seed document at ${first.instancePath || '/'}: ${first.message}`
}

export interface SeedReport { companies: number, profiles: number, users: number, clients: number }

export interface SeedServiceDeps {
  inTransaction: UnitOfWork
  clock: Clock
  epoch?: AccessEpoch
  /** scrypt cost of the passwords and client secrets written (config PASSWORD_HASH_COST). */
  hashCost?: number
}

export function createSeedService ({ inTransaction, clock, epoch, hashCost }: SeedServiceDeps) {
  async function companyUid (repos: Repositories, name: string): Promise<string> {
    const c = await repos.companies.findByName(name)
    if (c === undefined) throw new SeedError(`unknown company "${name}"`)
    return c.uid
  }

  async function companies (repos: Repositories, list: SeedDocument['companies'] = []): Promise<void> {
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
    for (const c of list) {
      for (const partner of c.partners ?? []) {
        await repos.companies.addPartner(await companyUid(repos, c.name), await companyUid(repos, partner))
      }
    }
  }

  async function profiles (repos: Repositories, list: SeedDocument['profiles'] = []): Promise<void> {
    for (const p of list) {
      const company = await companyUid(repos, p.company)
      const found = await repos.profiles.findByName(company, p.name)
      if (found === undefined) await repos.profiles.insert({ uid: newUid(), companyUid: company, name: p.name, rights: p.rights })
      else await repos.profiles.updateRights(found.uid, p.rights)
    }
  }

  async function users (repos: Repositories, list: SeedDocument['users'] = []): Promise<void> {
    for (const u of list) {
      const [home] = u.companies
      if (home === undefined) continue
      const passwordHash = u.password === undefined ? undefined : await hashPassword(u.password, hashCost)
      let user = await repos.users.findByEmail(u.email)
      if (user === undefined) {
        user = { uid: newUid(), email: u.email, name: u.name, phoneNumber: u.phoneNumber ?? null, passwordHash: passwordHash ?? null, companyUid: await companyUid(repos, home.company) }
        await repos.users.insert(user, clock.now())
      } else {
        await repos.users.update(user.uid, { name: u.name, phoneNumber: u.phoneNumber, passwordHash })
      }
      for (const m of u.companies) {
        const company = await companyUid(repos, m.company)
        let profileUid: string | null = null
        if (m.profile != null) {
          const p = await repos.profiles.findByName(company, m.profile)
          if (p === undefined) throw new SeedError(`unknown profile "${m.profile}" in company "${m.company}"`)
          profileUid = p.uid
        }
        await repos.memberships.put(user.uid, company, profileUid, m.administrator ?? false)
      }
    }
  }

  async function clients (repos: Repositories, list: SeedDocument['clients'] = []): Promise<void> {
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

  /**
   * Creates or updates, in one transaction, what the document describes.
   * @throws SeedError naming the first problem; nothing is written then.
   */
  async function seed (doc: unknown): Promise<SeedReport> {
    if (!Value.Check(SeedDocumentSchema, doc)) throw new SeedError(seedShapeError(doc))
    await inTransaction(async (repos) => {
      await companies(repos, doc.companies)
      await profiles(repos, doc.profiles)
      await users(repos, doc.users)
      await clients(repos, doc.clients)
      await seedFleet(repos, doc, async (name) => await companyUid(repos, name), clock.now(), (m) => new SeedError(m))
    })
    epoch?.bump()
    return {
      companies: doc.companies?.length ?? 0,
      profiles: doc.profiles?.length ?? 0,
      users: doc.users?.length ?? 0,
      clients: doc.clients?.length ?? 0
    }
  }

  return { seed }
}

export type SeedService = ReturnType<typeof createSeedService>
