// The request fields every device operation shares (docs/operations.md#bulk-operations; §Common operation parameters),
// and the safe-rollout fields that no AirVantage client sends (their absence changes nothing).
import { Type, type TSchema } from 'typebox'
import { Common, Nullable, Selection } from '../body.schema.js'

const percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description })
const count = (description: string) => Type.Integer({ minimum: 1, maximum: 1_000_000, description })
const hhmm = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description })

/**
 * A safe-rollout field: the schema only documents its shape (the OpenAPI document shows it, through the doc-only
 * `x-allowed` of api/schemas/common.schema.ts); any value passes it, and core/operations/rollout-validate.ts checks
 * it, so that every mistake answers operation.rollout.invalid naming the field rather than request.invalid.
 */
const checkedByTheService = (shape: TSchema, description: string) =>
  Type.Optional(Type.Unsafe<unknown>({ description: `${description}. Invalid: 400 operation.rollout.invalid naming the field`, 'x-allowed': { anyOf: [{ type: 'null' }, shape] } }))

export const Rollout = Type.Object({
  maxPerMinute: Type.Optional(count('Tasks released to devices in any 60 s, at most')),
  waves: Type.Optional(Type.Array(Type.Number({ minimum: 1, maximum: 100 }), {
    minItems: 1,
    maxItems: 100,
    description: 'Cumulative percents of the tasks, increasing, e.g. [1, 10, 50, 100]; a last wave under 100 is followed by one of 100'
  })),
  waveSuccessPercent: Type.Optional(Type.Number({ minimum: 1, maximum: 100, default: 95, description: 'Share of the tasks of the waves so far that must have succeeded before the next wave starts (with waves only)' })),
  abort: Type.Optional(Type.Object({
    failurePercent: percent('Share of finished tasks in FAILURE that stops the rollout'),
    minFinished: count('Finished tasks (SUCCESS or FAILURE) needed before the share is judged')
  }, { additionalProperties: false, description: 'Stop the rollout: its PENDING tasks CANCELLED with operation.aborted.threshold' }))
}, { additionalProperties: false, description: 'Pace and guard the release of the tasks; at least one field' })

export const Abort = Type.Object({
  failurePercent: percent('Share of ended tasks in FAILURE that stops the rollout'),
  minTasks: count('Ended tasks needed before the share is judged')
}, { additionalProperties: false, description: 'The older form of rollout.abort (minTasks for minFinished), kept for the clients that send it' })

export const MaintenanceWindow = Type.Object({
  start: hhmm('Local time from which tasks may leave, HH:MM'),
  end: hhmm('Local time from which they may not (before start: the window crosses midnight), HH:MM'),
  timeZone: Type.Optional(Type.String({ default: 'UTC', description: 'IANA time zone name, e.g. Europe/Paris' }))
}, { additionalProperties: false, description: 'Tasks leave only inside this daily window' })

/** Fields of every device operation; each adds its own (data, settings, action...). */
export const DeviceCommon = {
  ...Common,
  protocol: Type.Optional(Nullable(Type.String({ description: 'Transport to use (MQTT, REST, M3DA...); else the applications on each system decide' }))),
  systems: Type.Optional(Type.Union([Type.Null(), Selection])),
  rollout: checkedByTheService(Rollout, 'Safe rollout: pace, waves and failure threshold (not in AirVantage)'),
  abort: checkedByTheService(Abort, 'Older form of rollout.abort (not in AirVantage)'),
  maintenanceWindow: checkedByTheService(MaintenanceWindow, 'Daily window in which tasks may leave (not in AirVantage)')
}
