// The pure rules of safe rollouts (docs/operations.md#safe-rollouts): wave sizes and gating
// (core/operations/rollout-waves.ts), the stop on a failed wave or the threshold (core/operations/rollout-abort.ts),
// and the maintenance window in a time zone, across midnight and daylight-saving changes
// (core/operations/rollout-window.ts).
import { describe, expect, it } from 'vitest'
import { effectiveWaves, openWave, waveFailed, waveSizes } from '../../../core/operations/rollout-waves.js'
import { abortReason } from '../../../core/operations/rollout-abort.js'
import { insideWindow, nextOpening } from '../../../core/operations/rollout-window.js'

const waves = { at: [1, 10, 50, 100], successPercent: 95 }

describe('waves', () => {
  it('are cumulative task counts rounded up, the last always every task; a list under 100 ends with 100', () => {
    expect(waveSizes(1000, [1, 10, 50, 100])).toEqual([10, 100, 500, 1000])
    expect(waveSizes(30, [1, 10, 50])).toEqual([1, 3, 15, 30])
    expect(effectiveWaves([5, 20])).toEqual([5, 20, 100])
    expect(effectiveWaves([5, 100])).toEqual([5, 100])
    // A small fleet: every wave holds one task at least.
    expect(waveSizes(3, [1, 10, 50, 100])).toEqual([1, 1, 2, 3])
  })

  it('open the next wave once waveSuccessPercent of the tasks so far succeeded, not before', () => {
    expect(openWave(1000, waves, 0)).toEqual({ index: 0, allowed: 10 })
    expect(openWave(1000, waves, 9)).toEqual({ index: 0, allowed: 10 }) // 9 < ceil(95 % of 10) = 10
    expect(openWave(1000, waves, 10)).toEqual({ index: 1, allowed: 100 })
    expect(openWave(1000, waves, 94)).toEqual({ index: 1, allowed: 100 })
    expect(openWave(1000, waves, 95)).toEqual({ index: 2, allowed: 500 })
    expect(openWave(1000, waves, 475)).toEqual({ index: 3, allowed: 1000 })
    expect(openWave(1000, { at: [10], successPercent: 50 }, 49)).toEqual({ index: 0, allowed: 100 })
    expect(openWave(1000, { at: [10], successPercent: 50 }, 50)).toEqual({ index: 1, allowed: 1000 })
  })

  it('a wave has failed once more of its tasks failed than its share allows; the last wave never', () => {
    // Wave 2 (100 tasks, 95 needed): 5 failures leave 95 possible, 6 do not.
    expect(waveFailed(1000, waves, 10, 5)).toBeUndefined()
    expect(waveFailed(1000, waves, 10, 6)).toEqual({ index: 1, size: 100, needed: 95 })
    expect(waveFailed(1000, waves, 475, 525)).toBeUndefined()
    expect(abortReason({ waves }, 1000, 10, 6)).toEqual({ reason: 'wave.failed', wave: 2, waveSuccessPercent: 95, size: 100, needed: 95, succeeded: 10, failed: 6 })
  })

  it('the failure threshold is judged first, once minTasks ended and one failed at least', () => {
    // Waves that let 2 of the first 10 fail, so that the threshold speaks first.
    const plan = { waves: { at: [1, 100], successPercent: 80 }, abort: { failurePercent: 20, minTasks: 10 } }
    expect(abortReason(plan, 1000, 8, 1)).toBeUndefined() // 9 ended, fewer than 10
    expect(abortReason(plan, 1000, 8, 2)).toEqual({ reason: 'failure.threshold', failurePercent: 20, minTasks: 10, ended: 10, failed: 2 })
    expect(abortReason({ abort: { failurePercent: 0, minTasks: 1 } }, 10, 5, 0)).toBeUndefined()
  })
})

const at = (iso: string): number => Date.parse(iso)

describe('maintenance window', () => {
  it('is start inclusive, end exclusive, in UTC by default', () => {
    const w = { start: '09:00', end: '17:30', timeZone: 'UTC' }
    expect(insideWindow(w, at('2026-01-05T08:59:59Z'))).toBe(false)
    expect(insideWindow(w, at('2026-01-05T09:00:00Z'))).toBe(true)
    expect(insideWindow(w, at('2026-01-05T17:29:59Z'))).toBe(true)
    expect(insideWindow(w, at('2026-01-05T17:30:00Z'))).toBe(false)
    expect(nextOpening(w, at('2026-01-05T17:30:00Z'))).toBe(at('2026-01-06T09:00:00Z'))
    expect(nextOpening(w, at('2026-01-05T06:12:34.567Z'))).toBe(at('2026-01-05T09:00:00Z'))
    expect(nextOpening(w, at('2026-01-05T10:00:00Z'))).toBe(at('2026-01-05T10:00:00Z'))
  })

  it('crosses midnight when end is before start', () => {
    const w = { start: '22:00', end: '05:00', timeZone: 'UTC' }
    expect(insideWindow(w, at('2026-01-05T23:59:00Z'))).toBe(true)
    expect(insideWindow(w, at('2026-01-06T04:59:00Z'))).toBe(true)
    expect(insideWindow(w, at('2026-01-06T05:00:00Z'))).toBe(false)
    expect(insideWindow(w, at('2026-01-06T21:59:00Z'))).toBe(false)
    expect(nextOpening(w, at('2026-01-06T05:00:00Z'))).toBe(at('2026-01-06T22:00:00Z'))
  })

  it('follows the time zone and its daylight-saving changes', () => {
    const w = { start: '02:30', end: '04:00', timeZone: 'Europe/Paris' }
    // Winter: Paris is UTC+1.
    expect(insideWindow(w, at('2026-01-05T01:30:00Z'))).toBe(true)
    expect(nextOpening(w, at('2026-01-05T12:00:00Z'))).toBe(at('2026-01-06T01:30:00Z'))
    // 29 March 2026: clocks go from 02:00 to 03:00 in Paris, 02:30 never happens: the window opens at 03:00 local.
    expect(nextOpening(w, at('2026-03-28T12:00:00Z'))).toBe(at('2026-03-29T01:00:00Z'))
    // Summer: Paris is UTC+2; the gap from a winter evening to a summer night crosses the change.
    expect(nextOpening(w, at('2026-03-29T12:00:00Z'))).toBe(at('2026-03-30T00:30:00Z'))
    const ny = { start: '01:00', end: '02:00', timeZone: 'America/New_York' }
    expect(nextOpening(ny, at('2026-07-01T12:00:00Z'))).toBe(at('2026-07-02T05:00:00Z'))
  })
})
