// Safe rollouts (docs/operations.md#safe-rollouts). A device operation may carry, in its parameters, a `rollout`
// (maxPerMinute, waves, waveSuccessPercent, abort), the older top-level `abort` and a `maintenanceWindow`, checked
// when it was created (./rollout-validate.ts). This file reads them back as the plan the engine follows:
// ./rollout-gate.ts decides how many tasks may leave now, ./rollout-abort.ts when the rollout stops,
// ./rollout-view.ts what the operation JSON shows. Without them the engine runs as before.
//
// Everything is judged from the store under a lock on the operation's row, never from counters in memory: the
// budget, the waves and the threshold hold across restarts and between the processes of a cluster.
import type { Operation } from '../domain/operation.js'
import { checkRollout } from './rollout-validate.js'
import type { Waves } from './rollout-waves.js'
import type { MaintenanceWindow } from './rollout-window.js'

/** The failure threshold: `minTasks` is the older form's name of rollout.abort.minFinished. */
export interface AbortPolicy { failurePercent: number, minTasks: number }

export interface RolloutPlan {
  maxPerMinute?: number
  waves?: Waves
  abort?: AbortPolicy
  window?: MaintenanceWindow
}

/** The window of `maxPerMinute`: a task counts against the budget for this long after it started. */
export const ROLLOUT_WINDOW_MS = 60_000

interface Checked {
  rollout?: { maxPerMinute?: number, waves?: number[], waveSuccessPercent?: number, abort?: { failurePercent: number, minFinished: number } }
  abort?: AbortPolicy
  maintenanceWindow?: MaintenanceWindow
}

/**
 * The operation's plan, when its parameters hold one (checked again: they were when it was created, and an
 * operation stored before a field existed simply has none). Undefined without any.
 */
export function planOf (op: Pick<Operation, 'parameters'>): RolloutPlan | undefined {
  let c: Checked
  try {
    const { rollout, abort, maintenanceWindow } = op.parameters
    c = checkRollout({ rollout, abort, maintenanceWindow }) as Checked
  } catch {
    return undefined
  }
  const r = c.rollout
  const abort = r?.abort === undefined ? c.abort : { failurePercent: r.abort.failurePercent, minTasks: r.abort.minFinished }
  const plan: RolloutPlan = {
    ...(r?.maxPerMinute === undefined ? {} : { maxPerMinute: r.maxPerMinute }),
    ...(r?.waves === undefined ? {} : { waves: { at: r.waves, successPercent: r.waveSuccessPercent ?? 100 } }),
    ...(abort === undefined ? {} : { abort }),
    ...(c.maintenanceWindow === undefined ? {} : { window: c.maintenanceWindow })
  }
  return Object.keys(plan).length === 0 ? undefined : plan
}

/**
 * Whether the threshold is reached: at least minTasks ended and the share of FAILURE among them at least
 * failurePercent. It takes one failure at least: `failurePercent: 0` stops at the first failure, not at minTasks.
 */
export function thresholdReached (policy: AbortPolicy, ended: number, failed: number): boolean {
  return ended >= policy.minTasks && failed > 0 && failed * 100 >= policy.failurePercent * ended
}
