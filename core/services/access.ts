import { FleetError } from '../errors.js'
import type { Actor, ActorMembership } from '../domain/actor.js'
import type { Company } from '../domain/company.js'
import type { CompaniesRepository } from '../ports/companies.js'
import { ipAllowed } from '../domain/ip-filters.js'

export interface CompanyAccess { company: Company, membership: ActorMembership }

export interface EnterOptions {
  /** The right the endpoint needs (docs/api.md), or null when it needs none. */
  right: string | null
  /** The code answered when the caller has no access: partner.unknown for the `company` parameter,
   *  company.unknown for /company/{uid}. Another company's existence is never revealed. */
  unknown: 'partner.unknown' | 'company.unknown'
}

/**
 * docs/api.md#users-and-companies: with ipFiltering on, the company's resources answer only to listed addresses.
 * @throws FleetError ip.forbidden (403)
 */
export function checkAddress (company: Pick<Company, 'ipFiltering' | 'ipFilters'>, ip: string): void {
  if (company.ipFiltering && !ipAllowed(company.ipFilters, ip)) throw new FleetError('ip.forbidden', [ip])
}

/**
 * The company context of a call (docs/api.md#using-the-api): the caller must have access to it,
 * come from an allowed address when the company filters them, and hold the right.
 * @throws FleetError partner.unknown | company.unknown, ip.forbidden (403), missing.rights (403)
 */
export async function enterCompany (companies: Pick<CompaniesRepository, 'findByUid'>, actor: Actor,
  companyUid: string | undefined, opts: EnterOptions): Promise<CompanyAccess> {
  const uid = companyUid ?? actor.homeCompanyUid
  const membership = uid === null ? undefined : actor.memberships.get(uid)
  const company = uid === null || membership === undefined ? undefined : await companies.findByUid(uid)
  if (company === undefined || membership === undefined) throw new FleetError(opts.unknown, [uid ?? ''])
  checkAddress(company, actor.ip)
  if (opts.right !== null && !membership.rights.has(opts.right)) throw new FleetError('missing.rights', [opts.right])
  return { company, membership }
}
