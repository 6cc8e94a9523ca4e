// The firmware application a simulated LwM2M device is registered with (docs/protocols/lwm2m.md, Admission): a device
// over plain CoAP is admitted only when its system's LWM2M application says `security: "none"`, and an install
// reaches a system over LwM2M only through an application speaking LWM2M (docs/packages.md#installs). The catalogue
// has no generic LwM2M firmware, so the simulator gives the company one of its own per security (./own-application.ts).
import type { ApiClient } from './provision.js'
import { ownApplication } from './own-application.js'

/** `simulator.lwm2m.none` (NoSec) or `simulator.lwm2m.psk` (DTLS with the device's key). */
export const lwm2mApplicationType = (psk: boolean): string => `simulator.lwm2m.${psk ? 'psk' : 'none'}`

/** The uid of the company's LwM2M application for this security, created the first time. @throws ProvisionError */
export async function lwm2mApplication (api: ApiClient, psk: boolean): Promise<string> {
  return await ownApplication(api, {
    type: lwm2mApplicationType(psk),
    name: `Simulated LwM2M firmware (${psk ? 'DTLS-PSK' : 'NoSec'})`,
    communication: { type: 'LWM2M', commIdType: 'SERIAL', parameters: { security: psk ? 'psk' : 'none' } }
  })
}
