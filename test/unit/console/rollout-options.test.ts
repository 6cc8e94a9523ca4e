// console/src/pages/fleet/rollout-options.ts: the rollout fields of the bulk dialogs become the body's `rollout` and
// `maintenanceWindow` (docs/operations.md#safe-rollouts), blank ones left out, and what cannot be sent is said in words.
import { describe, expect, it } from 'vitest'
import { EMPTY_ROLLOUT, rolloutFields } from '../../../console/src/pages/fleet/rollout-options.js'

describe('rollout options of the bulk dialogs', () => {
  it('sends nothing when every field is blank, so the operation runs as before', () => {
    expect(rolloutFields(EMPTY_ROLLOUT)).toEqual({ fields: {}, error: null })
    expect(rolloutFields({ ...EMPTY_ROLLOUT, waves: ' , ', timeZone: 'Europe/Paris' })).toEqual({ fields: {}, error: null })
  })

  it('builds the rollout and the window from what was typed', () => {
    const typed = {
      maxPerMinute: '500',
      waves: '1, 10 50%,100',
      waveSuccessPercent: '90',
      abortFailurePercent: '20',
      abortMinFinished: '50',
      windowStart: '22:00',
      windowEnd: '04:00',
      timeZone: 'Europe/Paris'
    }
    expect(rolloutFields(typed)).toEqual({
      fields: {
        rollout: { maxPerMinute: 500, waves: [1, 10, 50, 100], waveSuccessPercent: 90, abort: { failurePercent: 20, minFinished: 50 } },
        maintenanceWindow: { start: '22:00', end: '04:00', timeZone: 'Europe/Paris' }
      },
      error: null
    })
    expect(rolloutFields({ ...EMPTY_ROLLOUT, windowStart: '01:00', windowEnd: '02:00' }).fields).toEqual({ maintenanceWindow: { start: '01:00', end: '02:00' } })
  })

  it('leaves the ranges to the service, and refuses what cannot be sent at all', () => {
    // The service names a value out of range (operation.rollout.invalid); the console sends it as typed.
    expect(rolloutFields({ ...EMPTY_ROLLOUT, waves: '50, 10' }).fields).toEqual({ rollout: { waves: [50, 10] } })
    expect(rolloutFields({ ...EMPTY_ROLLOUT, maxPerMinute: 'fast' }).error).toBe('At most per minute must be a number.')
    expect(rolloutFields({ ...EMPTY_ROLLOUT, waves: '10, half' }).error).toBe('Each wave must be a number.')
    expect(rolloutFields({ ...EMPTY_ROLLOUT, waveSuccessPercent: '90' }).error).toBe('A wave success needs waves.')
    expect(rolloutFields({ ...EMPTY_ROLLOUT, abortFailurePercent: '20' }).error).toMatch(/both the failure percent and the minimum/)
    expect(rolloutFields({ ...EMPTY_ROLLOUT, windowEnd: '04:00' }).error).toBe('A maintenance window needs both its start and its end.')
  })
})
