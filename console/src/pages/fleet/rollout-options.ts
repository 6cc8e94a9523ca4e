// The safe-rollout fields a device operation of the bulk menu takes (docs/operations.md#safe-rollouts): `rollout`
// (pace, waves, wave success, abort) and `maintenanceWindow`, built from what the operator typed. Fields left blank
// are not sent, so that an operation without them runs as before. The service checks the values and names a wrong
// one (operation.rollout.invalid); here only what cannot be sent at all is refused: text that is not a number, half
// an abort rule or half a window. No DOM here (tested in test/unit/console/rollout-options.test.ts).

/** What the rollout fields of a dialog hold, as typed. */
export interface RolloutInput {
  maxPerMinute: string
  /** Cumulative percents, separated by commas or spaces ("1, 10, 50, 100"). */
  waves: string
  waveSuccessPercent: string
  abortFailurePercent: string
  abortMinFinished: string
  /** "HH:MM" (an <input type="time">), or blank. */
  windowStart: string
  windowEnd: string
  timeZone: string
}

export interface RolloutFields {
  rollout?: Record<string, unknown>
  maintenanceWindow?: { start: string, end: string, timeZone?: string }
}

export const EMPTY_ROLLOUT: RolloutInput = {
  maxPerMinute: '', waves: '', waveSuccessPercent: '', abortFailurePercent: '', abortMinFinished: '', windowStart: '', windowEnd: '', timeZone: ''
}

class RolloutInputError extends Error {}

function numberOf (text: string, what: string): number | undefined {
  const t = text.trim()
  if (t === '') return undefined
  const n = Number(t.replace(/\s*%$/, ''))
  if (!Number.isFinite(n)) throw new RolloutInputError(`${what} must be a number.`)
  return n
}

function wavesOf (text: string): number[] | undefined {
  const parts = text.split(/[\s,;]+/).filter((p) => p !== '')
  if (parts.length === 0) return undefined
  return parts.map((p) => numberOf(p, 'Each wave') as number)
}

function rolloutOf (i: RolloutInput): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  const maxPerMinute = numberOf(i.maxPerMinute, 'At most per minute')
  if (maxPerMinute !== undefined) out.maxPerMinute = maxPerMinute
  const waves = wavesOf(i.waves)
  if (waves !== undefined) out.waves = waves
  const success = numberOf(i.waveSuccessPercent, 'The wave success')
  if (success !== undefined) {
    if (waves === undefined) throw new RolloutInputError('A wave success needs waves.')
    out.waveSuccessPercent = success
  }
  const failurePercent = numberOf(i.abortFailurePercent, 'The abort failure percent')
  const minFinished = numberOf(i.abortMinFinished, 'The abort minimum of finished tasks')
  if ((failurePercent === undefined) !== (minFinished === undefined)) {
    throw new RolloutInputError('To stop on failures, give both the failure percent and the minimum of finished tasks.')
  }
  if (failurePercent !== undefined) out.abort = { failurePercent, minFinished }
  return Object.keys(out).length === 0 ? undefined : out
}

function windowOf (i: RolloutInput): RolloutFields['maintenanceWindow'] {
  const start = i.windowStart.trim()
  const end = i.windowEnd.trim()
  if (start === '' && end === '') return undefined
  if (start === '' || end === '') throw new RolloutInputError('A maintenance window needs both its start and its end.')
  const timeZone = i.timeZone.trim()
  return timeZone === '' ? { start, end } : { start, end, timeZone }
}

/** The fields to add to the operation's body, or `error` in words when they cannot be sent. */
export function rolloutFields (i: RolloutInput): { fields: RolloutFields, error: string | null } {
  try {
    const fields: RolloutFields = {}
    const rollout = rolloutOf(i)
    if (rollout !== undefined) fields.rollout = rollout
    const window = windowOf(i)
    if (window !== undefined) fields.maintenanceWindow = window
    return { fields, error: null }
  } catch (err) {
    if (err instanceof RolloutInputError) return { fields: {}, error: err.message }
    throw err
  }
}
