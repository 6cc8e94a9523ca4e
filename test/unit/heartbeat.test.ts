import { describe, expect, it } from 'vitest'
import { durationTextMs, heartbeatDelays } from '../../core/domain/heartbeat.js'

const S = 1000
const MIN = 60 * S
const HOUR = 60 * MIN
const hb = (state: string | null, period: string | null, slaWarning: string | null = null, slaError: string | null = null): Parameters<typeof heartbeatDelays>[0] =>
  ({ state, period, slaWarning, slaError })

describe('durationTextMs', () => {
  it('reads seconds without a unit, and ms, s, m, min, h, d; case and surrounding spaces do not matter', () => {
    expect(['120', '500ms', '90s', '5m', '5min', '1h', '2d', ' 1H ', '2 m', '7 MIN'].map(durationTextMs))
      .toEqual([120 * S, 500, 90 * S, 5 * MIN, 5 * MIN, HOUR, 48 * HOUR, HOUR, 2 * MIN, 7 * MIN])
  })

  it('null when absent, unreadable or zero', () => {
    for (const text of [null, undefined, '', 'soon', '1 week', '1.5h', '-5s', '1  h', '0', '0s', '1234567890123', '\t1h', '1h2m']) {
      expect({ text, ms: durationTextMs(text) }).toEqual({ text, ms: null })
    }
  })

  it('twelve digits of days stay a safe integer (never reached, but exact for the store)', () => {
    expect(durationTextMs('999999999999d')).toBe(Number.MAX_SAFE_INTEGER)
    expect(durationTextMs('999999999999')).toBe(999_999_999_999 * S)
  })
})

describe('heartbeatDelays', () => {
  it('an ON heartbeat: its period for both delays, its SLA for either', () => {
    expect(heartbeatDelays(hb('ON', '1h'), MIN)).toEqual({ warningMs: HOUR, errorMs: 2 * HOUR })
    expect(heartbeatDelays(hb('on', '1h', '2min', '2 m'), MIN)).toEqual({ warningMs: 2 * MIN, errorMs: 2 * MIN })
    expect(heartbeatDelays(hb('On', '120', '5min'), MIN)).toEqual({ warningMs: 5 * MIN, errorMs: 5 * MIN })
    expect(heartbeatDelays(hb('ON', null, null, '10min'), MIN)).toEqual({ warningMs: MIN, errorMs: 10 * MIN })
  })

  it('not ON, absent, or a period it cannot read: the default period', () => {
    expect(heartbeatDelays(hb('OFF', '1h', '2h', '3h'), MIN)).toEqual({ warningMs: MIN, errorMs: 2 * MIN })
    expect(heartbeatDelays(hb(null, null), MIN)).toEqual({ warningMs: MIN, errorMs: 2 * MIN })
    expect(heartbeatDelays(hb('ON', '1 week'), MIN)).toEqual({ warningMs: MIN, errorMs: 2 * MIN })
    expect(heartbeatDelays(hb('ON', '0'), MIN)).toEqual({ warningMs: MIN, errorMs: 2 * MIN })
  })
})
