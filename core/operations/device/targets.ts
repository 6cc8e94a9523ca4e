// What a system can be asked, and over which transport (docs/api.md#applications-and-templates, docs/devices.md): the
// applications on the system declare the protocols they speak (communication) and the data ids, settings, commands
// and actions they understand (data). The device operations read it per system when their tasks run.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import { DEVICE_PROTOCOLS, type DeviceProtocol } from '../../domain/device-message.js'
import { communicationParameters, flattenData, type DataDefinition } from '../../domain/application-model.js'
import type { Application, DeviceSystem } from '../../domain/system.js'

/** One element a system's applications define, with the application that defines it. */
export interface Element { def: DataDefinition, application: Application }

export interface DeviceTarget {
  system: DeviceSystem
  applications: Application[]
  /** Every element by data id (the first application that defines an id wins). */
  elements: Map<string, Element>
}

/** The systems and their applications, for the tasks of one chunk or the checks of a request. */
export async function loadTargets (tx: Pick<Repositories, 'systems' | 'applications'>, companyUid: string, systemUids: readonly string[]): Promise<Map<string, DeviceTarget>> {
  const apps = await tx.applications.forSystems(systemUids)
  // One statement for the whole chunk: one per system made releasing a 10,000-device reboot the slowest part of it.
  const systems = new Map((await tx.systems.deviceSystems(companyUid, systemUids)).map((x) => [x.uid, x]))
  // Systems with the same applications share their elements (a fleet has a few firmwares: one tree each to read).
  const shared = new Map<string, Map<string, Element>>()
  const out = new Map<string, DeviceTarget>()
  for (const uid of systemUids) {
    const system = systems.get(uid)
    if (system === undefined) continue
    const applications = apps.get(uid) ?? []
    const key = applications.map((a) => a.uid).join(',')
    let elements = shared.get(key)
    if (elements === undefined) { elements = elementsOf(applications); shared.set(key, elements) }
    out.set(uid, { system, applications, elements })
  }
  return out
}

export function elementsOf (applications: readonly Application[]): Map<string, Element> {
  const elements = new Map<string, Element>()
  for (const application of applications) {
    for (const def of flattenData(application.data)) if (!elements.has(def.id)) elements.set(def.id, { def, application })
  }
  return elements
}

/**
 * The transport that carries a protocol's tasks: SNMP is the AirLink gateways' MSCI over SNMP (docs/protocols/msci.md),
 * polled and tasked by the MSCI transport like an MSCI entry with `access: "snmp"`.
 */
export const carrierOf = (p: DeviceProtocol): DeviceProtocol => p === 'SNMP' ? 'MSCI' : p

/** The protocols the system's applications speak, by their carrier, in application order. */
export function protocolsOf (applications: readonly Application[]): DeviceProtocol[] {
  return [...new Set(applications.flatMap((a) => a.communication.map((c) => carrierOf(c.type))))]
}

const isProtocol = (p: string): p is DeviceProtocol => (DEVICE_PROTOCOLS as readonly string[]).includes(p)

/**
 * The transport of a system's task: the requested protocol when one of its applications speaks it; otherwise the
 * encoding of the element asked for, else the communication of the application that defines it, else the first
 * protocol the system's applications speak (docs/operations.md#bulk-operations: "otherwise definitions come from the
 * applications on the systems"). @throws operation.protocol.not.found.on.system.for.encoding
 */
export function chooseProtocol (target: DeviceTarget, requested: string | null | undefined, element?: Element): DeviceProtocol {
  const spoken = protocolsOf(target.applications)
  const wanted = requested == null || requested === '' ? undefined : requested.toUpperCase()
  if (wanted !== undefined) {
    if (isProtocol(wanted) && spoken.includes(carrierOf(wanted))) return carrierOf(wanted)
    throw new FleetError('operation.protocol.not.found.on.system.for.encoding', [target.system.uid, wanted])
  }
  const own = element === undefined ? [] : [element.def.encoding, ...element.application.communication.map((c) => c.type)]
  const chosen = [...own, ...spoken].map((p) => p == null ? p : carrierOf(p)).find((p): p is DeviceProtocol => p != null && spoken.includes(p))
  if (chosen === undefined) throw new FleetError('operation.protocol.not.found.on.system.for.encoding', [target.system.uid, element?.def.id ?? 'none'])
  return chosen
}

/**
 * Whether the system has the identifier its device logs in with over the protocol: the one the `commIdType` of the
 * application speaking it names (SERIAL: the gateway's serial number, IMEI: its IMEI); any other type, or no
 * application saying, either of them. A task for a device that cannot log in would wait until its timeout.
 */
function hasLogin (target: Pick<DeviceTarget, 'system' | 'applications'>, protocol: DeviceProtocol): boolean {
  const serial = (target.system.gateway?.serialNumber ?? '') !== ''
  const imei = (target.system.gateway?.imei ?? '') !== ''
  const entry = target.applications.flatMap((a) => a.communication).find((c) => c.type === protocol)
  if (entry?.commIdType === 'SERIAL') return serial
  if (entry?.commIdType === 'IMEI') return imei
  return serial || imei
}

/**
 * Whether the system has what the protocol needs to reach its device (docs/devices.md): a gateway serial
 * number or IMEI as login (the one its application's commIdType names) and the protocol's password (MQTT,
 * Sparkplug: communication.mqtt; REST and hawkBit DDI: communication.rest; M3DA: a password, a registration password, or an M3DA
 * application admitting agents without security, `authentication: "none"`; LwM2M: a pre-shared key, or an LWM2M
 * application admitting NoSec devices, `security: "none"`), or the MSCI host to poll.
 */
export function hasCommIdentifiers (target: Pick<DeviceTarget, 'system' | 'applications'>, protocol: DeviceProtocol): boolean {
  const { system } = target
  const set = (v: string | null | undefined): boolean => v != null && v !== ''
  const login = hasLogin(target, protocol)
  const c = system.communication
  switch (protocol) {
    case 'MQTT':
    case 'SPARKPLUG': return login && set(c.mqtt?.password)
    case 'REST':
    case 'DDI': return login && set(c.rest?.password)
    case 'M3DA': return login && (set(c.m3da?.password) || set(c.m3da?.registrationPassword) || communicationParameters(target.applications, 'M3DA').authentication === 'none')
    case 'MSCI':
    case 'SNMP': return set(c.msci?.host)
    case 'LWM2M': return login && (set(c.lwm2m?.pskSecretHex) || communicationParameters(target.applications, 'LWM2M').security === 'none')
  }
}
