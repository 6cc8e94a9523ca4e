// The firmware application a simulated M3DA device is registered with. Who must authenticate is read from the
// system's M3DA application (docs/devices.md): an agent without security is admitted only when its
// communication parameters say `authentication: "none"`, and a secured agent's cipher is the one `encryption` names.
// The public generic.m3da application names neither, so the simulator gives the company an application of its own
// per security setting, with the generic firmware's data tree (its settings and actions, so that the device
// operations find what they name), created once and found again by its type.
import type { M3daSecurity } from './transports/m3da-options.js'
import { GENERIC_APPLICATION_TYPES } from './devices/settings.js'
import { findApplication, ProvisionError, type ApiClient } from './provision.js'

/** The application type of a security setting: `simulator.m3da.none`, `simulator.m3da.hmac-sha1.aes-cbc-128`... */
export function m3daApplicationType (security: M3daSecurity): string {
  return security.mode === 'none' ? 'simulator.m3da.none' : `simulator.m3da.${security.mac}.${security.cipher}`
}

/** The communication parameters of that application (docs/api.md#applications-and-templates, docs/devices.md). */
export function m3daParameters (security: M3daSecurity): Record<string, string> {
  return security.mode === 'none' ? { authentication: 'none' } : { authentication: security.mac, encryption: security.cipher }
}

/**
 * The uid of the company's M3DA application for this security setting, created (with the data tree of the public
 * generic.m3da application when the catalogue has one) the first time. @throws ProvisionError
 */
export async function m3daApplication (api: ApiClient, security: M3daSecurity): Promise<string> {
  const type = m3daApplicationType(security)
  const found = await findApplication(api, type)
  if (found !== undefined) return found
  const generic = await findApplication(api, GENERIC_APPLICATION_TYPES.m3da)
  let data: unknown[] = []
  if (generic !== undefined) {
    const res = await api.request('GET', `/api/v1/applications/${encodeURIComponent(generic)}`)
    if (res.status !== 200) throw new ProvisionError(`reading the ${GENERIC_APPLICATION_TYPES.m3da} application failed (${res.status}): ${JSON.stringify(res.json)}`)
    data = (res.json as { data?: unknown[] }).data ?? []
  }
  const res = await api.request('POST', '/api/v1/applications', {
    name: `Simulated M3DA firmware (${security.mode === 'none' ? 'no authentication' : `${security.mac}, ${security.cipher}`})`,
    revision: '1.0',
    type,
    category: 'FIRMWARE',
    communication: [{ type: 'M3DA', commIdType: 'SERIAL', parameters: m3daParameters(security) }],
    data
  })
  if (res.status === 200) return (res.json as { uid: string }).uid
  // Another simulator run created it meanwhile (one per type and revision in a company).
  const again = await findApplication(api, type)
  if (again !== undefined) return again
  throw new ProvisionError(`creating the ${type} application failed (${res.status}): ${JSON.stringify(res.json)}`)
}
