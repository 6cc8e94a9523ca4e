// Who a DDI request is (docs/protocols/ddi.md#authentication): `Authorization: TargetToken <token>` where the token is
// the system's `communication.rest.password` and the controller id its gateway serial number (or IMEI, as REST logins
// accept), checked by the device logins every transport uses (their cache, throttle and IP filters), and the tenant
// its company: the company's uid, or DEFAULT for the company the service was first started with (FLEET_COMPANY_NAME).
// GatewayToken (one token for every controller of a tenant) is not accepted: it would let one secret speak for a
// whole company's gateways, and the service has no such secret to check it against.
import type { DeviceAuthResult, DevicesService } from '../../core/services/ingest/devices.service.js'
import type { Repositories } from '../../core/ports/repositories.js'

export const DEFAULT_TENANT = 'DEFAULT'

/** The login's outcome; a tenant that is not the device's company is `device.unknown`, like an unknown controller. */
export type DdiAuth = DeviceAuthResult

// The default company's uid, looked up again after this long (a rename of the company takes effect within it).
const DEFAULT_COMPANY_MS = 60_000

export interface DdiAuthDeps {
  devices: Pick<DevicesService, 'authenticate'>
  companies: Pick<Repositories['companies'], 'findByName'>
  defaultCompanyName: string
  now: () => number
}

export function tokenOf (header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^TargetToken\s+(\S.*)$/i.exec(header.trim())
  return m?.[1]
}

export function createDdiAuth (deps: DdiAuthDeps) {
  let cached: { at: number, uid: string | undefined } | undefined
  async function defaultCompany (): Promise<string | undefined> {
    const now = deps.now()
    if (cached === undefined || now - cached.at >= DEFAULT_COMPANY_MS) {
      cached = { at: now, uid: (await deps.companies.findByName(deps.defaultCompanyName))?.uid }
    }
    return cached.uid
  }

  return async function authenticate (tenant: string, controllerId: string, authorization: string | undefined, ip: string): Promise<DdiAuth> {
    const token = tokenOf(authorization)
    if (token === undefined || controllerId === '') return { ok: false, reason: 'device.unknown' }
    const r = await deps.devices.authenticate(controllerId, token, 'rest', ip)
    if (!r.ok) return r
    const company = tenant.toUpperCase() === DEFAULT_TENANT ? await defaultCompany() : tenant
    return company === r.session.companyUid ? r : { ok: false, reason: 'device.unknown' }
  }
}
