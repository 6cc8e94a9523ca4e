// The engine's chunk runner: the operation.run job takes chunks of PENDING tasks, each in its own transaction, and
// runs them through the operation type's handler; their effects and their new states commit together.
import { FleetError, isFleetError } from '../../errors.js'
import { retryWhileUnavailable } from '../../store-errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Operation, Task } from '../../domain/operation.js'
import type { TaskResult } from '../../ports/operations.js'
import type { DispatchRequest } from '../../ports/devices.js'
import { planOf, type RolloutPlan } from '../rollout.js'
import { releaseGate } from '../rollout-gate.js'
import type { OperationHandler } from '../handler.js'
import { STORE_RETRY, type EngineContext } from './context.js'
import type { EngineLifecycle } from './lifecycle.js'
import type { EngineRollouts } from './rollouts.js'
import type { EngineSweeps } from './sweeps.js'
import { failure, succeeded } from './outcomes.js'

/**
 * Lets pending I/O (HTTP requests, MQTT packets) run before the next chunk. On PGlite every statement runs
 * synchronously in this thread and its promise settles as a microtask, so a chain of chunks never reaches the
 * event loop's I/O phase by itself: without this, a 3,000-task operation kept the API from answering until it ended.
 */
const yieldToIo = async (): Promise<void> => { await new Promise<void>((resolve) => { setImmediate(resolve) }) }

async function runTask (tx: Repositories, op: Operation, task: Task, handler: OperationHandler, now: number, deliveries: DispatchRequest[]): Promise<TaskResult> {
  try {
    const outcome = await tx.savepoint.run(async () => await handler.run({ tx, op, task, now }))
    return succeeded(task, outcome, deliveries)
  } catch (err) {
    if (!isFleetError(err)) throw err
    await handler.failed?.({ tx, op, task, now })
    return failure(task, err)
  }
}

/** The chunk through handler.runChunk when it has one (falling back to task by task on a FleetError), else run(). */
async function runTasks (tx: Repositories, op: Operation, tasks: Task[], handler: OperationHandler, now: number, deliveries: DispatchRequest[]): Promise<TaskResult[]> {
  const { runChunk } = handler
  if (runChunk !== undefined && tasks.length > 0) {
    const chunkDeliveries: DispatchRequest[] = []
    try {
      const outcomes = await tx.savepoint.run(async () => await runChunk.call(handler, { tx, op, tasks, now }))
      if (outcomes.length !== tasks.length) throw new Error(`${op.type}: runChunk answered ${outcomes.length} outcomes for ${tasks.length} tasks`)
      const results: TaskResult[] = []
      for (const [i, task] of tasks.entries()) {
        const o = outcomes[i]
        if (o === undefined || isFleetError(o)) {
          await handler.failed?.({ tx, op, task, now })
          results.push(failure(task, o ?? new FleetError('internal.error', ['no outcome'])))
        } else results.push(succeeded(task, o, chunkDeliveries))
      }
      deliveries.push(...chunkDeliveries)
      return results
    } catch (err) {
      if (!isFleetError(err)) throw err
    }
  }
  const results: TaskResult[] = []
  for (const task of tasks) results.push(await runTask(tx, op, task, handler, now, deliveries))
  return results
}

export function createChunkRunner (ctx: EngineContext, lifecycle: EngineLifecycle, sweeps: EngineSweeps, rollouts: EngineRollouts): { run: (operationUid: string) => Promise<void> } {
  const { deps, repos, inTransaction, queue, clock, changed, countTasks, deliver } = ctx
  const { finishIfDone } = lifecycle
  const { tasksEnded } = rollouts
  const chunkSize = deps.chunkSize ?? 100
  const sliceMs = deps.sliceMs ?? 1000

  /**
   * Runs chunks of PENDING tasks, each in its own transaction, for up to sliceMs; then queues the next run (so a
   * huge operation shares the workers with the others), or finishes the operation once none is left. Each chunk
   * claims no more than the gate lets leave (../rollout-gate.ts: a pause, a maintenance window, a wave, a
   * maxPerMinute budget); a rollout's stop (../rollout-abort.ts) is judged after each chunk, before the chunk's
   * device tasks leave.
   */
  async function run (operationUid: string): Promise<void> {
    // A chunk's device tasks leave while the next chunk is written (one delivery at a time, in chunk order): a
    // delivery is a statement and a write to each device, and waiting for it held the next chunk back.
    const delivering = { last: Promise.resolve() }
    try {
      await runChunks(operationUid, delivering)
    } finally {
      await delivering.last
    }
  }

  /**
   * Nothing may leave now. With no task left to wait for, the operation finishes; with a rollout, its stop is judged
   * (a run after a restart may be the first to see the counts); with a time that frees tasks, a run is queued for
   * it. Otherwise a resume or the successes that open the next wave queue the run (./rollouts.ts).
   */
  async function held (op: Operation, plan: RolloutPlan | undefined, nextAt: number | undefined): Promise<void> {
    if (plan !== undefined) await tasksEnded(op.uid, plan)
    if (!(await repos.operations.hasOpenTasks(op.uid))) { await finishIfDone(op.uid); return }
    // The id is the time: workers that find the same wait queue one run between them.
    if (nextAt !== undefined) await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:at:${nextAt}`, runAt: nextAt })
  }

  async function runChunks (operationUid: string, delivering: { last: Promise<void> }): Promise<void> {
    const until = clock.now() + sliceMs
    const op = await repos.operations.find(operationUid)
    if (op === undefined || op.state !== 'IN_PROGRESS') return
    const handler = deps.handlers[op.type]
    if (handler === undefined) throw new FleetError('internal.error', [`no handler for ${op.type}`])
    const plan = planOf(op)
    // Heavy tasks (a CSV row makes a system in ~18 statements) in smaller chunks: on PGlite the API waits for a chunk.
    const chunkTasks = Math.max(1, Math.floor(chunkSize / (handler.taskWeight ?? 1)))
    for (;;) {
      await yieldToIo()
      const now = clock.now()
      if (op.timeoutDate <= now) { await sweeps.sweepTimeouts(); return }
      let deliveries: DispatchRequest[] = []
      const { results, limit, nextAt } = await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
        deliveries = []
        const gate = await releaseGate(tx, op.uid, plan, chunkTasks, now)
        const limit = Math.min(chunkTasks, gate.left)
        if (limit <= 0) return { results: [], limit, nextAt: gate.nextAt }
        const tasks = await tx.operations.claimPending(op.uid, limit)
        const chunk = await runTasks(tx, op, tasks, handler, now, deliveries)
        await tx.operations.setTaskResults(chunk, now)
        return { results: chunk, limit, nextAt: undefined }
      }), STORE_RETRY)
      if (limit <= 0) { await held(op, plan, nextAt); return }
      countTasks(op.type, results)
      if (results.length > 0) changed(op.uid)
      if (plan !== undefined && results.length > 0) await tasksEnded(op.uid, plan, { wake: false })
      const chunkDeliveries = deliveries
      delivering.last = delivering.last.then(async () => { await deliver(chunkDeliveries) })
      if (results.length < limit) { await finishIfDone(op.uid); return }
      if (clock.now() >= until) break
    }
    await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:${clock.now()}:${Math.random()}` })
  }

  return { run }
}
