// An operation's life in the engine: written with its tasks and scheduled, started when its schedule and dependsOn
// allow, cancelled, FINISHED once no task is open (its rollout's pause and stop: ./rollouts.ts).
import type { NewTask, Operation } from '../../domain/operation.js'
import type { EngineContext } from './context.js'
import type { EngineNotifications } from './notifications.js'

export interface EngineLifecycle {
  /** Writes the operation and its tasks in one transaction, then schedules it. */
  create: (op: Operation, tasks: NewTask[]) => Promise<string>
  /** Queues the operation's start job, at its scheduledTime when that is still ahead. */
  kick: (op: Pick<Operation, 'uid' | 'scheduledTime'>) => Promise<void>
  /** The operation.start job. */
  start: (operationUid: string) => Promise<void>
  /** docs/operations.md#bulk-operations: PENDING tasks CANCELLED at once, IN_PROGRESS ones BEING_CANCELLED. */
  cancel: (op: Operation) => Promise<void>
  /** FINISHED once no task is open; then the callback, the e-mail and the operations that depend on it. */
  finishIfDone: (operationUid: string) => Promise<void>
}

async function kickOf ({ queue, clock }: EngineContext, op: Pick<Operation, 'uid' | 'scheduledTime'>): Promise<void> {
  const runAt = op.scheduledTime !== null && op.scheduledTime > clock.now() ? op.scheduledTime : undefined
  await queue.enqueue('operation.start', { operationUid: op.uid }, { jobId: `start:${op.uid}`, ...(runAt === undefined ? {} : { runAt }) })
}

async function parentFinished ({ repos }: EngineContext, op: Operation): Promise<boolean> {
  if (op.dependsOn === null) return true
  const parent = await repos.operations.find(op.dependsOn.operation)
  return parent === undefined || parent.state === 'FINISHED'
}

export function createLifecycle (ctx: EngineContext, notifications: EngineNotifications): EngineLifecycle {
  const { deps, repos, inTransaction, queue, clock, changed } = ctx
  const { emit, followUp } = notifications
  const kick = async (op: Pick<Operation, 'uid' | 'scheduledTime'>): Promise<void> => { await kickOf(ctx, op) }

  async function create (op: Operation, tasks: NewTask[]): Promise<string> {
    await inTransaction(async (tx) => {
      await tx.operations.insert({ ...op, total: 0 })
      await tx.operations.insertTasks(op.uid, tasks, op.createdAt)
    })
    changed(op.uid)
    await emit(op.uid)
    await kick(op)
    return op.uid
  }

  async function start (operationUid: string): Promise<void> {
    const op = await repos.operations.find(operationUid)
    if (op === undefined || op.state === 'FINISHED') return
    const now = clock.now()
    if (op.scheduledTime !== null && op.scheduledTime > now) { await kick(op); return }
    if (!(await parentFinished(ctx, op))) return // the parent's end starts it
    if (!op.resolved && op.dependsOn !== null) {
      const dependsOn = op.dependsOn
      await inTransaction(async (tx) => {
        const systems = await tx.operations.parentSystems(dependsOn)
        await tx.operations.insertTasks(op.uid, systems.map((s) => ({ systemUid: s.systemUid, systemName: s.systemName })), now)
        await tx.operations.setResolved(op.uid)
      })
    }
    if (await repos.operations.transition(op.uid, ['SCHEDULED'], 'IN_PROGRESS', { startDate: now })) {
      changed(op.uid)
      await emit(op.uid)
    }
    await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}` })
  }

  async function cancel (op: Operation): Promise<void> {
    const now = clock.now()
    await inTransaction(async (tx) => {
      await tx.operations.cancelTasks(op.uid, now)
      if (!op.resolved) await tx.operations.setResolved(op.uid)
    })
    await repos.operations.transition(op.uid, ['SCHEDULED', 'IN_PROGRESS'], op.state, { cancelDate: now })
    changed(op.uid)
    await queue.remove(`start:${op.uid}`)
    await finishIfDone(op.uid)
  }

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
      changed(operationUid)
      await followUp(op)
    }
  }

  return { create, kick, start, cancel, finishIfDone }
}
