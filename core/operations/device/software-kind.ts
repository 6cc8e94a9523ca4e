// What the four software kinds share (docs/packages.md#installs): one route each under
// /operations/systems/applications/, the same body, creation and handler, told apart by their action.
import type { OperationType } from '../../domain/operation.js'
import type { SoftwareAction } from '../../domain/software-task.js'
import { operationKind } from '../kind.js'
import { softwareBodySchema, type SoftwareRequest } from './software-body.js'
import { createSoftwareOperation } from './software-create.js'
import { softwareHandler } from './software-handler.js'

const SELECTION = 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria.'

export function softwareKind (type: OperationType, action: SoftwareAction, summary: string, outcome: string) {
  return operationKind({
    type,
    route: {
      path: `/operations/systems/applications/${action}`,
      summary,
      description: `${SELECTION} The application's manager chooses the update path: MQTT_SW over the system's MQTT or REST, MIHINI_APPCON over M3DA and HAWKBIT over hawkBit DDI (install only), LWM2M_FW over LwM2M Object 5 (install only: the download link written as Package URI, Update executed once downloaded, the task ended by the Update Result) and LWM2M_SW over LwM2M Object 9 (Install, Uninstall, Activate, Deactivate); any other, or a system that speaks none of them, fails its task with operation.install.unsupported.protocol. ${outcome}`,
      body: softwareBodySchema(action)
    },
    create: async (deps, caller, body) => await createSoftwareOperation(deps, caller, type, action, body as SoftwareRequest),
    handler: softwareHandler(action),
    bind: (deps) => softwareHandler(action, deps.software)
  })
}
