// The safe-rollout fields of a device operation's request (docs/operations.md#safe-rollouts;
// core/operations/device/body.schema.ts), checked and as they go into the operation's parameters, where the engine
// reads them (core/operations/rollout.ts). Every device kind's create spreads them into its parameters:
//   newOperation(deps, caller, type, body, { ...ownParameters, ...rolloutParams(body) }, selection)
// Absent or null fields add nothing, so a request without them makes the operation it always made.
import { checkRollout, type RolloutFields } from '../rollout-validate.js'

export type { RolloutFields }

/** @throws operation.rollout.invalid naming the field */
export function rolloutParams (body: RolloutFields): Record<string, unknown> {
  return checkRollout(body)
}
