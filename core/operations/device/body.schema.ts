// The request fields every device operation shares (docs/operations.md#bulk-operations; §Common operation parameters),
// and the safe-rollout fields that no AirVantage client sends (their absence changes nothing).
import { Type } from 'typebox'
import { Common, Nullable, Selection } from '../body.schema.js'

export const Rollout = Type.Object({
  maxPerMinute: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Tasks released to devices per minute, at most' })
}, { description: 'Release the tasks at most this fast (not in AirVantage)' })

export const Abort = Type.Object({
  failurePercent: Type.Number({ minimum: 0, maximum: 100, description: 'Share of ended tasks in FAILURE that stops the rollout' }),
  minTasks: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Ended tasks needed before the share is judged' })
}, { description: 'Cancel the remaining tasks once this share of the ended ones failed (not in AirVantage)' })

/** Fields of every device operation; each adds its own (data, settings, action...). */
export const DeviceCommon = {
  ...Common,
  protocol: Type.Optional(Nullable(Type.String({ description: 'Transport to use (MQTT, REST, M3DA...); else the applications on each system decide' }))),
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  rollout: Type.Optional(Type.Union([Type.Null(), Rollout])),
  abort: Type.Optional(Type.Union([Type.Null(), Abort]))
}
