// The safe-rollout fields of a device operation's request (docs/operations.md#bulk-operations;
// core/operations/device/body.schema.ts Rollout and Abort), as they go into the operation's parameters, where the
// engine reads them (core/operations/rollout.ts). Every device kind's create spreads them into its parameters:
//   newOperation(deps, caller, type, body, { ...ownParameters, ...rolloutParams(body) }, selection)
// Absent or null fields add nothing, so a request without them makes the operation it always made.
import type { AbortPolicy, RolloutPolicy } from '../rollout.js'

export interface RolloutFields {
  rollout?: RolloutPolicy | null
  abort?: AbortPolicy | null
}

export function rolloutParams (body: RolloutFields): { rollout?: RolloutPolicy, abort?: AbortPolicy } {
  const { rollout, abort } = body
  return {
    ...(rollout == null ? {} : { rollout: { maxPerMinute: rollout.maxPerMinute } }),
    ...(abort == null ? {} : { abort: { failurePercent: abort.failurePercent, minTasks: abort.minTasks } })
  }
}
