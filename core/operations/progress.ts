// Operation progress for the live stream (core/ports/events.ts): the engine says which operations changed
// after each commit (a chunk, device answers, a state change), and their state and counters are read once per
// PROGRESS_MS for all of them together. A 10,000-task reboot thus costs a few reads a second, not one per answer;
// and nothing at all while no stream is open (EventBus.listening).
import type { Logger } from '../logger.js'
import type { OperationsRepository } from '../ports/operations.js'
import type { EventBus, OperationEvent } from '../ports/events.js'
import { counters } from '../domain/operation.js'

/** How long changes of one operation are gathered before they are read and published. */
export const PROGRESS_MS = 200

export interface OperationProgress {
  /** The operation's state or tasks changed and are committed. */
  changed (operationUid: string): void
  /** Publishes what is gathered now (tests, shutdown). */
  flush (): Promise<void>
}

export function createOperationProgress ({ operations, events, log }: { operations: Pick<OperationsRepository, 'find' | 'counts'>, events: EventBus, log: Logger }): OperationProgress {
  let changed = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let publishing: Promise<void> = Promise.resolve()

  async function publish (uids: string[]): Promise<void> {
    const counts = await operations.counts(uids)
    const found: OperationEvent[] = []
    for (const uid of uids) {
      const op = await operations.find(uid)
      if (op === undefined) continue
      found.push({ kind: 'operation', company: op.companyUid, uid, type: op.type, state: op.state, counters: counters(counts.get(uid) ?? {}) })
    }
    events.publish(found)
  }

  async function flush (): Promise<void> {
    clearTimeout(timer)
    timer = undefined
    const uids = [...changed]
    changed = new Set()
    publishing = publishing.then(async () => {
      if (uids.length === 0) return
      // The stream is live, not the record: a failed read loses this update, the next change sends the state again.
      await publish(uids).catch((err: unknown) => { log.warn({ err, operations: uids.length }, 'operation progress not published') })
    })
    await publishing
  }

  return {
    changed (operationUid) {
      if (!events.listening()) return
      changed.add(operationUid)
      timer ??= setTimeout(() => { flush().catch(() => {}) }, PROGRESS_MS).unref() // flush() logs its own failures
    },
    flush
  }
}
