// Reset to factory (docs/operations.md#bulk-operations; §Errors row "reset to factory"): `command` device
// tasks with the ids of RESET actions. Without `action` it "uses all RESET actions found on the system": one device
// task per distinct action id, sent one after the other (the next once the device acknowledged the previous OK); the
// task succeeds when all are acknowledged OK, and fails at the first ERROR with the device's message.
import { Type } from 'typebox'
import { Nullable } from '../body.schema.js'
import { DeviceCommon } from '../device/body.schema.js'
import { actionHandler, actionsOf, createActionOperation, type ActionBody, type ActionSpec } from '../device/actions.js'
import { operationKind } from '../kind.js'

export const RESET: ActionSpec = {
  actionType: 'RESET',
  invalidAction: 'reset.invalid.action',
  missingAction: 'operation.reset.missing.reset.action.in.system',
  // Two applications declaring the same action id (generic MQTT and REST firmware on one system) name one command.
  defaults: (applications) => actionsOf(applications, 'RESET').filter((e, i, all) => all.findIndex((x) => x.def.id === e.def.id) === i)
}

const ResetBody = Type.Object({
  ...DeviceCommon,
  action: Type.Optional(Nullable(Type.String({ description: 'Id of a RESET action of the systems\' applications; default: every RESET action of each system' })))
}, {
  description: 'Reset the selected systems\' devices to their factory settings',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] } }]
})

export const resetKind = operationKind({
  type: 'SYSTEM_RESET',
  route: {
    path: '/operations/systems/reset',
    summary: 'Reset systems to factory',
    description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. Each task ends once its device acknowledged every reset.',
    body: ResetBody
  },
  create: async (deps, caller, body) => await createActionOperation(deps, caller, 'SYSTEM_RESET', RESET, body as ActionBody),
  handler: actionHandler(RESET)
})
