// Which transport carries a system's software task (docs/packages.md#installs): the application's manager names the
// update path, the system's applications the protocols its device speaks. MQTT_SW goes over whichever of MQTT and
// REST the system uses (REST devices poll GET /device/tasks for the same task); MIHINI_APPCON installs over M3DA (the
// agent takes software only as an update package: uninstall, start and stop have no M3DA command); HAWKBIT installs
// over hawkBit DDI (docs/protocols/ddi.md) on a system that speaks DDI or REST, whose password is the controller's
// token (DDI deploys, it removes nothing). LWM2M_FW installs a firmware through Object 5 (it has no uninstall, start
// or stop), LWM2M_SW all four through Object 9, on a system that speaks LWM2M (docs/protocols/lwm2m.md#installs). A
// system that speaks none of these (Sparkplug, MSCI) fails the task at once with operation.install.unsupported.protocol.
import { FleetError } from '../../errors.js'
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { CommunicationEntry } from '../../domain/application-model.js'
import type { ApplicationManager } from '../../domain/application-package.js'
import type { SoftwareAction } from '../../domain/software-task.js'
import { carrierOf, hasCommIdentifiers, protocolsOf, type DeviceTarget } from './targets.js'

export const UNSUPPORTED = 'operation.install.unsupported.protocol'

/** The protocols a system must speak for an update path to reach it with an action, in the order it prefers them. */
function carriersOf (manager: ApplicationManager, action: SoftwareAction): readonly DeviceProtocol[] {
  switch (manager) {
    case 'MQTT_SW': return ['MQTT', 'REST']
    case 'MIHINI_APPCON': return action === 'install' ? ['M3DA'] : []
    case 'HAWKBIT': return action === 'install' ? ['DDI', 'REST'] : []
    case 'LWM2M_FW': return action === 'install' ? ['LWM2M'] : []
    case 'LWM2M_SW': return ['LWM2M']
  }
}

/** The transport that carries the task once the system speaks `spoken`: hawkBit's is DDI whatever the system lists. */
const transportOf = (manager: ApplicationManager, spoken: DeviceProtocol): DeviceProtocol => manager === 'HAWKBIT' ? 'DDI' : spoken

/**
 * The protocols the system's device speaks, in its applications' order; a system with no application yet speaks
 * what the application being installed declares (a device given its first application by an install).
 */
function spokenBy (target: DeviceTarget, own: readonly CommunicationEntry[]): DeviceProtocol[] {
  const spoken = protocolsOf(target.applications)
  return spoken.length > 0 ? spoken : [...new Set(own.map((c) => carrierOf(c.type)))]
}

/**
 * The transport of one system's task, checked against the system's identifiers.
 * @throws operation.install.unsupported.protocol, operation.protocol.not.found.on.system.for.encoding (the requested
 *   protocol is not one the system speaks), operation.no.communication.id.on.system.for.protocol
 */
export function softwareTransport (target: DeviceTarget, manager: ApplicationManager, action: SoftwareAction, requested: string | null, own: readonly CommunicationEntry[]): DeviceProtocol {
  const uid = target.system.uid
  const spoken = spokenBy(target, own)
  const usable = carriersOf(manager, action)
  let protocol: DeviceProtocol | undefined
  if (requested !== null) {
    const wanted = spoken.find((p) => p === carrierOf(requested.toUpperCase() as DeviceProtocol))
    if (wanted === undefined) throw new FleetError('operation.protocol.not.found.on.system.for.encoding', [uid, requested])
    protocol = usable.includes(wanted) ? wanted : undefined
  } else {
    protocol = spoken.find((p) => usable.includes(p))
  }
  if (protocol === undefined) {
    const path = usable.length === 0 ? `${manager} has no ${action} over this service's transports` : `${manager} needs ${usable.join(' or ')}`
    throw new FleetError(UNSUPPORTED, [uid, `speaks ${spoken.join(', ') || 'no protocol'}`, path])
  }
  const transport = transportOf(manager, protocol)
  if (!hasCommIdentifiers(target, transport)) throw new FleetError('operation.no.communication.id.on.system.for.protocol', [uid, transport])
  return transport
}
