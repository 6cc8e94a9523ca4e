// The LwM2M update paths (core/operations/device/software-targets.ts; docs/packages.md#installs): LWM2M_FW installs
// through Object 5 and does nothing else, LWM2M_SW takes all four actions through Object 9, both on a system that
// speaks LWM2M with what its device registers with (a PSK, or an application admitting NoSec devices).
import { describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import type { Application } from '../../../core/domain/system.js'
import type { CommunicationEntry } from '../../../core/domain/application-model.js'
import { softwareTransport } from '../../../core/operations/device/software-targets.js'
import { elementsOf, type DeviceTarget } from '../../../core/operations/device/targets.js'

const app = (protocol: string, parameters: Record<string, unknown> = {}): Application => ({
  uid: protocol,
  companyUid: null,
  name: protocol,
  revision: '1',
  type: protocol,
  category: 'APPLICATION',
  data: [],
  communication: [{ type: protocol, commIdType: 'SERIAL', parameters }] as CommunicationEntry[]
})

function target (applications: Application[], psk: boolean): DeviceTarget {
  const communication = psk ? { lwm2m: { pskSecretHex: '00112233' } } : {}
  return { system: { uid: 's1', name: 's1', communication, gateway: { serialNumber: 'SN1', imei: null } } as DeviceTarget['system'], applications, elements: elementsOf(applications) }
}

const codeOf = (f: () => unknown): string | undefined => {
  try { f() } catch (err) { return err instanceof FleetError ? err.code : 'not a FleetError' }
  return undefined
}

describe('softwareTransport over LwM2M', () => {
  it('LWM2M_FW installs over LWM2M; it has no uninstall, start or stop', () => {
    const lwm2m = target([app('LWM2M')], true)
    expect(softwareTransport(lwm2m, 'LWM2M_FW', 'install', null, [])).toBe('LWM2M')
    for (const action of ['uninstall', 'start', 'stop'] as const) expect(codeOf(() => softwareTransport(lwm2m, 'LWM2M_FW', action, null, []))).toBe('operation.install.unsupported.protocol')
  })

  it('LWM2M_SW takes every action over LWM2M, a NoSec application admitting the device', () => {
    const nosec = target([app('LWM2M', { security: 'none' })], false)
    for (const action of ['install', 'uninstall', 'start', 'stop'] as const) expect(softwareTransport(nosec, 'LWM2M_SW', action, null, [])).toBe('LWM2M')
  })

  it('a system that does not speak LWM2M, or cannot register (no PSK, NoSec not admitted)', () => {
    expect(codeOf(() => softwareTransport(target([app('MQTT')], true), 'LWM2M_SW', 'install', null, []))).toBe('operation.install.unsupported.protocol')
    expect(codeOf(() => softwareTransport(target([app('LWM2M')], false), 'LWM2M_FW', 'install', null, []))).toBe('operation.no.communication.id.on.system.for.protocol')
  })
})
