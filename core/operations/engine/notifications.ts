// What the operations engine tells the outside: the callbacks of every state change (with their retries), the
// "operation finished" e-mail, and the start of the operations that depend on a finished one.
import type { CallbackResult } from '../../ports/notify.js'
import { callbackRetryDelay, operationMail, operationStateEvent } from '../../ports/notify.js'
import { counters, type Operation } from '../../domain/operation.js'
import type { OperationJobs } from '../jobs.js'
import type { EngineContext } from './context.js'

export interface EngineNotifications {
  /** Queues the callback of the operation's current state (docs/operations.md#bulk-operations: every state change). */
  emit: (uid: string) => Promise<void>
  /** The callback, the e-mail and the dependent operations of a FINISHED operation. */
  followUp: (op: Operation) => Promise<void>
  /** One try of a callback (the operation.callback job); a retryable failure queues the next try. */
  deliverCallback: (p: OperationJobs['operation.callback']) => Promise<void>
  /** The operation.notify job: the e-mail to the user who launched the operation. */
  sendMail: (operationUid: string) => Promise<void>
}

export function createNotifications ({ deps, repos, queue, clock, log }: EngineContext): EngineNotifications {
  async function emit (uid: string): Promise<void> {
    const op = await repos.operations.find(uid)
    if (op === undefined || op.callback === null) return
    const counts = (await repos.operations.counts([uid])).get(uid) ?? {}
    const event = operationStateEvent({ uid, operationType: op.type, state: op.state, counters: counters(counts), total: op.total }, clock.now())
    await queue.enqueue('operation.callback', { operationUid: uid, url: op.callback, event, attempt: 1 }, { jobId: `callback:${uid}:${op.state}`, attempts: 1 })
  }

  /**
   * Queued under fixed job ids, so running it again after a crash queues nothing twice that is still waiting; a
   * callback already delivered may be delivered again (at least once, docs/operations.md#bulk-operations), never lost.
   */
  async function followUp (op: Operation): Promise<void> {
    await emit(op.uid)
    if (op.notify && op.userEmail !== null) await queue.enqueue('operation.notify', { operationUid: op.uid }, { jobId: `notify:${op.uid}` })
    for (const child of await repos.operations.children(op.uid)) await queue.enqueue('operation.start', { operationUid: child }, { jobId: `start:${child}` })
    await repos.operations.clearFollowups(op.uid)
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

  return { emit, followUp, deliverCallback, sendMail }
}
