// Follows an operation of one task (a release, a publish: docs/packages.md#release-and-publish) to its end through the
// live stream, which sends its state right after subscribing (docs/stream.md), then reads its task: the outcome,
// with the error code and message of a failure.
import type { PageContext } from '../../page.js'
import type { Operation, OperationEvent } from '../operations/view.js'

export interface TaskOutcome {
  op: Operation
  /** The task's state (SUCCESS, FAILURE, CANCELLED) and, when it failed, why. */
  state: string
  error: { code: string, message: string } | null
}

export interface Following { done: Promise<TaskOutcome>, stop: () => void }

export function followOperation (ctx: Pick<PageContext, 'api' | 'stream'>, uid: string): Following {
  let unsubscribe = (): void => {}
  let settled = false
  const path = `/api/v1/operations/${encodeURIComponent(uid)}`
  const done = new Promise<TaskOutcome>((resolve, reject) => {
    const finish = (): void => {
      if (settled) return
      settled = true
      unsubscribe()
      Promise.all([
        ctx.api.get<Operation>(path),
        ctx.api.get<{ items: Array<{ state: string, error: TaskOutcome['error'] }> }>(`${path}/tasks`, { size: 1 })
      ]).then(([op, tasks]) => {
        const task = tasks.items[0]
        resolve({ op, state: task?.state ?? 'CANCELLED', error: task?.error ?? null })
      }, reject)
    }
    unsubscribe = ctx.stream.subscribe<OperationEvent>({ operations: { uids: [uid] } }, (e) => {
      if (e.event === 'operation' && e.uid === uid && e.state === 'FINISHED') finish()
    })
    if (settled) unsubscribe()
  })
  return { done, stop: () => { settled = true; unsubscribe() } }
}
