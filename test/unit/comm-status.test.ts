import { describe, expect, it } from 'vitest'
import { commDelays, commStatusAt, ERROR_AFTER_PERIODS, NEVER_COMMUNICATED, ON_TRAFFIC, WARNING_AFTER_PERIODS } from '../../core/domain/comm-status.js'

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
