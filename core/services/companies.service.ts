import { FleetError } from '../errors.js'
import type { AccessEpoch } from './access-epoch.js'
import type { UnitOfWork } from '../ports/store.js'
import type { Repositories } from '../ports/repositories.js'
import type { CompanyAccess } from './access.js'
import { companyView, emptyIpFilters, type Company, type CompanyPatch, type IpFilters } from '../domain/company.js'
import type { AdministratorView } from '../domain/user.js'
import { hasFilters, ipFiltersProblem } from '../domain/ip-filters.js'

// docs/api.md#limits: company address length.
export const MAX_ADDRESS_LENGTH = 255

export interface CompanyEditBody {
  name?: string | null
  address?: string | null
  ipFiltering?: boolean
  ipFilters?: Partial<IpFilters> | null
  deviceIpFiltering?: boolean
  deviceIpFilters?: Partial<IpFilters> | null
}

export interface CompaniesServiceDeps {
  repos: Pick<Repositories, 'companies' | 'memberships'>
  inTransaction: UnitOfWork
  epoch: AccessEpoch
}

/** A range end that is absent, null or blank is no range end. */
function end (ip: string | null | undefined): string | null {
  const t = ip?.trim() ?? ''
  return t === '' ? null : t
}

/** Sent filters replace the stored ones; null clears them; not sent keeps them (undefined). */
function filters (f: Partial<IpFilters> | null | undefined): IpFilters | undefined {
  if (f === undefined) return undefined
  if (f === null) return emptyIpFilters()
  return { startIPAddress: end(f.startIPAddress), endIPAddress: end(f.endIPAddress), ipAddresses: f.ipAddresses ?? [] }
}

const IP_CODES = {
  api: {
    missing: 'company.missing.ip.address.filtering',
    address: 'company.invalid.ip.address',
    range: 'company.invalid.ip.address.range'
  },
  device: {
    missing: 'company.missing.device.ip.address.filtering',
    address: 'company.invalid.device.ip.address',
    range: 'company.invalid.device.ip.address.range'
  }
} as const

// What each IP filter error tells the caller: the field, and how to fix it.
const IP_FIXES = {
  missing: 'switching filtering on needs ipAddresses or a startIPAddress and endIPAddress range',
  address: 'every address of ipAddresses, startIPAddress and endIPAddress is an IPv4 or IPv6 address',
  range: 'startIPAddress and endIPAddress: both or neither, one address family, start not after end'
} as const

/** docs/api.md#users-and-companies, Edit: filters must be valid; switching filtering on needs filters. */
function checkFiltering (kind: keyof typeof IP_CODES, on: boolean, f: IpFilters): void {
  const field = kind === 'api' ? 'ipFilters' : 'deviceIpFilters'
  const problem = ipFiltersProblem(f)
  if (problem !== undefined) throw new FleetError(IP_CODES[kind][problem], [field, IP_FIXES[problem]])
  if (on && !hasFilters(f)) throw new FleetError(IP_CODES[kind].missing, [field, IP_FIXES.missing])
}

function toAdministrator (companyUid: string, u: { uid: string, email: string, name: string }): AdministratorView {
  return { uid: u.uid, company: { uid: companyUid }, email: u.email, name: u.name }
}

export function createCompaniesService ({ repos, inTransaction, epoch }: CompaniesServiceDeps) {
  function details (access: CompanyAccess): ReturnType<typeof companyView> {
    return companyView(access.company)
  }

  /**
   * Updates the editable fields only (name, address, ipFiltering, ipFilters, deviceIpFiltering, deviceIpFilters).
   * @throws company.missing.name, company.not.unique.name, value.too.long, company.(missing|invalid).*
   */
  async function edit (access: CompanyAccess, body: CompanyEditBody): Promise<ReturnType<typeof companyView>> {
    const c: Company = access.company
    const patch: CompanyPatch = {}
    if ('name' in body) {
      const name = body.name?.trim()
      if (name === undefined || name === '') throw new FleetError('company.missing.name', ['name', 'a company needs a name'])
      const other = await repos.companies.findByName(name)
      if (other !== undefined && other.uid !== c.uid) throw new FleetError('company.not.unique.name', [name])
      patch.name = name
    }
    if ('address' in body) {
      const address = body.address ?? null
      if (address !== null && address.length > MAX_ADDRESS_LENGTH) {
        throw new FleetError('value.too.long', ['address', String(MAX_ADDRESS_LENGTH)])
      }
      patch.address = address
    }
    const ipFilters = filters(body.ipFilters) ?? c.ipFilters
    const ipFiltering = body.ipFiltering ?? c.ipFiltering
    checkFiltering('api', ipFiltering, ipFilters)
    const deviceIpFilters = filters(body.deviceIpFilters) ?? c.deviceIpFilters
    const deviceIpFiltering = body.deviceIpFiltering ?? c.deviceIpFiltering
    checkFiltering('device', deviceIpFiltering, deviceIpFilters)
    Object.assign(patch, { ipFilters, ipFiltering, deviceIpFilters, deviceIpFiltering })
    await repos.companies.update(c.uid, patch)
    return companyView({ ...c, ...patch })
  }

  async function administrators (access: CompanyAccess): Promise<AdministratorView[]> {
    const admins = await repos.memberships.administrators(access.company.uid)
    return admins.map((u) => toAdministrator(access.company.uid, u))
  }

  /**
   * Replaces the list of administrators (docs/api.md#users-and-companies, Edit administrators).
   * @throws user.missing (empty list), user.unknown (not in the company), admin.without.profile
   */
  async function setAdministrators (access: CompanyAccess, body: { administrators?: Array<{ uid?: string }> | null }): Promise<AdministratorView[]> {
    const companyUid = access.company.uid
    const uids = [...new Set((body.administrators ?? []).map((a) => a.uid ?? ''))]
    if (uids.length === 0) throw new FleetError('user.missing', ['users', 'list at least one administrator'])
    return await inTransaction(async (tx) => {
      const members = await tx.memberships.members(companyUid, uids)
      const unknown = uids.find((u) => !members.some((m) => m.userUid === u))
      if (unknown !== undefined) throw new FleetError('user.unknown', [unknown])
      // A user without a profile keeps no right once out of the list: such an administrator stays.
      for (const admin of await tx.memberships.administrators(companyUid)) {
        if (!uids.includes(admin.uid) && !admin.hasProfile) throw new FleetError('admin.without.profile', [admin.uid])
      }
      await tx.memberships.setAdministrators(companyUid, uids)
      epoch.bump()
      return (await tx.memberships.administrators(companyUid)).map((u) => toAdministrator(companyUid, u))
    })
  }

  return { details, edit, administrators, setAdministrators }
}

export type CompaniesService = ReturnType<typeof createCompaniesService>
