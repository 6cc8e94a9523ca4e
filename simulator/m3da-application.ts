// The firmware application a simulated M3DA device is registered with. Who must authenticate is read from the
// system's M3DA application (docs/devices.md): an agent without security is admitted only when its
// communication parameters say `authentication: "none"`, and a secured agent's cipher is the one `encryption` names.
// The public generic.m3da application names neither, so the simulator gives the company an application of its own
// per security setting (./own-application.ts).
import type { M3daSecurity } from './transports/m3da-options.js'
import { GENERIC_APPLICATION_TYPES } from './devices/settings.js'
import type { ApiClient } from './provision.js'
import { ownApplication } from './own-application.js'

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
  return await ownApplication(api, {
    type: m3daApplicationType(security),
    name: `Simulated M3DA firmware (${security.mode === 'none' ? 'no authentication' : `${security.mac}, ${security.cipher}`})`,
    communication: { type: 'M3DA', commIdType: 'SERIAL', parameters: m3daParameters(security) },
    dataOf: GENERIC_APPLICATION_TYPES.m3da
  })
}
