// The operations engine (docs/operations.md#bulk-operations; docs/architecture.md#how-data-flows).
// An operation and its tasks are written in one transaction. Jobs only say when to look: `operation.start` when the
// schedule and dependsOn allow, then `operation.run`, which takes the next chunk of PENDING tasks (FOR UPDATE SKIP
// LOCKED), runs them in one transaction (each in a savepoint, or the whole chunk at once through the handler's
// runChunk) and commits their effects and their new states together. A process killed mid-chunk leaves the chunk's
// tasks PENDING and their effects undone: the job runs again and no task is lost or applied twice
// (test/slow/operations-crash.test.ts). A run job takes chunks for about a second, then queues the next run, so a
// huge operation shares the workers with the others.
//
// createEngine composes its parts (./engine/): the lifecycle (create, start, cancel, finish), the chunk runner, the
// device answers, the rollouts (stop, next wave, pause), the notifications (callbacks, e-mails, dependent
// operations) and the sweeps (timeouts, recovery).
import type { ExtraPeriodicJobs, ModuleJobHandlers, OperationJobs, PeriodicJob, PeriodicJobs } from './jobs.js'
import { createEngineContext, type EngineDeps } from './engine/context.js'
import { createNotifications } from './engine/notifications.js'
import { createLifecycle } from './engine/lifecycle.js'
import { createAnswers } from './engine/answers.js'
import { createSweeps } from './engine/sweeps.js'
import { createChunkRunner } from './engine/chunks.js'
import { createRollouts } from './engine/rollouts.js'

export type { EngineDeps } from './engine/context.js'
export { DEVICE_ERROR } from './engine/outcomes.js'

export function createEngine (deps: EngineDeps) {
  const ctx = createEngineContext(deps)
  const notifications = createNotifications(ctx)
  const lifecycle = createLifecycle(ctx, notifications)
  const rollouts = createRollouts(ctx)
  const answers = createAnswers(ctx, lifecycle, rollouts)
  const sweeps = createSweeps(ctx, lifecycle, answers, notifications)
  const chunks = createChunkRunner(ctx, lifecycle, sweeps, rollouts)
  const { queue, log } = ctx

  /**
   * Starts working the queue in this process, periodic work included: each piece is declared as a repeatable job
   * (every process declares it; the queue runs it once per period among them). Without `periodic` (engine tests)
   * no periodic job is declared, and one another process declared finds no handler here. `extra`: periodic work
   * of others than the engine (a device transport's poller, ingest/transport.ts `jobs`), declared the same way.
   * `modules`: the handlers of other modules' jobs (ModuleJobs); without them (engine tests) such a job fails here.
   */
  async function work (concurrency: number, periodic?: PeriodicJobs, extra: ExtraPeriodicJobs = {}, modules?: ModuleJobHandlers): Promise<void> {
    const none = async (): Promise<void> => { throw new Error('no periodic work in this process') }
    const unhandled = async (): Promise<void> => { throw new Error('no handler of this job in this process') }
    const extraHandlers = Object.fromEntries(Object.entries(extra).map(([name, job]) => [name, async () => { await job.run() }]))
    await queue.work({
      ...extraHandlers as Record<never, never>,
      'operation.start': async (p) => { await lifecycle.start(p.operationUid) },
      'operation.run': async (p) => { await chunks.run(p.operationUid) },
      'operation.callback': async (p) => { await notifications.deliverCallback(p) },
      'operation.notify': async (p) => { await notifications.sendMail(p.operationUid) },
      'sweep.timeouts': periodic?.['sweep.timeouts'].run ?? none,
      'sweep.comm-status': periodic?.['sweep.comm-status'].run ?? none,
      'points.partitions': periodic?.['points.partitions'].run ?? none,
      'alert.notify': modules?.['alert.notify'] ?? unhandled,
      'alert.hook': modules?.['alert.hook'] ?? unhandled
    }, {
      concurrency,
      onFailed: async (f) => { log.error({ job: f.job, err: f.error }, 'operation job failed') }
    })
    for (const [name, job] of Object.entries(periodic ?? {}) as Array<[keyof PeriodicJobs, PeriodicJob]>) {
      await queue.repeat(name, job.everyMs, null)
    }
    for (const [name, job] of Object.entries(extra)) await queue.repeat(name as keyof OperationJobs, job.everyMs, null)
  }

  return {
    create: lifecycle.create,
    cancel: lifecycle.cancel,
    pause: rollouts.pause,
    deviceAnswered: answers.deviceAnswered,
    valuesStored: answers.valuesStored,
    sweepTimeouts: sweeps.sweepTimeouts,
    recover: sweeps.recover,
    work
  }
}

export type Engine = ReturnType<typeof createEngine>
