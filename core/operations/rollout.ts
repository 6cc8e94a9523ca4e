// Safe rollouts (docs/operations.md#bulk-operations). Device operations may carry two fields no AirVantage
// client sends, kept in the operation's parameters (core/operations/device/rollout-params.ts): `rollout:
// {maxPerMinute}` releases the tasks at most that fast, `abort: {failurePercent, minTasks}` cancels the remaining
// tasks once enough of the ended ones failed. Without them the engine runs as before.
//
// Both are judged from the store, under a lock on the operation's row, never from counters in memory: the budget
// and the threshold hold across restarts and between the processes of a cluster.
import type { AbortedBy, Operation } from '../domain/operation.js'
import type { Repositories } from '../ports/repositories.js'

export interface RolloutPolicy { maxPerMinute: number }
export interface AbortPolicy { failurePercent: number, minTasks: number }

/** The window of `maxPerMinute`: a task counts against the budget for this long after it started. */
export const ROLLOUT_WINDOW_MS = 60_000

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined

/** The operation's rollout, when its parameters hold a valid one (the request's schema checked it). */
export function rolloutOf (op: Pick<Operation, 'parameters'>): RolloutPolicy | undefined {
  const max = record(op.parameters.rollout)?.maxPerMinute
  return typeof max === 'number' && Number.isInteger(max) && max >= 1 ? { maxPerMinute: max } : undefined
}

/** The operation's failure threshold, when its parameters hold a valid one. */
export function abortOf (op: Pick<Operation, 'parameters'>): AbortPolicy | undefined {
  const a = record(op.parameters.abort)
  const { failurePercent, minTasks } = a ?? {}
  if (typeof failurePercent !== 'number' || failurePercent < 0 || failurePercent > 100) return undefined
  if (typeof minTasks !== 'number' || !Number.isInteger(minTasks) || minTasks < 1) return undefined
  return { failurePercent, minTasks }
}

/**
 * How many more tasks the operation may start now; when none, `nextAt` is when its oldest task of the window leaves
 * it. Locks the operation's row for the rest of the transaction, so that two workers do not spend the same budget:
 * the second one counts the tasks the first one started once it has committed them.
 */
export async function releaseBudget (tx: Repositories, operationUid: string, policy: RolloutPolicy, now: number): Promise<{ left: number, nextAt?: number }> {
  await tx.operations.lock(operationUid)
  const started = await tx.operations.startedSince(operationUid, now - ROLLOUT_WINDOW_MS)
  const left = policy.maxPerMinute - started.count
  if (left > 0) return { left }
  return { left: 0, nextAt: (started.oldest ?? now) + ROLLOUT_WINDOW_MS }
}

/**
 * Whether the threshold is reached: at least minTasks ended and the share of FAILURE among them at least
 * failurePercent. It takes one failure at least: `failurePercent: 0` stops at the first failure, not at minTasks.
 */
export function thresholdReached (policy: AbortPolicy, ended: number, failed: number): boolean {
  return ended >= policy.minTasks && failed > 0 && failed * 100 >= policy.failurePercent * ended
}

/**
 * Stops the operation when its threshold is reached: records why, and cancels the remaining tasks as a cancel does
 * (PENDING → CANCELLED, a task whose device task was not delivered withdrawn and CANCELLED, a delivered one
 * BEING_CANCELLED until its device answers). Not once the operation is FINISHED, cancelled or stopped already.
 * Answers why it stopped it, or undefined.
 */
export async function abortOnFailures (tx: Repositories, operationUid: string, policy: AbortPolicy, now: number): Promise<AbortedBy | undefined> {
  const op = await tx.operations.lock(operationUid)
  if (op === undefined || op.state === 'FINISHED' || op.cancelDate !== null || (op.abortedBy ?? null) !== null) return undefined
  const counts = (await tx.operations.counts([operationUid])).get(operationUid) ?? {}
  const failed = counts.FAILURE ?? 0
  const ended = (counts.SUCCESS ?? 0) + failed
  if (!thresholdReached(policy, ended, failed)) return undefined
  const abortedBy: AbortedBy = { reason: 'failure.threshold', failurePercent: policy.failurePercent, minTasks: policy.minTasks, ended, failed }
  if (!(await tx.operations.setAborted(operationUid, abortedBy, now))) return undefined
  await tx.operations.cancelTasks(operationUid, now)
  return abortedBy
}
