import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import type { UnitOfWork, Clock } from '../ports/store.js'
import type { AccessEpoch } from './access-epoch.js'
import { AccountSeedSections, seedAccounts, seedCompanyUid } from './seed/accounts.seed.js'
import { FleetSeedSections, seedFleet } from './seed/fleet.seed.js'
import { SeedError } from './seed/seed-error.js'

// The shape of a `fleet seed <file.json>` document (README.md#seed-file): its account sections (seed/accounts.seed.ts)
// and its fleet sections (seed/fleet.seed.ts), each matched by a natural key, so seeding twice changes nothing.
export const SeedDocumentSchema = Type.Object({
  ...AccountSeedSections,
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
  /**
   * Creates or updates, in one transaction, what the document describes.
   * @throws SeedError naming the first problem; nothing is written then.
   */
  async function seed (doc: unknown): Promise<SeedReport> {
    if (!Value.Check(SeedDocumentSchema, doc)) throw new SeedError(seedShapeError(doc))
    await inTransaction(async (repos) => {
      await seedAccounts(repos, doc, { clock, hashCost })
      await seedFleet(repos, doc, async (name) => await seedCompanyUid(repos, name), clock.now(), (m) => new SeedError(m))
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
