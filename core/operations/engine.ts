// The operations engine (issue: Operations engine; conventions.md §Operations; shared/design.md §How data flows).
// An operation and its tasks are written in one transaction. Jobs only say when to look: `operation.start` when the
// schedule and dependsOn allow, then `operation.run`, which takes the next chunk of PENDING tasks (FOR UPDATE SKIP
// LOCKED), runs them in one transaction (each in a savepoint, or the whole chunk at once through the handler's
// runChunk) and commits their effects and their new states together. A process killed mid-chunk leaves the chunk's
// tasks PENDING and their effects undone: the job runs again and no task is lost or applied twice
// (test/slow/operations-crash.test.ts). A run job takes chunks for about a second, then queues the next run, so a
// huge operation shares the workers with the others.
import { FleetError, isFleetError, type ErrorCode } from '../errors.js'
import type { Clock, UnitOfWork } from '../ports/store.js'
import { retryWhileUnavailable } from '../store-errors.js'
import type { Logger } from '../logger.js'
import { noMetrics, type MetricsRegistry } from '../metrics.js'
import type { JobQueue } from '../ports/queue.js'
import type { Repositories } from '../ports/repositories.js'
import type { CallbackResult, CallbackSender, Mailer } from '../ports/notify.js'
import { callbackRetryDelay, operationMail, operationStateEvent } from '../ports/notify.js'
import { counters, type NewTask, type Operation, type OperationType, type Task } from '../domain/operation.js'
import type { TaskResult } from '../ports/operations.js'
import type { ExtraPeriodicJobs, OperationJobs, PeriodicJob, PeriodicJobs } from './jobs.js'
import type { OperationHandler, TaskOutcome } from './handler.js'
import type { DeviceAnswer } from '../domain/device-task.js'
import type { DispatchRequest, TaskDispatch } from '../ports/devices.js'
import { abortOf, abortOnFailures, releaseBudget, rolloutOf, type AbortPolicy } from './rollout.js'
import type { OperationProgress } from './progress.js'

export interface EngineDeps {
  repos: Repositories
  inTransaction: UnitOfWork
  queue: JobQueue<OperationJobs>
  clock: Clock
  log: Logger
  callbacks: CallbackSender
  mailer: Mailer
  handlers: Partial<Record<OperationType, OperationHandler>>
  /** Tasks per chunk transaction (on PGlite the API waits for the running chunk: keep it small). */
  chunkSize?: number
  /** How long one run job goes on taking chunks before it queues the next run (queue hops cost ~1/3 of the time). */
  sliceMs?: number
  /** First delay between callback tries (CALLBACK_RETRY_BASE_MS; default 30 s), doubled at each try. */
  callbackRetryBaseMs?: number
  metrics?: MetricsRegistry
  /** Delivers the device tasks a chunk wrote, once it is committed (device operations; core/ports/devices.ts). */
  dispatch?: TaskDispatch
  /** Told of every committed change of an operation's state or tasks (the live stream, ./progress.ts). */
  progress?: OperationProgress
}

/**
 * Lets pending I/O (HTTP requests, MQTT packets) run before the next chunk. On PGlite every statement runs
 * synchronously in this thread and its promise settles as a microtask, so a chain of chunks never reaches the
 * event loop's I/O phase by itself: without this, a 3,000-task operation kept the API from answering until it ended.
 */
const yieldToIo = async (): Promise<void> => { await new Promise<void>((resolve) => { setImmediate(resolve) }) }

/**
 * A chunk whose store connection was lost committed nothing (or, its COMMIT answer lost, everything: its tasks are
 * then no longer PENDING), so it is run again at once rather than failing the job, whose attempts a flapping
 * connection would soon spend (issue 8: a lost connection during a bulk operation).
 */
const STORE_RETRY = { maxMs: 30_000 }

/** conventions.md §Device tasks: the device's OK ends the task SUCCESS, its ERROR ends it FAILURE with its message. */
function defaultAnswer (answer: DeviceAnswer): TaskOutcome {
  if (answer.status === 'OK') return { state: 'SUCCESS' }
  throw new FleetError(DEVICE_ERROR, answer.message === null ? [] : [answer.message])
}

/** A handler refused an answer in a batch run without savepoints: the batch runs again, each answer guarded. */
class AnswerRefused extends Error {}

/** Device answers of one operation handled in one transaction (a reboot of thousands of devices answers together). */
const ANSWER_BATCH = 200
// How old a committed device answer must be before the timeout sweep hands it to the engine (see sweepTimeouts).
const UNHEARD_AFTER_MS = 10_000

/** The code of a task its device answered ERROR (the device's message is the error message). */
export const DEVICE_ERROR: ErrorCode = 'operation.device.error'

export function createEngine (deps: EngineDeps) {
  const { repos, inTransaction, queue, clock, log } = deps
  const chunkSize = deps.chunkSize ?? 100
  const sliceMs = deps.sliceMs ?? 1000
  // Tasks by the state the engine gave them (SUCCESS, FAILURE...), per operation type (issue 8, Operability).
  const metrics = deps.metrics ?? noMetrics
  const finishedTasks = metrics.counter<'type' | 'state'>({
    name: 'fleet_operation_tasks_total', help: 'Operation tasks that reached a state, by operation type and state', labels: ['type', 'state']
  })
  const countTasks = (type: OperationType, results: readonly TaskResult[]): void => {
    for (const r of results) finishedTasks.inc({ type, state: r.state })
  }
  // The work still to do: tasks of the operations not FINISHED yet, read from the store at scrape time.
  metrics.gauge<'type' | 'state'>({
    name: 'fleet_operation_tasks_open',
    help: 'Tasks of the operations not finished yet, by operation type and task state',
    labels: ['type', 'state'],
    collect: async () => {
      const ops = await repos.operations.unfinished()
      const counts = await repos.operations.counts(ops.map((o) => o.uid))
      const sums = new Map<string, { type: string, state: string, value: number }>()
      for (const op of ops) {
        for (const [state, n] of Object.entries(counts.get(op.uid) ?? {})) {
          const key = `${op.type} ${state}`
          const s = sums.get(key) ?? { type: op.type, state, value: 0 }
          s.value += n ?? 0
          sums.set(key, s)
        }
      }
      return [...sums.values()].map(({ type, state, value }) => ({ labels: { type, state }, value }))
    }
  })

  async function kick (op: Pick<Operation, 'uid' | 'scheduledTime'>): Promise<void> {
    const runAt = op.scheduledTime !== null && op.scheduledTime > clock.now() ? op.scheduledTime : undefined
    await queue.enqueue('operation.start', { operationUid: op.uid }, { jobId: `start:${op.uid}`, ...(runAt === undefined ? {} : { runAt }) })
  }

  /** Writes the operation and its tasks in one transaction, then schedules it. */
  async function create (op: Operation, tasks: NewTask[]): Promise<string> {
    await inTransaction(async (tx) => {
      await tx.operations.insert({ ...op, total: 0 })
      await tx.operations.insertTasks(op.uid, tasks, op.createdAt)
    })
    deps.progress?.changed(op.uid)
    await emit(op.uid)
    await kick(op)
    return op.uid
  }

  /** Queues the callback of the operation's current state (conventions.md §Callbacks: every state change). */
  async function emit (uid: string): Promise<void> {
    const op = await repos.operations.find(uid)
    if (op === undefined || op.callback === null) return
    const counts = (await repos.operations.counts([uid])).get(uid) ?? {}
    const event = operationStateEvent({ uid, operationType: op.type, state: op.state, counters: counters(counts), total: op.total }, clock.now())
    await queue.enqueue('operation.callback', { operationUid: uid, url: op.callback, event, attempt: 1 }, { jobId: `callback:${uid}:${op.state}`, attempts: 1 })
  }

  async function parentFinished (op: Operation): Promise<boolean> {
    if (op.dependsOn === null) return true
    const parent = await repos.operations.find(op.dependsOn.operation)
    return parent === undefined || parent.state === 'FINISHED'
  }

  async function start (operationUid: string): Promise<void> {
    const op = await repos.operations.find(operationUid)
    if (op === undefined || op.state === 'FINISHED') return
    const now = clock.now()
    if (op.scheduledTime !== null && op.scheduledTime > now) { await kick(op); return }
    if (!(await parentFinished(op))) return // the parent's end starts it
    if (!op.resolved && op.dependsOn !== null) {
      const dependsOn = op.dependsOn
      await inTransaction(async (tx) => {
        const systems = await tx.operations.parentSystems(dependsOn)
        await tx.operations.insertTasks(op.uid, systems.map((s) => ({ systemUid: s.systemUid, systemName: s.systemName })), now)
        await tx.operations.setResolved(op.uid)
      })
    }
    if (await repos.operations.transition(op.uid, ['SCHEDULED'], 'IN_PROGRESS', { startDate: now })) {
      deps.progress?.changed(op.uid)
      await emit(op.uid)
    }
    await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}` })
  }

  /** The task's new state, and the delivery its device tasks wait for. */
  function succeeded (task: Task, o: TaskOutcome, deliveries: DispatchRequest[]): TaskResult {
    if (o.state === 'IN_PROGRESS' && o.deliver !== undefined) deliveries.push(o.deliver)
    const system = o.state === 'SUCCESS' && o.system !== undefined ? { systemUid: o.system.uid, systemName: o.system.name } : {}
    return { uid: task.uid, state: o.state, params: o.params ?? null, ...system }
  }

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

  function failure (task: Task, err: FleetError): TaskResult {
    // A device's own words are the message of its ERROR (conventions.md §Device tasks).
    const message = err.code === DEVICE_ERROR ? err.params[0] ?? 'ERROR' : [err.code, ...err.params].join(' ')
    return { uid: task.uid, state: 'FAILURE', errorCode: err.code, errorMessage: message }
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

  /**
   * Runs chunks of PENDING tasks, each in its own transaction, for up to sliceMs; then queues the next run (so a
   * huge operation shares the workers with the others), or finishes the operation once none is left. A rollout
   * (core/operations/rollout.ts) claims no more than its budget and, once it is spent, queues the next run for when
   * the budget frees; an abort threshold is judged after each chunk, before the chunk's device tasks leave.
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

  async function runChunks (operationUid: string, delivering: { last: Promise<void> }): Promise<void> {
    const until = clock.now() + sliceMs
    const op = await repos.operations.find(operationUid)
    if (op === undefined || op.state !== 'IN_PROGRESS') return
    const handler = deps.handlers[op.type]
    if (handler === undefined) throw new FleetError('internal.error', [`no handler for ${op.type}`])
    const rollout = rolloutOf(op)
    const abort = abortOf(op)
    // Heavy tasks (a CSV row makes a system in ~18 statements) in smaller chunks: on PGlite the API waits for a chunk.
    const chunkTasks = Math.max(1, Math.floor(chunkSize / (handler.taskWeight ?? 1)))
    for (;;) {
      await yieldToIo()
      const now = clock.now()
      if (op.timeoutDate <= now) { await sweepTimeouts(); return }
      let deliveries: DispatchRequest[] = []
      const { results, limit, nextAt } = await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
        deliveries = []
        const budget = rollout === undefined ? { left: chunkTasks } : await releaseBudget(tx, op.uid, rollout, now)
        const limit = Math.min(chunkTasks, budget.left)
        if (limit <= 0) return { results: [], limit, nextAt: budget.nextAt }
        const tasks = await tx.operations.claimPending(op.uid, limit)
        const chunk = await runTasks(tx, op, tasks, handler, now, deliveries)
        await tx.operations.setTaskResults(chunk, now)
        return { results: chunk, limit, nextAt: undefined }
      }), STORE_RETRY)
      if (nextAt !== undefined) {
        // The last chunk may have spent the budget and the tasks together: nothing to wait for then.
        if (!(await repos.operations.hasOpenTasks(op.uid))) { await finishIfDone(op.uid); return }
        // The id is the time: workers that find the budget spent at once queue one run between them.
        await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:window:${nextAt}`, runAt: nextAt })
        return
      }
      countTasks(op.type, results)
      if (results.length > 0) deps.progress?.changed(op.uid)
      if (abort !== undefined && results.length > 0) await abortIfFailing(op.uid, abort)
      const chunkDeliveries = deliveries
      delivering.last = delivering.last.then(async () => { await deliver(chunkDeliveries) })
      if (results.length < limit) { await finishIfDone(op.uid); return }
      if (clock.now() >= until) break
    }
    await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:${clock.now()}:${Math.random()}` })
  }

  /** FINISHED once no task is open; then the callback, the e-mail and the operations that depend on it. */
  async function finishIfDone (operationUid: string): Promise<void> {
    if (await repos.operations.hasOpenTasks(operationUid)) return
    const now = clock.now()
    const op = await repos.operations.find(operationUid)
    if (op === undefined || !op.resolved) return
    const handler = deps.handlers[op.type]
    // The handler's clean-up commits with FINISHED, and so does the mark that the follow-ups are still to queue.
    const finished = await inTransaction(async (tx) => {
      if (!(await tx.operations.transition(operationUid, ['SCHEDULED', 'IN_PROGRESS'], 'FINISHED', { endDate: now, followupsPending: true }))) return false
      await handler?.finished?.(tx, op, now)
      return true
    })
    if (finished) {
      deps.progress?.changed(operationUid)
      await followUp(op)
    }
  }

  /**
   * The callback, the e-mail and the dependent operations of a FINISHED operation. Queued under fixed job ids, so
   * running it again after a crash queues nothing twice that is still waiting; a callback already delivered may be
   * delivered again (at least once, conventions.md §Callbacks), never lost.
   */
  async function followUp (op: Operation): Promise<void> {
    await emit(op.uid)
    if (op.notify && op.userEmail !== null) await queue.enqueue('operation.notify', { operationUid: op.uid }, { jobId: `notify:${op.uid}` })
    for (const child of await repos.operations.children(op.uid)) await queue.enqueue('operation.start', { operationUid: child }, { jobId: `start:${child}` })
    await repos.operations.clearFollowups(op.uid)
  }

  /** Stops a rollout whose failure threshold is reached (core/operations/rollout.ts); its state changes when it ends. */
  async function abortIfFailing (operationUid: string, policy: AbortPolicy): Promise<void> {
    const abortedBy = await retryWhileUnavailable(async () => await inTransaction(async (tx) => await abortOnFailures(tx, operationUid, policy, clock.now())), STORE_RETRY)
    if (abortedBy === undefined) return
    deps.progress?.changed(operationUid)
    log.info({ operation: operationUid, ...abortedBy }, 'operation stopped: its failure threshold was reached')
  }

  /** Hands committed device tasks to the transports; a failure leaves them waiting for the device (logged). */
  async function deliver (requests: DispatchRequest[]): Promise<void> {
    if (requests.length === 0 || deps.dispatch === undefined) return
    try {
      await deps.dispatch.dispatch(requests)
    } catch (err) {
      log.warn({ err }, 'device tasks not dispatched; they wait for the devices\' next connection')
    }
  }

  /** Finishes a task that waited for its device (acknowledgement, or cancellation answered). */
  async function completeTask (taskUid: string, operationUid: string, result: TaskResult): Promise<void> {
    await repos.operations.setTaskResults([{ ...result, uid: taskUid }], clock.now())
    deps.progress?.changed(operationUid)
    await finishIfDone(operationUid)
  }

  /**
   * Devices answered device tasks (conventions.md §Device tasks: OK → SUCCESS, ERROR → FAILURE with the device's
   * message; a task being cancelled takes what the device answers). Each answer runs in its own transaction with the
   * handler's `answered`, which may chain the next device task (settings, then reboot). An answer to a task already
   * ended (timed out, cancelled before delivery) changes nothing. The abort threshold of each operation answered is
   * judged once the answers are in.
   */
  async function deviceAnswered (answers: readonly DeviceAnswer[]): Promise<void> {
    const byOperation = new Map<string, DeviceAnswer[]>()
    for (const a of answers) {
      if (a.operationUid === null || a.operationTaskUid === null) continue
      byOperation.set(a.operationUid, [...(byOperation.get(a.operationUid) ?? []), a])
    }
    for (const [operationUid, list] of byOperation) {
      let abort: AbortPolicy | undefined
      let touched = false
      for (let i = 0; i < list.length; i += ANSWER_BATCH) {
        const batch = list.slice(i, i + ANSWER_BATCH)
        const deliveries: DispatchRequest[] = []
        // Each answer's handler runs bare first: a savepoint per answer is two round trips more, and thousands of
        // answers come together. A handler that refuses one (a FleetError, whose writes must not stay) sends the
        // batch round again with each answer in a savepoint of its own.
        const answerAll = async (tx: Repositories, guarded: boolean) => {
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
            if (task === undefined || results.some((r) => r.uid === task.uid) || (task.state !== 'IN_PROGRESS' && task.state !== 'BEING_CANCELLED')) continue
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
          return { results, type: op.type, abort: abortOf(op) }
        }
        const result = await retryWhileUnavailable(async () => {
          try {
            return await inTransaction(async (tx) => await answerAll(tx, false))
          } catch (err) {
            if (!(err instanceof AnswerRefused)) throw err
            return await inTransaction(async (tx) => await answerAll(tx, true))
          }
        }, STORE_RETRY)
        if (result === undefined || result.results.length === 0) continue
        countTasks(result.type, result.results.filter((r) => r.state !== 'IN_PROGRESS'))
        deps.progress?.changed(operationUid)
        await deliver(deliveries)
        abort = result.abort
        touched = true
      }
      if (!touched) continue
      if (abort !== undefined) await abortIfFailing(operationUid, abort)
      await finishIfDone(operationUid)
    }
  }

  /**
   * Device messages of these systems were committed (ingest's onStored): the open tasks of the handlers that wait for
   * values (handler.reported: retrieve data) look again, each with its task locked, so that an answer being recorded
   * at the same time is seen by one of the two.
   */
  async function valuesStored (systemUids: readonly string[]): Promise<void> {
    const types = (Object.keys(deps.handlers) as OperationType[]).filter((t) => deps.handlers[t]?.reported !== undefined)
    if (types.length === 0 || systemUids.length === 0) return
    const touched = new Set<string>()
    for (const open of await repos.operations.openTasksOf(systemUids, types)) {
      const deliveries: DispatchRequest[] = []
      const result = await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
        deliveries.length = 0
        const op = await tx.operations.find(open.operationUid)
        const task = await tx.operations.lockTask(open.uid)
        const handler = op === undefined ? undefined : deps.handlers[op.type]
        if (op === undefined || task === undefined || handler?.reported === undefined || (task.state !== 'IN_PROGRESS' && task.state !== 'BEING_CANCELLED')) return undefined
        const now = clock.now()
        const outcome = await handler.reported({ tx, op, task, now })
        if (outcome === undefined) return undefined
        const r = succeeded(task, outcome, deliveries)
        await tx.operations.setTaskResults([r], now)
        return { r, type: op.type }
      }), STORE_RETRY)
      if (result === undefined) continue
      if (result.r.state !== 'IN_PROGRESS') countTasks(result.type, [result.r])
      deps.progress?.changed(open.operationUid)
      await deliver(deliveries)
      touched.add(open.operationUid)
    }
    for (const uid of touched) await finishIfDone(uid)
  }

  /** conventions.md §Operations: PENDING tasks CANCELLED at once, IN_PROGRESS ones BEING_CANCELLED. */
  async function cancel (op: Operation): Promise<void> {
    const now = clock.now()
    await inTransaction(async (tx) => {
      await tx.operations.cancelTasks(op.uid, now)
      if (!op.resolved) await tx.operations.setResolved(op.uid)
    })
    await repos.operations.transition(op.uid, ['SCHEDULED', 'IN_PROGRESS'], op.state, { cancelDate: now })
    deps.progress?.changed(op.uid)
    await queue.remove(`start:${op.uid}`)
    await finishIfDone(op.uid)
  }

  /** Fails tasks still open at their operation's timeoutDate (conventions.md §Operations: operation.timeout). */
  async function sweepTimeouts (): Promise<void> {
    // Answers committed by a process that died before telling the engine (in a cluster, an ingest process: no restart
    // of a worker runs recover() for it). Old enough that the process that committed them is not about to.
    await deviceAnswered(await repos.deviceTasks.unheard(clock.now() - UNHEARD_AFTER_MS))
    for (const uid of await repos.operations.timeOut(clock.now())) {
      deps.progress?.changed(uid)
      const op = await repos.operations.find(uid)
      if (op !== undefined && !op.resolved) await repos.operations.setResolved(uid)
      await finishIfDone(uid)
    }
  }

  /**
   * Tasks waiting for values their device may have sent while the engine was not told (a stop between the commit of
   * the message and valuesStored): their systems are looked at again.
   */
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

  /**
   * After a restart: every unfinished operation is looked at again (idempotent job ids make this safe), and the
   * device answers committed while the engine was not told (a stop between the two) are taken now.
   */
  async function recover (): Promise<void> {
    for (const op of await repos.operations.pendingFollowups()) await followUp(op)
    await deviceAnswered(await repos.deviceTasks.unheard())
    const unfinished = await repos.operations.unfinished()
    await recheckReported(unfinished)
    for (const op of unfinished) {
      // A run job of its own: the killed process's job keeps its lease (30 s) before it may run again.
      if (op.state === 'IN_PROGRESS') await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:recover:${clock.now()}` })
      else await kick(op)
    }
  }

  /** Keeps the try on the operation (its JSON's callbackDelivery); a store fault here must not cost the retry. */
  async function recordTry (operationUid: string, at: number, r: CallbackResult): Promise<void> {
    const outcome = r.outcome === 'delivered'
      ? { status: r.status, error: null, delivered: true }
      : { status: r.outcome === 'retryable' ? r.status ?? null : null, error: r.reason, delivered: false }
    try {
      await repos.operations.recordCallback(operationUid, { at, ...outcome })
    } catch (err) {
      log.warn({ err, operation: operationUid }, 'operation callback try not recorded')
    }
  }

  async function deliverCallback (p: OperationJobs['operation.callback']): Promise<void> {
    const at = clock.now()
    const result = await deps.callbacks.send(p.url, JSON.stringify(p.event))
    await recordTry(p.operationUid, at, result)
    if (result.outcome === 'delivered') return
    const delay = result.outcome === 'retryable' ? callbackRetryDelay(p.attempt, deps.callbackRetryBaseMs) : undefined
    if (delay === undefined) {
      log.warn({ operation: p.operationUid, outcome: result.outcome, attempt: p.attempt }, 'operation callback given up')
      return
    }
    await queue.enqueue('operation.callback', { ...p, attempt: p.attempt + 1 },
      { jobId: `callback:${p.operationUid}:${p.event.content.state}:${p.attempt + 1}`, runAt: clock.now() + delay, attempts: 1 })
  }

  async function sendMail (operationUid: string): Promise<void> {
    const op = await repos.operations.find(operationUid)
    if (op === undefined || op.userEmail === null) return
    const counts = (await repos.operations.counts([operationUid])).get(operationUid) ?? {}
    await deps.mailer.send(operationMail({
      uid: op.uid, operationType: op.type, state: op.state, counters: counters(counts), total: op.total, startDate: op.startDate, endDate: op.endDate
    }, op.userEmail))
  }

  /**
   * Starts working the queue in this process, periodic work included: each piece is declared as a repeatable job
   * (every process declares it; the queue runs it once per period among them). Without `periodic` (engine tests)
   * no periodic job is declared, and one another process declared finds no handler here. `extra`: periodic work
   * of others than the engine (a device transport's poller, ingest/transport.ts `jobs`), declared the same way.
   */
  async function work (concurrency: number, periodic?: PeriodicJobs, extra: ExtraPeriodicJobs = {}): Promise<void> {
    const none = async (): Promise<void> => { throw new Error('no periodic work in this process') }
    const extraHandlers = Object.fromEntries(Object.entries(extra).map(([name, job]) => [name, async () => { await job.run() }]))
    await queue.work({
      ...extraHandlers as Record<never, never>,
      'operation.start': async (p) => { await start(p.operationUid) },
      'operation.run': async (p) => { await run(p.operationUid) },
      'operation.callback': async (p) => { await deliverCallback(p) },
      'operation.notify': async (p) => { await sendMail(p.operationUid) },
      'sweep.timeouts': periodic?.['sweep.timeouts'].run ?? none,
      'sweep.comm-status': periodic?.['sweep.comm-status'].run ?? none,
      'points.partitions': periodic?.['points.partitions'].run ?? none
    }, {
      concurrency,
      onFailed: async (f) => { log.error({ job: f.job, err: f.error }, 'operation job failed') }
    })
    for (const [name, job] of Object.entries(periodic ?? {}) as Array<[keyof PeriodicJobs, PeriodicJob]>) {
      await queue.repeat(name, job.everyMs, null)
    }
    for (const [name, job] of Object.entries(extra)) await queue.repeat(name as keyof OperationJobs, job.everyMs, null)
  }

  return { create, cancel, completeTask, deviceAnswered, valuesStored, sweepTimeouts, recover, work, finishIfDone }
}

export type Engine = ReturnType<typeof createEngine>
