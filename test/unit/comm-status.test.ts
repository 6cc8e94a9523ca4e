import { describe, expect, it } from 'vitest'
import {
  BY_DELAYS_PASSED, commDelays, commStatusAt, delaysPassed, ERROR_AFTER_PERIODS, failedPollsStatus, NEVER_COMMUNICATED, ON_DEAD_NODE, ON_TRAFFIC,
  onFailure, sweptCommStatus, WARNING_AFTER_PERIODS
} from '../../core/domain/comm-status.js'
import { COMM_STATUSES } from '../../core/domain/system.js'

const HOUR = 3_600_000

describe('commDelays', () => {
  it('WARNING after one expected period, ERROR after two, without an SLA', () => {
    expect(WARNING_AFTER_PERIODS).toBe(1)
    expect(ERROR_AFTER_PERIODS).toBe(2)
    expect(commDelays(HOUR)).toEqual({ warningMs: HOUR, errorMs: 2 * HOUR })
  })

  it('an SLA replaces either delay, the other following the period', () => {
    expect(commDelays(HOUR, { warningMs: 10_000, errorMs: 20_000 })).toEqual({ warningMs: 10_000, errorMs: 20_000 })
    expect(commDelays(HOUR, { warningMs: 10_000 })).toEqual({ warningMs: 10_000, errorMs: 2 * HOUR })
    expect(commDelays(HOUR, { errorMs: 3 * HOUR })).toEqual({ warningMs: HOUR, errorMs: 3 * HOUR })
    expect(commDelays(HOUR, { warningMs: null, errorMs: null })).toEqual({ warningMs: HOUR, errorMs: 2 * HOUR })
  })

  it('ERROR never comes before WARNING', () => {
    expect(commDelays(HOUR, { warningMs: 5 * HOUR, errorMs: HOUR })).toEqual({ warningMs: 5 * HOUR, errorMs: 5 * HOUR })
    expect(commDelays(HOUR, { warningMs: 3 * HOUR })).toEqual({ warningMs: 3 * HOUR, errorMs: 3 * HOUR })
  })
})

describe('commStatusAt', () => {
  const delays = commDelays(HOUR)
  const last = 1_700_000_000_000

  it('UNDEFINED for a system that never communicated', () => {
    expect(NEVER_COMMUNICATED).toBe('UNDEFINED')
    expect(commStatusAt(null, last, delays)).toBe('UNDEFINED')
  })

  it('OK within the period, WARNING past it, ERROR past two; a delay reached exactly is not missed', () => {
    expect(ON_TRAFFIC).toBe('OK')
    expect(commStatusAt(last, last, delays)).toBe('OK')
    expect(commStatusAt(last, last + HOUR, delays)).toBe('OK')
    expect(commStatusAt(last, last + HOUR + 1, delays)).toBe('WARNING')
    expect(commStatusAt(last, last + 2 * HOUR, delays)).toBe('WARNING')
    expect(commStatusAt(last, last + 2 * HOUR + 1, delays)).toBe('ERROR')
  })

  it('a last communication in the future (a device clock ahead) is OK', () => {
    expect(commStatusAt(last + HOUR, last, delays)).toBe('OK')
  })

  it('with equal delays a system goes from OK to ERROR', () => {
    const equal = commDelays(HOUR, { warningMs: HOUR, errorMs: HOUR })
    expect(commStatusAt(last, last + HOUR, equal)).toBe('OK')
    expect(commStatusAt(last, last + HOUR + 1, equal)).toBe('ERROR')
  })
})

describe('delaysPassed and BY_DELAYS_PASSED (how the sweep\'s store finds its candidates)', () => {
  const delays = commDelays(HOUR)
  const last = 1_700_000_000_000

  it('counts the delays a silence has passed, and the status of each count is commStatusAt\'s', () => {
    expect(BY_DELAYS_PASSED).toEqual(['OK', 'WARNING', 'ERROR'])
    for (const silent of [-HOUR, 0, HOUR, HOUR + 1, 2 * HOUR, 2 * HOUR + 1, 100 * HOUR]) {
      const passed = delaysPassed(last, last + silent, delays)
      expect(passed).toBe(silent > 2 * HOUR ? 2 : silent > HOUR ? 1 : 0)
      expect(BY_DELAYS_PASSED[passed]).toBe(commStatusAt(last, last + silent, delays))
    }
  })
})

describe('sweptCommStatus', () => {
  const delays = commDelays(HOUR)
  const last = 1_700_000_000_000
  const state = (status: string, lastFailureDate: number | null = null): { status: string, lastCommDate: number, lastFailureDate: number | null } =>
    ({ status, lastCommDate: last, lastFailureDate })

  it('is the status of the silence when no failure is newer than the last communication', () => {
    expect(sweptCommStatus(state('OK'), last + HOUR + 1, delays)).toBe('WARNING')
    expect(sweptCommStatus(state('WARNING'), last + 2 * HOUR + 1, delays)).toBe('ERROR')
    expect(sweptCommStatus(state('ERROR'), last + HOUR, delays)).toBe('OK')
    // A failure before the last communication (or at it) is over: the silence lowers the status it set.
    expect(sweptCommStatus(state('ERROR', last - 1), last + HOUR, delays)).toBe('OK')
    expect(sweptCommStatus(state('ERROR', last), last + HOUR + 1, delays)).toBe('WARNING')
    expect(sweptCommStatus({ status: 'UNDEFINED', lastCommDate: null, lastFailureDate: null }, last, delays)).toBe('UNDEFINED')
    expect(sweptCommStatus(state('SOMETHING ELSE'), last, delays)).toBe('OK')
  })

  it('a failure newer than the last communication holds the status it set: never lowered, still raised', () => {
    expect(sweptCommStatus(state('ERROR', last + 1), last + HOUR, delays)).toBe('ERROR')
    expect(sweptCommStatus(state('ERROR', last + 1), last + HOUR + 1, delays)).toBe('ERROR')
    expect(sweptCommStatus(state('WARNING', last + 1), last + HOUR, delays)).toBe('WARNING')
    expect(sweptCommStatus(state('WARNING', last + 1), last + 2 * HOUR + 1, delays)).toBe('ERROR')
    expect(sweptCommStatus(state('OK', last + 1), last + HOUR + 1, delays)).toBe('WARNING')
  })
})

describe('failures seen at once: failed MSCI polls, a dead Sparkplug node', () => {
  it('polls failed in a row: WARNING from the first, ERROR from errorAfter', () => {
    expect([1, 2, 3, 4].map((n) => failedPollsStatus(n, 3))).toEqual(['WARNING', 'WARNING', 'ERROR', 'ERROR'])
    expect(failedPollsStatus(1, 1)).toBe('ERROR')
  })

  it('a dead node is ERROR', () => {
    expect(ON_DEAD_NODE).toBe('ERROR')
  })

  it('a failure keeps the worse of its status and the stored one: ERROR is never lowered by a WARNING', () => {
    const merged = (failed: 'WARNING' | 'ERROR'): Record<string, string> => Object.fromEntries(COMM_STATUSES.map((was) => [was, onFailure(was, failed)]))
    expect(merged('WARNING')).toEqual({ UNDEFINED: 'WARNING', OK: 'WARNING', WARNING: 'WARNING', ERROR: 'ERROR' })
    expect(merged('ERROR')).toEqual({ UNDEFINED: 'ERROR', OK: 'ERROR', WARNING: 'ERROR', ERROR: 'ERROR' })
    expect(onFailure('NOT A STATUS', 'WARNING')).toBe('WARNING')
  })
})
