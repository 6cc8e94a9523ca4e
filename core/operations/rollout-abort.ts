// When a safe rollout stops by itself (docs/operations.md#safe-rollouts): its failure threshold is reached
// (rollout.abort, or the older top-level abort), or a wave can no longer reach its waveSuccessPercent (no later
// wave could ever start: the devices left would wait for nothing until the timeout). Judged after each chunk and
// each batch of device answers, from the store with the operation's row locked, so a restart or a second worker
// judges the same counts and stops it once.
import type { AbortedBy } from '../domain/operation.js'
import type { Repositories } from '../ports/repositories.js'
import { thresholdReached, type RolloutPlan } from './rollout.js'
import { waveFailed } from './rollout-waves.js'

/** The error of the tasks an abort cancels (the task JSON's error.code). */
export const ABORTED_CODE = 'operation.aborted.threshold'

/** Why the rollout must stop on these counts, or undefined. */
export function abortReason (plan: RolloutPlan, total: number, succeeded: number, failed: number): AbortedBy | undefined {
  const ended = succeeded + failed
  if (plan.abort !== undefined && thresholdReached(plan.abort, ended, failed)) {
    return { reason: 'failure.threshold', failurePercent: plan.abort.failurePercent, minTasks: plan.abort.minTasks, ended, failed }
  }
  if (plan.waves === undefined) return undefined
  const w = waveFailed(total, plan.waves, succeeded, failed)
  if (w === undefined) return undefined
  return { reason: 'wave.failed', wave: w.index + 1, waveSuccessPercent: plan.waves.successPercent, size: w.size, needed: w.needed, succeeded, failed }
}

/**
 * Stops the operation when its plan says so: records why (its cancelDate too), and cancels the remaining tasks as
 * a cancel does (PENDING → CANCELLED, a task whose device task was not delivered withdrawn and CANCELLED, a
 * delivered one BEING_CANCELLED until its device answers), the CANCELLED ones with operation.aborted.threshold. Not
 * once the operation is FINISHED, cancelled or stopped already. Answers why it stopped it, or undefined.
 */
export async function abortOnFailures (tx: Repositories, operationUid: string, plan: RolloutPlan, now: number): Promise<AbortedBy | undefined> {
  const op = await tx.operations.lock(operationUid)
  if (op === undefined || op.state === 'FINISHED' || op.cancelDate !== null || (op.abortedBy ?? null) !== null) return undefined
  const counts = (await tx.operations.counts([operationUid])).get(operationUid) ?? {}
  const abortedBy = abortReason(plan, op.total, counts.SUCCESS ?? 0, counts.FAILURE ?? 0)
  if (abortedBy === undefined) return undefined
  if (!(await tx.operations.setAborted(operationUid, abortedBy, now))) return undefined
  await tx.operations.cancelTasks(operationUid, now, { code: ABORTED_CODE, message: `${ABORTED_CODE} ${abortedBy.reason}` })
  if ((op.rolloutNextAt ?? null) !== null) await tx.operations.setRolloutNextAt(operationUid, null)
  return abortedBy
}
