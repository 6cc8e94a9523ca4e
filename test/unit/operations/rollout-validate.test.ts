// The safe-rollout fields of a request (docs/operations.md#safe-rollouts; core/operations/rollout-validate.ts):
// every rule answers operation.rollout.invalid naming the field; valid fields go into the parameters with their
// defaults (waveSuccessPercent 95, timeZone UTC, the zone's canonical name).
import { describe, expect, it } from 'vitest'
import { isFleetError } from '../../../core/errors.js'
import { checkRollout, type RolloutFields } from '../../../core/operations/rollout-validate.js'

function refusal (body: RolloutFields): { code: string, field: string | undefined } {
  try {
    checkRollout(body)
  } catch (err) {
    if (!isFleetError(err)) throw err
    return { code: err.code, field: err.params[0] }
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`)
}

describe('checkRollout', () => {
  it.each([
    [{ rollout: 'fast' }, 'rollout'],
    [{ rollout: {} }, 'rollout'],
    [{ rollout: { maxPerMinute: null } }, 'rollout'],
    [{ rollout: { maxPerMinutes: 5 } }, 'rollout.maxPerMinutes'],
    [{ rollout: { maxPerMinute: 0 } }, 'rollout.maxPerMinute'],
    [{ rollout: { maxPerMinute: 2.5 } }, 'rollout.maxPerMinute'],
    [{ rollout: { maxPerMinute: '5' } }, 'rollout.maxPerMinute'],
    [{ rollout: { maxPerMinute: 1_000_001 } }, 'rollout.maxPerMinute'],
    [{ rollout: { waves: [] } }, 'rollout.waves'],
    [{ rollout: { waves: 10 } }, 'rollout.waves'],
    [{ rollout: { waves: Array.from({ length: 101 }, (_, i) => 1 + i * 0.5) } }, 'rollout.waves'],
    [{ rollout: { waves: [0.5, 10] } }, 'rollout.waves[0]'],
    [{ rollout: { waves: [1, 10, 10] } }, 'rollout.waves[2]'],
    [{ rollout: { waves: [1, 50, 20] } }, 'rollout.waves[2]'],
    [{ rollout: { waves: [1, 101] } }, 'rollout.waves[1]'],
    [{ rollout: { waves: [1, '10'] } }, 'rollout.waves[1]'],
    [{ rollout: { waveSuccessPercent: 90, maxPerMinute: 5 } }, 'rollout.waveSuccessPercent'],
    [{ rollout: { waves: [10], waveSuccessPercent: 0 } }, 'rollout.waveSuccessPercent'],
    [{ rollout: { waves: [10], waveSuccessPercent: 100.5 } }, 'rollout.waveSuccessPercent'],
    [{ rollout: { abort: { failurePercent: 10 } } }, 'rollout.abort.minFinished'],
    [{ rollout: { abort: { failurePercent: 101, minFinished: 5 } } }, 'rollout.abort.failurePercent'],
    [{ rollout: { abort: { failurePercent: 10, minTasks: 5 } } }, 'rollout.abort.minTasks'],
    [{ rollout: { abort: [10, 5] } }, 'rollout.abort'],
    [{ abort: { failurePercent: -1, minTasks: 1 } }, 'abort.failurePercent'],
    [{ abort: { failurePercent: 10, minTasks: 0 } }, 'abort.minTasks'],
    [{ rollout: { abort: { failurePercent: 10, minFinished: 5 } }, abort: { failurePercent: 10, minTasks: 5 } }, 'abort'],
    [{ maintenanceWindow: 'nights' }, 'maintenanceWindow'],
    [{ maintenanceWindow: { start: '22:00' } }, 'maintenanceWindow.end'],
    [{ maintenanceWindow: { start: '24:00', end: '05:00' } }, 'maintenanceWindow.start'],
    [{ maintenanceWindow: { start: '9:00', end: '17:00' } }, 'maintenanceWindow.start'],
    [{ maintenanceWindow: { start: '09:00', end: '17:60' } }, 'maintenanceWindow.end'],
    [{ maintenanceWindow: { start: '09:00', end: '09:00' } }, 'maintenanceWindow.end'],
    [{ maintenanceWindow: { start: '09:00', end: '17:00', timeZone: 'Mars/Olympus' } }, 'maintenanceWindow.timeZone'],
    [{ maintenanceWindow: { start: '09:00', end: '17:00', timeZone: 2 } }, 'maintenanceWindow.timeZone'],
    [{ maintenanceWindow: { start: '09:00', end: '17:00', zone: 'UTC' } }, 'maintenanceWindow.zone']
  ])('refuses %j naming %s', (body, field) => {
    expect(refusal(body as RolloutFields)).toEqual({ code: 'operation.rollout.invalid', field })
  })

  it('keeps valid fields with their defaults; null or absent fields add nothing', () => {
    expect(checkRollout({})).toEqual({})
    expect(checkRollout({ rollout: null, abort: null, maintenanceWindow: null })).toEqual({})
    expect(checkRollout({
      rollout: { maxPerMinute: 500, waves: [1, 10, 50], abort: { failurePercent: 20, minFinished: 50 } },
      maintenanceWindow: { start: '22:00', end: '05:00', timeZone: 'europe/paris' }
    })).toEqual({
      rollout: { maxPerMinute: 500, waves: [1, 10, 50], waveSuccessPercent: 95, abort: { failurePercent: 20, minFinished: 50 } },
      maintenanceWindow: { start: '22:00', end: '05:00', timeZone: 'Europe/Paris' }
    })
    expect(checkRollout({ rollout: { waves: [0.5 + 0.5, 100], waveSuccessPercent: 99.5 }, abort: { failurePercent: 0, minTasks: 1 }, maintenanceWindow: { start: '00:00', end: '23:59' } }))
      .toEqual({ rollout: { waves: [1, 100], waveSuccessPercent: 99.5 }, abort: { failurePercent: 0, minTasks: 1 }, maintenanceWindow: { start: '00:00', end: '23:59', timeZone: 'UTC' } })
  })
})
