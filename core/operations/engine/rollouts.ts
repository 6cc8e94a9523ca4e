// The engine's side of safe rollouts (docs/operations.md#safe-rollouts): a rollout stopped by its threshold or a
// failed wave, the run that releases a wave once its predecessors' successes open it, and a user's pause and
// resume. How many tasks may leave is the chunk runner's gate (../rollout-gate.ts).
import { retryWhileUnavailable } from '../../store-errors.js'
import type { Operation } from '../../domain/operation.js'
import type { RolloutPlan } from '../rollout.js'
import { abortOnFailures } from '../rollout-abort.js'
import { openWave, type Waves } from '../rollout-waves.js'
import { STORE_RETRY, type EngineContext } from './context.js'

export interface EngineRollouts {
  /**
   * Tasks of a rollout ended (a chunk, device answers): stops it when its plan says so (../rollout-abort.ts; its
   * state changes when its last task ends), else, when the successes opened its next wave, queues the run that
   * releases it (none is waiting: the run that found the wave full queued nothing). `wake: false`: the caller is
   * that run, and goes on by itself.
   */
  tasksEnded: (operationUid: string, plan: RolloutPlan, opts?: { wake: boolean }) => Promise<void>
  /** Pauses (true) or resumes an operation not FINISHED; a resume queues the run that releases its tasks again. */
  pause: (op: Operation, paused: boolean) => Promise<void>
}

/**
 * Queues the run of the rollout's open wave when it has room (its tasks have not all left) and nothing else will
 * release them: not paused, no run waiting for a time (rolloutNextAt), tasks still PENDING. The id is the wave's, so
 * the answers that open it queue one run between them.
 */
async function wakeNextWave ({ repos, queue }: EngineContext, operationUid: string, waves: Waves): Promise<void> {
  const op = await repos.operations.find(operationUid)
  if (op === undefined || op.state !== 'IN_PROGRESS' || op.cancelDate !== null) return
  if ((op.pausedAt ?? null) !== null || (op.rolloutNextAt ?? null) !== null) return
  const counts = (await repos.operations.counts([operationUid])).get(operationUid) ?? {}
  if ((counts.PENDING ?? 0) === 0) return
  const sent = (await repos.operations.started([operationUid])).get(operationUid) ?? 0
  const { index, allowed } = openWave(op.total, waves, counts.SUCCESS ?? 0)
  if (sent < allowed) await queue.enqueue('operation.run', { operationUid }, { jobId: `run:${operationUid}:wave:${index}` })
}

export function createRollouts (ctx: EngineContext): EngineRollouts {
  const { repos, inTransaction, queue, clock, log, changed } = ctx

  async function tasksEnded (operationUid: string, plan: RolloutPlan, { wake } = { wake: true }): Promise<void> {
    if (plan.abort === undefined && plan.waves === undefined) return
    const abortedBy = await retryWhileUnavailable(async () => await inTransaction(async (tx) => await abortOnFailures(tx, operationUid, plan, clock.now())), STORE_RETRY)
    if (abortedBy !== undefined) {
      changed(operationUid)
      log.info({ operation: operationUid, ...abortedBy }, 'operation stopped: its rollout\'s threshold was reached')
      return
    }
    if (wake && plan.waves !== undefined) await wakeNextWave(ctx, operationUid, plan.waves)
  }

  async function pause (op: Operation, paused: boolean): Promise<void> {
    const now = clock.now()
    if (!(await repos.operations.setPaused(op.uid, paused ? now : null))) return
    changed(op.uid)
    log.info({ operation: op.uid }, paused ? 'operation paused' : 'operation resumed')
    if (!paused && op.state === 'IN_PROGRESS') await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:resume:${now}` })
  }

  return { tasksEnded, pause }
}
