// Reboot (docs/operations.md#bulk-operations; §Errors row "reboot"): a `command` device task with the id
// of a REBOOT action. Without `action`, the system reboots "through the first firmware that answers": the REBOOT action
// of its first FIRMWARE application that has one (else of the first other application that has one).
import { Type } from 'typebox'
import { Nullable } from '../body.schema.js'
import { DeviceCommon } from '../device/body.schema.js'
import { actionHandler, actionsOf, createActionOperation, type ActionBody, type ActionSpec } from '../device/actions.js'
import { operationKind } from '../kind.js'

export const REBOOT: ActionSpec = {
  actionType: 'REBOOT',
  invalidAction: 'reboot.invalid.action',
  missingAction: 'operation.reboot.missing.reboot.action.in.system',
  defaults: (applications) => {
    const firmware = applications.filter((a) => a.category === 'FIRMWARE')
    const others = applications.filter((a) => a.category !== 'FIRMWARE')
    return actionsOf([...firmware, ...others], 'REBOOT').slice(0, 1)
  }
}

const RebootBody = Type.Object({
  ...DeviceCommon,
  action: Type.Optional(Nullable(Type.String({ description: 'Id of a REBOOT action of the systems\' applications; default: the first firmware\'s' })))
}, {
  description: 'Reboot the selected systems\' devices',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] }, action: 'system.reboot', requestConnection: true }]
})

export const rebootKind = operationKind({
  type: 'SYSTEM_REBOOT',
  route: {
    path: '/operations/systems/reboot',
    summary: 'Reboot systems',
    description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. Each task ends with its device\'s acknowledgement.',
    body: RebootBody
  },
  create: async (deps, caller, body) => await createActionOperation(deps, caller, 'SYSTEM_REBOOT', REBOOT, body as ActionBody),
  handler: actionHandler(REBOOT)
})
