// The engine's catching up: tasks past their operation's timeoutDate, and after a restart every unfinished
// operation and every device answer committed while the engine was not told.
import type { EngineContext } from './context.js'
import type { EngineLifecycle } from './lifecycle.js'
import type { EngineAnswers } from './answers.js'
import type { EngineNotifications } from './notifications.js'

// How old a committed device answer must be before the timeout sweep hands it to the engine (see sweepTimeouts).
const UNHEARD_AFTER_MS = 10_000
// How often the timeout sweep removes expired download links: a link past its expiry already answers 404
// (docs/packages.md#downloads), so the rows only need not pile up; once a minute spares the store a scan every sweep.
export const EXPIRED_LINKS_EVERY_MS = 60_000

export interface EngineSweeps {
  /**
   * Fails tasks still open at their operation's timeoutDate (docs/operations.md#bulk-operations: operation.timeout),
   * and, at most once every EXPIRED_LINKS_EVERY_MS, removes the download links past their expiry (an install
   * link expires at its operation's timeout: docs/packages.md#downloads).
   */
  sweepTimeouts: () => Promise<void>
  /**
   * After a restart: every unfinished operation is looked at again (idempotent job ids make this safe), and the
   * device answers committed while the engine was not told (a stop between the two) are taken now.
   */
  recover: () => Promise<void>
}

export function createSweeps (ctx: EngineContext, lifecycle: EngineLifecycle, answers: EngineAnswers, notifications: EngineNotifications): EngineSweeps {
  const { repos, queue, clock, changed } = ctx
  const { finishIfDone, kick } = lifecycle
  const { deviceAnswered, recheckReported } = answers

  let linksSweptAt: number | undefined
  async function removeExpiredLinks (): Promise<void> {
    const now = clock.now()
    if (linksSweptAt !== undefined && now - linksSweptAt < EXPIRED_LINKS_EVERY_MS) return
    linksSweptAt = now
    await repos.packageDownloads.removeExpired(now)
  }

  async function sweepTimeouts (): Promise<void> {
    // Answers committed by a process that died before telling the engine (in a cluster, an ingest process: no restart
    // of a worker runs recover() for it). Old enough that the process that committed them is not about to.
    await deviceAnswered(await repos.deviceTasks.unheard(clock.now() - UNHEARD_AFTER_MS))
    for (const uid of await repos.operations.timeOut(clock.now())) {
      changed(uid)
      const op = await repos.operations.find(uid)
      if (op !== undefined && !op.resolved) await repos.operations.setResolved(uid)
      await finishIfDone(uid)
    }
    await removeExpiredLinks()
  }

  async function recover (): Promise<void> {
    for (const op of await repos.operations.pendingFollowups()) await notifications.followUp(op)
    await deviceAnswered(await repos.deviceTasks.unheard())
    const unfinished = await repos.operations.unfinished()
    await recheckReported(unfinished)
    for (const op of unfinished) {
      // A run job of its own: the killed process's job keeps its lease (30 s) before it may run again.
      if (op.state === 'IN_PROGRESS') await queue.enqueue('operation.run', { operationUid: op.uid }, { jobId: `run:${op.uid}:recover:${clock.now()}` })
      else await kick(op)
    }
  }

  return { sweepTimeouts, recover }
}
