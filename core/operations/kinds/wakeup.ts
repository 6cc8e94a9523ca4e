// Wake-up (docs/operations.md#bulk-operations): a `command` device task with the id of a CONNECT action
// "of a communication application", which "forces it to communicate with the service". It always asks a device that
// is not connected to connect (docs/devices.md: the SMS shoulder tap), and takes no scheduledTime nor
// requestConnection (its common parameters are notify, callback, timeout). The spec's row lists no code of its own;
// ours follow the reboot and reset rows: wakeup.invalid.action (400) and, per system,
// operation.wakeup.missing.connect.action.in.system, operation.no.communication.id.on.system.for.protocol,
// operation.protocol.not.found.on.system.for.encoding.
import { Type } from 'typebox'
import { Common, Nullable, Selection } from '../body.schema.js'
import { DeviceCommon } from '../device/body.schema.js'
import { actionHandler, actionsOf, createActionOperation, type ActionBody, type ActionSpec } from '../device/actions.js'
import { operationKind } from '../kind.js'

export const WAKEUP: ActionSpec = {
  actionType: 'CONNECT',
  invalidAction: 'wakeup.invalid.action',
  missingAction: 'operation.wakeup.missing.connect.action.in.system',
  // The CONNECT action of the first application that speaks a protocol, else of the first that has one.
  defaults: (applications) => {
    const talking = applications.filter((a) => a.communication.length > 0)
    const silent = applications.filter((a) => a.communication.length === 0)
    return actionsOf([...talking, ...silent], 'CONNECT').slice(0, 1)
  }
}

const WakeupBody = Type.Object({
  notify: Common.notify,
  callback: Common.callback,
  timeout: Common.timeout,
  protocol: DeviceCommon.protocol,
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  rollout: DeviceCommon.rollout,
  abort: DeviceCommon.abort,
  maintenanceWindow: DeviceCommon.maintenanceWindow,
  action: Type.Optional(Nullable(Type.String({ description: 'Id of a CONNECT action of the systems\' applications; default: that of the application that communicates' })))
}, {
  description: 'Make the selected systems\' devices connect to the service (an SMS shoulder tap for those not connected)',
  examples: [{ systems: { uids: ['3f9c2b7a1d4e4f6a8b0c2d4e6f8a0b1c'] } }]
})

export const wakeupKind = operationKind({
  type: 'SYSTEM_WAKEUP',
  route: {
    path: '/operations/systems/wakeup',
    summary: 'Wake systems up',
    description: 'The systems are chosen by systems: exactly one of label, uids (at most 100), dependsOn or criteria. A device not connected is asked to connect (SMS_GATEWAY_URL); each task ends with its device\'s acknowledgement.',
    body: WakeupBody
  },
  // No scheduledTime: a wake-up starts at once (its row's common parameters are notify, callback, timeout).
  create: async (deps, caller, body) => await createActionOperation(deps, caller, 'SYSTEM_WAKEUP', WAKEUP, { ...(body as ActionBody), scheduledTime: null }, true),
  handler: actionHandler(WAKEUP, true)
})
