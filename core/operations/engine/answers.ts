// Device answers in the operations engine: what devices answered to device tasks, and the values that tasks waiting
// for them (retrieve data) look for. Each batch runs in a transaction of its own with the handler's `answered` or
// `reported`, which may chain the next device task (settings, then reboot).
import { isFleetError } from '../../errors.js'
import { retryWhileUnavailable } from '../../store-errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Operation, OperationType, Task } from '../../domain/operation.js'
import type { TaskResult } from '../../ports/operations.js'
import type { DeviceAnswer } from '../../domain/device-task.js'
import type { DispatchRequest } from '../../ports/devices.js'
import { planOf, type RolloutPlan } from '../rollout.js'
import { STORE_RETRY, type EngineContext } from './context.js'
import type { EngineLifecycle } from './lifecycle.js'
import type { EngineRollouts } from './rollouts.js'
import { cancelledByDevice, defaultAnswer, failure, succeeded } from './outcomes.js'

export interface EngineAnswers {
  /**
   * Devices answered device tasks (docs/devices.md: OK → SUCCESS, ERROR → FAILURE with the device's
   * message, CANCELLED → CANCELLED; a task being cancelled takes what the device answers). An answer to a task already ended (timed out,
   * cancelled before delivery) changes nothing. The rollout of each operation answered is judged once the answers
   * are in: its stop, or the run of the wave the successes opened.
   */
  deviceAnswered: (answers: readonly DeviceAnswer[]) => Promise<void>
  /**
   * Device messages of these systems were committed (ingest's onStored): the open tasks of the handlers that wait for
   * values (handler.reported: retrieve data) look again, each with its task locked, so that an answer being recorded
   * at the same time is seen by one of the two.
   */
  valuesStored: (systemUids: readonly string[]) => Promise<void>
  /**
   * Tasks waiting for values their device may have sent while the engine was not told (a stop between the commit of
   * the message and valuesStored): their systems are looked at again.
   */
  recheckReported: (ops: readonly Operation[]) => Promise<void>
}

/** A handler refused an answer in a batch run without savepoints: the batch runs again, each answer guarded. */
class AnswerRefused extends Error {}

/** Device answers of one operation handled in one transaction (a reboot of thousands of devices answers together). */
const ANSWER_BATCH = 200

const open = (task: Task): boolean => task.state === 'IN_PROGRESS' || task.state === 'BEING_CANCELLED'

interface BatchResult { results: TaskResult[], type: OperationType, plan: RolloutPlan | undefined }

/**
 * Each answer's handler runs bare first: a savepoint per answer is two round trips more, and thousands of answers
 * come together. A handler that refuses one (a FleetError, whose writes must not stay) sends the batch round again
 * with each answer in a savepoint of its own.
 */
async function answerBatch ({ deps, clock }: EngineContext, tx: Repositories, operationUid: string, batch: readonly DeviceAnswer[], guarded: boolean, deliveries: DispatchRequest[]): Promise<BatchResult | undefined> {
  deliveries.length = 0
  const op = await tx.operations.find(operationUid)
  if (op === undefined) return undefined
  const tasks = await tx.operations.lockTasks(batch.map((a) => a.operationTaskUid as string))
  const handler = deps.handlers[op.type]
  const answered = handler?.answered
  const now = clock.now()
  const results: TaskResult[] = []
  for (const answer of batch) {
    const task = tasks.get(answer.operationTaskUid as string)
    // One answer per task and batch: a later one (a chained device task) comes in a later call.
    if (task === undefined || results.some((r) => r.uid === task.uid) || !open(task)) continue
    // Handlers read OK or ERROR; a cancel the device reports ends the task before any of them is asked.
    if (answer.status === 'CANCELLED') {
      results.push(cancelledByDevice(task))
      continue
    }
    try {
      const outcome = answered === undefined
        ? defaultAnswer(answer)
        : guarded ? await tx.savepoint.run(async () => await answered({ tx, op, task, now, answer })) : await answered({ tx, op, task, now, answer })
      results.push(succeeded(task, outcome, deliveries))
    } catch (err) {
      if (!isFleetError(err)) throw err
      if (answered !== undefined && !guarded) throw new AnswerRefused()
      await handler?.failed?.({ tx, op, task, now })
      results.push(failure(task, err))
    }
  }
  await tx.operations.setTaskResults(results, now)
  return { results, type: op.type, plan: planOf(op) }
}

/** One open task that waits for values looks at them, its task locked; undefined when nothing changed. */
async function reportedOne ({ deps, inTransaction, clock }: EngineContext, uid: string, operationUid: string, deliveries: DispatchRequest[]): Promise<{ r: TaskResult, type: OperationType } | undefined> {
  return await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
    deliveries.length = 0
    const op = await tx.operations.find(operationUid)
    const task = await tx.operations.lockTask(uid)
    const handler = op === undefined ? undefined : deps.handlers[op.type]
    if (op === undefined || task === undefined || handler?.reported === undefined || !open(task)) return undefined
    const now = clock.now()
    const outcome = await handler.reported({ tx, op, task, now })
    if (outcome === undefined) return undefined
    const r = succeeded(task, outcome, deliveries)
    await tx.operations.setTaskResults([r], now)
    return { r, type: op.type }
  }), STORE_RETRY)
}

export function createAnswers (ctx: EngineContext, lifecycle: EngineLifecycle, rollouts: EngineRollouts): EngineAnswers {
  const { deps, repos, inTransaction, changed, countTasks, deliver } = ctx
  const { finishIfDone } = lifecycle
  const { tasksEnded } = rollouts

  /** Answers of one operation, by batches; answers whether any task changed, and the operation's rollout plan. */
  async function answerOperation (operationUid: string, list: readonly DeviceAnswer[]): Promise<{ touched: boolean, plan: RolloutPlan | undefined }> {
    let plan: RolloutPlan | undefined
    let touched = false
    for (let i = 0; i < list.length; i += ANSWER_BATCH) {
      const batch = list.slice(i, i + ANSWER_BATCH)
      const deliveries: DispatchRequest[] = []
      const result = await retryWhileUnavailable(async () => {
        try {
          return await inTransaction(async (tx) => await answerBatch(ctx, tx, operationUid, batch, false, deliveries))
        } catch (err) {
          if (!(err instanceof AnswerRefused)) throw err
          return await inTransaction(async (tx) => await answerBatch(ctx, tx, operationUid, batch, true, deliveries))
        }
      }, STORE_RETRY)
      if (result === undefined || result.results.length === 0) continue
      countTasks(result.type, result.results.filter((r) => r.state !== 'IN_PROGRESS'))
      changed(operationUid)
      await deliver(deliveries)
      plan = result.plan
      touched = true
    }
    return { touched, plan }
  }

  async function deviceAnswered (answers: readonly DeviceAnswer[]): Promise<void> {
    const byOperation = new Map<string, DeviceAnswer[]>()
    for (const a of answers) {
      if (a.operationUid === null || a.operationTaskUid === null) continue
      byOperation.set(a.operationUid, [...(byOperation.get(a.operationUid) ?? []), a])
    }
    for (const [operationUid, list] of byOperation) {
      const { touched, plan } = await answerOperation(operationUid, list)
      if (!touched) continue
      if (plan !== undefined) await tasksEnded(operationUid, plan)
      await finishIfDone(operationUid)
    }
  }

  async function valuesStored (systemUids: readonly string[]): Promise<void> {
    const types = (Object.keys(deps.handlers) as OperationType[]).filter((t) => deps.handlers[t]?.reported !== undefined)
    if (types.length === 0 || systemUids.length === 0) return
    const touched = new Set<string>()
    for (const task of await repos.operations.openTasksOf(systemUids, types)) {
      const deliveries: DispatchRequest[] = []
      const result = await reportedOne(ctx, task.uid, task.operationUid, deliveries)
      if (result === undefined) continue
      if (result.r.state !== 'IN_PROGRESS') countTasks(result.type, [result.r])
      changed(task.operationUid)
      await deliver(deliveries)
      touched.add(task.operationUid)
    }
    for (const uid of touched) await finishIfDone(uid)
  }

  async function recheckReported (ops: readonly Operation[]): Promise<void> {
    const PAGE = 500
    for (const op of ops) {
      if (deps.handlers[op.type]?.reported === undefined) continue
      // Every page is read before any task changes state (which would move the pages).
      const systems: string[] = []
      for (let offset = 0; ; offset += PAGE) {
        const found = await repos.operations.tasks(op.uid, ['IN_PROGRESS', 'BEING_CANCELLED'], { offset, size: PAGE })
        systems.push(...found.items.map((t) => t.systemUid))
        if (found.items.length < PAGE) break
      }
      for (let i = 0; i < systems.length; i += PAGE) await valuesStored(systems.slice(i, i + PAGE))
    }
  }

  return { deviceAnswered, valuesStored, recheckReported }
}
