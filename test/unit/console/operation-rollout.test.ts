// console/src/pages/operations/rollout-text.ts and lib/errors.ts: an operation's rollout in words on its page, the open
// wave and how far it reaches, why a rollout stopped, and the tasks an abort cancelled (docs/operations.md#safe-rollouts).
import { describe, expect, it } from 'vitest'
import { abortText, waveText } from '../../../console/src/pages/operations/rollout-text.js'
import type { Rollout } from '../../../console/src/pages/operations/types.js'
import { taskErrorText } from '../../../console/src/lib/errors.js'

const rollout = (r: Partial<Rollout>): Rollout => ({
  maxPerMinute: null, waves: null, waveSuccessPercent: null, abort: null, maintenanceWindow: null, wave: null, sent: 0, nextAt: null, paused: false, ...r
})

describe('an operation\'s rollout in words', () => {
  it('names the open wave and how many systems it reaches, rounded up as the service rounds', () => {
    expect(waveText(rollout({ waves: [1, 10, 100], wave: 1 }), 50)).toBe('Wave 1 of 3: up to 1 % of the systems (1 of 50)')
    expect(waveText(rollout({ waves: [1, 10, 100], wave: 2 }), 50)).toBe('Wave 2 of 3: up to 10 % of the systems (5 of 50)')
    expect(waveText(rollout({ waves: [50, 100], wave: 2 }), 3)).toBe('Wave 2 of 2: up to 100 % of the systems (3 of 3)')
    expect(waveText(rollout({ maxPerMinute: 10 }), 3)).toBeNull()
  })

  it('says why the rollout stopped: its failure threshold, or a wave that could not succeed', () => {
    expect(abortText({ reason: 'failure.threshold', failurePercent: 20, minTasks: 5, ended: 5, failed: 2 }))
      .toBe('Stopped: 2 of the 5 ended tasks failed, reaching the limit of 20 %. The remaining tasks were cancelled.')
    expect(abortText({ reason: 'wave.failed', wave: 1, waveSuccessPercent: 95, size: 1, needed: 1, succeeded: 0, failed: 1 }))
      .toBe('Stopped: wave 1 could no longer reach 95 % of successes (1 of its 1 system; 0 succeeded, 1 failed), so no later wave could start. The remaining tasks were cancelled.')
  })

  it('gives the tasks an abort cancelled the reason in words', () => {
    expect(taskErrorText('operation.aborted.threshold', 'operation.aborted.threshold wave.failed'))
      .toBe('The rollout was stopped before this system\'s turn: a wave could no longer reach its share of successes.')
    expect(taskErrorText('operation.aborted.threshold', 'operation.aborted.threshold')).toBe('The rollout was stopped before this system\'s turn.')
  })
})
