// An operation's rollout in words (docs/operations.md#safe-rollouts): the open wave and how far it reaches, and why a
// rollout stopped. No DOM: unit-tested under Node (test/unit/console/operation-rollout.test.ts).
import { waveSizes } from '../../../../core/operations/rollout-waves.js'
import type { AbortedBy, Rollout } from './types.js'

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** Why the rollout stopped, in words: the threshold it reached, or the wave that could no longer succeed. */
export function abortText (a: AbortedBy): string {
  if (a.reason === 'wave.failed') {
    return `Stopped: wave ${a.wave} could no longer reach ${a.waveSuccessPercent} % of successes (${a.needed} of its ` +
      `${plural(a.size, 'system')}; ${a.succeeded} succeeded, ${a.failed} failed), so no later wave could start. The remaining tasks were cancelled.`
  }
  return `Stopped: ${a.failed} of the ${a.ended} ended tasks failed, reaching the limit of ${a.failurePercent} %. The remaining tasks were cancelled.`
}

/** "Wave 1 of 3: up to 10 % of the systems (5 of 50)". */
export function waveText (r: Rollout, total: number): string | null {
  if (r.waves === null || r.wave === null) return null
  const share = r.waves[r.wave - 1]
  const size = waveSizes(total, r.waves)[r.wave - 1]
  const reach = share === undefined || size === undefined ? '' : `: up to ${share} % of the systems (${size} of ${total})`
  return `Wave ${r.wave} of ${r.waves.length}${reach}`
}
