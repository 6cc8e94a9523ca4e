// The operation JSON's `rollout` (docs/operations.md#safe-rollouts): the policy the engine follows and where it
// stands, read from the store (the task counts, the tasks started, the row's pause and next time). Null for an
// operation with no rollout fields that is not paused.
import type { Operation, TaskState } from '../domain/operation.js'
import { planOf } from './rollout.js'
import { effectiveWaves, openWave } from './rollout-waves.js'

export function rolloutView (op: Operation, counts: Partial<Record<TaskState, number>>, sent: number): Record<string, unknown> | null {
  const plan = planOf(op)
  const paused = (op.pausedAt ?? null) !== null
  if (plan === undefined && !paused) return null
  const waves = plan?.waves
  return {
    maxPerMinute: plan?.maxPerMinute ?? null,
    // With the implicit last wave of 100 % when the request's list ended lower: `wave` counts it.
    waves: waves === undefined ? null : effectiveWaves(waves.at),
    waveSuccessPercent: waves?.successPercent ?? null,
    abort: plan?.abort === undefined ? null : { failurePercent: plan.abort.failurePercent, minFinished: plan.abort.minTasks },
    maintenanceWindow: plan?.window ?? null,
    wave: waves === undefined ? null : openWave(op.total, waves, counts.SUCCESS ?? 0).index + 1,
    sent,
    nextAt: op.rolloutNextAt ?? null,
    paused
  }
}
