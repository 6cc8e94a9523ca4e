// Which transport carries a system's software task (core/operations/device/software-targets.ts; docs/packages.md#installs).
import { describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import type { Application } from '../../../core/domain/system.js'
import type { CommunicationEntry } from '../../../core/domain/application-model.js'
import { softwareTransport } from '../../../core/operations/device/software-targets.js'
import { elementsOf, type DeviceTarget } from '../../../core/operations/device/targets.js'

const app = (uid: string, protocols: string[]): Application => ({
  uid,
  companyUid: null,
  name: uid,
  revision: '1',
  type: uid,
  category: 'APPLICATION',
  data: [],
  communication: protocols.map((type) => ({ type, commIdType: 'SERIAL' })) as CommunicationEntry[]
})

/** A system with a serial number, MQTT and REST passwords and an M3DA password, carrying these applications. */
function target (applications: Application[], passwords = true): DeviceTarget {
  const communication = passwords ? { mqtt: { password: 'mqtt-secret' }, rest: { password: 'rest-secret' }, m3da: { password: 'm3da-secret' } } : {}
  return { system: { uid: 's1', name: 's1', communication, gateway: { serialNumber: 'SN1', imei: null } } as DeviceTarget['system'], applications, elements: elementsOf(applications) }
}

const codeOf = (f: () => unknown): string | undefined => {
  try { f() } catch (err) { return err instanceof FleetError ? err.code : 'not a FleetError' }
  return undefined
}

describe('softwareTransport', () => {
  it('MQTT_SW: the first of MQTT and REST the system speaks, or the one requested', () => {
    expect(softwareTransport(target([app('fw', ['REST']), app('x', ['MQTT'])]), 'MQTT_SW', 'install', null, [])).toBe('REST')
    expect(softwareTransport(target([app('fw', ['REST']), app('x', ['MQTT'])]), 'MQTT_SW', 'stop', 'mqtt', [])).toBe('MQTT')
    expect(softwareTransport(target([app('fw', ['SPARKPLUG']), app('x', ['MQTT'])]), 'MQTT_SW', 'install', null, [])).toBe('MQTT')
  })

  it('a system without applications speaks what the installed application declares', () => {
    expect(softwareTransport(target([]), 'MQTT_SW', 'install', null, [{ type: 'MQTT', commIdType: 'SERIAL' }])).toBe('MQTT')
    expect(codeOf(() => softwareTransport(target([]), 'MQTT_SW', 'install', null, []))).toBe('operation.install.unsupported.protocol')
  })

  it('MIHINI_APPCON installs over M3DA and nothing else', () => {
    const m3da = target([app('fw', ['M3DA'])])
    expect(softwareTransport(m3da, 'MIHINI_APPCON', 'install', null, [])).toBe('M3DA')
    for (const action of ['uninstall', 'start', 'stop'] as const) expect(codeOf(() => softwareTransport(m3da, 'MIHINI_APPCON', action, null, []))).toBe('operation.install.unsupported.protocol')
  })

  it('HAWKBIT installs over DDI on a system that speaks DDI or REST (the REST password is its token); nothing else', () => {
    expect(softwareTransport(target([app('fw', ['REST'])]), 'HAWKBIT', 'install', null, [])).toBe('DDI')
    expect(softwareTransport(target([app('fw', ['DDI'])]), 'HAWKBIT', 'install', null, [])).toBe('DDI')
    expect(softwareTransport(target([]), 'HAWKBIT', 'install', null, [{ type: 'REST', commIdType: 'SERIAL' }])).toBe('DDI')
    expect(codeOf(() => softwareTransport(target([app('fw', ['MQTT'])]), 'HAWKBIT', 'install', null, []))).toBe('operation.install.unsupported.protocol')
    expect(codeOf(() => softwareTransport(target([app('fw', ['REST'])]), 'HAWKBIT', 'uninstall', null, []))).toBe('operation.install.unsupported.protocol')
    expect(codeOf(() => softwareTransport(target([app('fw', ['REST'])], false), 'HAWKBIT', 'install', null, []))).toBe('operation.no.communication.id.on.system.for.protocol')
  })

  it('Sparkplug, MSCI and SNMP systems, and managers without a transport: unsupported', () => {
    for (const p of ['SPARKPLUG', 'MSCI', 'SNMP']) expect(codeOf(() => softwareTransport(target([app('fw', [p])]), 'MQTT_SW', 'install', null, []))).toBe('operation.install.unsupported.protocol')
    for (const m of ['LWM2M_SW', 'LWM2M_FW'] as const) expect(codeOf(() => softwareTransport(target([app('fw', ['MQTT'])]), m, 'install', null, []))).toBe('operation.install.unsupported.protocol')
  })

  it('a requested protocol the system does not speak, one the path cannot use, and a system without its password', () => {
    expect(codeOf(() => softwareTransport(target([app('fw', ['MQTT'])]), 'MQTT_SW', 'install', 'REST', []))).toBe('operation.protocol.not.found.on.system.for.encoding')
    expect(codeOf(() => softwareTransport(target([app('fw', ['MQTT']), app('m', ['M3DA'])]), 'MQTT_SW', 'install', 'M3DA', []))).toBe('operation.install.unsupported.protocol')
    expect(codeOf(() => softwareTransport(target([app('fw', ['MQTT'])], false), 'MQTT_SW', 'install', null, []))).toBe('operation.no.communication.id.on.system.for.protocol')
  })
})
