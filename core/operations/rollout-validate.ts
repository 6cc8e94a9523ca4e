// The safe-rollout fields of a device operation's request, checked (docs/operations.md#safe-rollouts): `rollout`,
// the older top-level `abort`, and `maintenanceWindow`. The route's schema lets any value through (it only
// documents the shape, core/operations/device/body.schema.ts) so that every mistake answers the one code
// operation.rollout.invalid naming the field, e.g. ["rollout.waves[2]", "must be greater than 10"]. A typo in a
// policy meant to keep a fleet safe must not pass unseen: unknown keys are refused too.
import { FleetError } from '../errors.js'
import { HH_MM, zoneFormat } from './rollout-window.js'

const MAX_COUNT = 1_000_000
const MAX_WAVES = 100
export const DEFAULT_WAVE_SUCCESS_PERCENT = 95

const invalid = (field: string, message: string): FleetError => new FleetError('operation.rollout.invalid', [field, message])

function record (v: unknown, field: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(field, 'must be an object')
  const r = v as Record<string, unknown>
  const unknown = Object.keys(r).find((k) => !keys.includes(k))
  if (unknown !== undefined) throw invalid(`${field}.${unknown}`, `unknown field; ${field} takes ${keys.join(', ')}`)
  return r
}

function num (v: unknown, field: string, min: number, max: number, integer: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(field, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`)
  if (integer && !Number.isInteger(v)) throw invalid(field, `must be an integer from ${min} to ${max}`)
  if (v < min || v > max) throw invalid(field, `must be from ${min} to ${max}`)
  return v
}

function waves (v: unknown): number[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_WAVES) throw invalid('rollout.waves', `must be a list of 1 to ${MAX_WAVES} percents`)
  const out: number[] = []
  for (const [i, p] of (v as unknown[]).entries()) {
    const n = num(p, `rollout.waves[${i}]`, 1, 100, false)
    const before = out[i - 1]
    if (before !== undefined && n <= before) throw invalid(`rollout.waves[${i}]`, `must be greater than ${before} (waves are cumulative)`)
    out.push(n)
  }
  return out
}

function failurePercent (v: unknown, field: string): number { return num(v, field, 0, 100, false) }
function minCount (v: unknown, field: string): number { return num(v, field, 1, MAX_COUNT, true) }

/** The request's `rollout`, as kept in the operation's parameters (waveSuccessPercent given its default). */
function rollout (v: unknown): Record<string, unknown> {
  const r = record(v, 'rollout', ['maxPerMinute', 'waves', 'waveSuccessPercent', 'abort'])
  const out: Record<string, unknown> = {}
  if (r.maxPerMinute != null) out.maxPerMinute = minCount(r.maxPerMinute, 'rollout.maxPerMinute')
  if (r.waves != null) out.waves = waves(r.waves)
  if (r.waveSuccessPercent != null) {
    if (out.waves === undefined) throw invalid('rollout.waveSuccessPercent', 'needs rollout.waves')
    out.waveSuccessPercent = num(r.waveSuccessPercent, 'rollout.waveSuccessPercent', 1, 100, false)
  } else if (out.waves !== undefined) out.waveSuccessPercent = DEFAULT_WAVE_SUCCESS_PERCENT
  if (r.abort != null) {
    const a = record(r.abort, 'rollout.abort', ['failurePercent', 'minFinished'])
    out.abort = { failurePercent: failurePercent(a.failurePercent, 'rollout.abort.failurePercent'), minFinished: minCount(a.minFinished, 'rollout.abort.minFinished') }
  }
  if (Object.keys(out).length === 0) throw invalid('rollout', 'must set maxPerMinute, waves or abort')
  return out
}

/** The older top-level form, `abort: {failurePercent, minTasks}`, that clients already send. */
function olderAbort (v: unknown): Record<string, unknown> {
  const a = record(v, 'abort', ['failurePercent', 'minTasks'])
  return { failurePercent: failurePercent(a.failurePercent, 'abort.failurePercent'), minTasks: minCount(a.minTasks, 'abort.minTasks') }
}

function maintenanceWindow (v: unknown): Record<string, unknown> {
  const w = record(v, 'maintenanceWindow', ['start', 'end', 'timeZone'])
  for (const k of ['start', 'end'] as const) {
    if (typeof w[k] !== 'string' || !HH_MM.test(w[k])) throw invalid(`maintenanceWindow.${k}`, 'must be a time "HH:MM" from 00:00 to 23:59')
  }
  if (w.start === w.end) throw invalid('maintenanceWindow.end', 'must differ from start (an end before the start crosses midnight)')
  let timeZone = 'UTC'
  if (w.timeZone != null) {
    if (typeof w.timeZone !== 'string' || w.timeZone === '') throw invalid('maintenanceWindow.timeZone', 'must be an IANA time zone name such as Europe/Paris')
    try {
      timeZone = zoneFormat(w.timeZone).resolvedOptions().timeZone
    } catch {
      throw invalid('maintenanceWindow.timeZone', `unknown time zone ${w.timeZone}; an IANA name such as Europe/Paris`)
    }
  }
  return { start: w.start, end: w.end, timeZone }
}

export interface RolloutFields {
  rollout?: unknown
  abort?: unknown
  maintenanceWindow?: unknown
}

/**
 * The checked fields as they go into the operation's parameters; absent or null fields add nothing.
 * @throws operation.rollout.invalid naming the field
 */
export function checkRollout (body: RolloutFields): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (body.rollout != null) out.rollout = rollout(body.rollout)
  if (body.abort != null) {
    if ((out.rollout as { abort?: unknown } | undefined)?.abort !== undefined) throw invalid('abort', 'give rollout.abort or the older abort, not both')
    out.abort = olderAbort(body.abort)
  }
  if (body.maintenanceWindow != null) out.maintenanceWindow = maintenanceWindow(body.maintenanceWindow)
  return out
}
