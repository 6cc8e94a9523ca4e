// Software tasks over LwM2M (docs/protocols/lwm2m.md#installs): LWM2M_FW through Object 5 (firmware-install.ts),
// LWM2M_SW through Object 9 (software-actions.ts), each a run of steps rather than one request, since a device takes
// minutes to download, sleeps in queue mode, and restarts into a new registration to apply a firmware. A task moves
// on whenever something may have changed on its device: its delivery (pushed, or taken again at each Register and
// Update), and each notification of what its install watches. One step at a time per task (a trigger during a step
// runs one more after it), on the system's registration of that moment; a device that does not answer leaves the task
// waiting for the next trigger. A step waiting on a registration that ended (the device restarted, as a firmware
// update has it do) holds nothing up: the next trigger starts a new run on the new registration, and what the old
// run still does is recorded nowhere. How far the install went is read from the store before each step (a restarted
// process, or another one, goes on from there), and only while the device task is open: one timed out or cancelled
// moves no more, and the operation's timeout bounds every wait.
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { Logger } from '../../core/logger.js'
import { failed, type Outcome } from './device-requests.js'
import { firmwareStep } from './firmware-install.js'
import { done, type SoftwareTask, type StepContext, type StepResult } from './install-step.js'
import { createInstallWatches } from './install-watches.js'
import type { LiveRegistration, LiveRegistrations } from './live.js'
import type { Lwm2mRepository } from './lwm2m.port.js'
import { softwareStep } from './software-actions.js'

export interface InstallsDeps {
  ingest: Pick<IngestService, 'acceptAcks'>
  store: Pick<Lwm2mRepository, 'installOf' | 'saveInstall' | 'endInstall'>
  live: Pick<LiveRegistrations, 'get'>
  log: Pick<Logger, 'warn' | 'debug'>
  now: () => number
  /** How long one request to the device may take (ms). */
  timeoutMs: number
}

/**
 * Steps a run takes at once when a step asks for the next (an Execute answered, an observation just made); triggers
 * are not counted.
 */
const AT_ONCE = 3

function driverOf (task: SoftwareTask): (c: StepContext) => Promise<StepResult> {
  switch (task.software.manager) {
    case 'LWM2M_FW': return firmwareStep
    case 'LWM2M_SW': return softwareStep
    default: return async () => done(failed(`${task.software.manager} has no update path over LwM2M`))
  }
}

/** A task's run: `again` when a trigger came during a step, `at` the registration of its step. */
interface Run { again: boolean, at: LiveRegistration | undefined }

export function createInstalls (deps: InstallsDeps) {
  const runs = new Map<string, Run>()
  const watches = createInstallWatches({ timeoutMs: deps.timeoutMs, log: deps.log })

  async function answer (r: LiveRegistration, task: SoftwareTask, outcome: Outcome): Promise<void> {
    await deps.ingest.acceptAcks(r.session.systemUid, 'LWM2M', [{ uid: task.uid, status: outcome.status, message: outcome.status === 'OK' ? null : outcome.message }])
    await deps.store.endInstall(task.uid)
    watches.end(r, task.uid)
  }

  const current = (task: SoftwareTask, run: Run): boolean => runs.get(task.uid) === run

  /** One step of the task at `r`; true when the next may be taken at once. */
  async function step (r: LiveRegistration, task: SoftwareTask, run: Run): Promise<boolean> {
    const { open, install } = await deps.store.installOf(task.uid)
    if (!open) { watches.end(r, task.uid); return false }
    const save: StepContext['save'] = async (at) => {
      if (current(task, run)) await deps.store.saveInstall({ taskUid: task.uid, ...at, updatedAt: deps.now() })
    }
    const result = await driverOf(task)({ r, task, install, save, timeoutMs: deps.timeoutMs })
    if (result.kind === 'done') { await answer(r, task, result.outcome); return false }
    const systemUid = r.session.systemUid
    const observed = result.watch !== undefined && await watches.watch(r, task.uid, result.watch, () => { kick(systemUid, task).catch(() => {}) })
    return result.kind === 'again' || observed
  }

  /**
   * Moves the task on at the system's registration here; resolves when this run ends (at once when one is already
   * running: that one takes one more step). Never throws: a failure of ours is logged, the next trigger tries again.
   */
  async function kick (systemUid: string, task: SoftwareTask): Promise<void> {
    const running = runs.get(task.uid)
    if (running !== undefined && running.at?.ended !== true) { running.again = true; return }
    const run: Run = { again: true, at: undefined }
    runs.set(task.uid, run)
    let atOnce = 0
    try {
      while (run.again && current(task, run)) {
        run.again = false
        run.at = deps.live.get(systemUid)
        if (run.at === undefined) return // its next Register takes the task again
        if (await step(run.at, task, run) && atOnce++ < AT_ONCE) run.again = true
      }
    } catch (err) {
      deps.log.warn({ err, systemUid, task: task.uid }, 'LwM2M install step not taken; taken again at the device\'s next Update or notification')
    } finally {
      if (current(task, run)) runs.delete(task.uid)
    }
  }

  return { kick }
}

export type Installs = ReturnType<typeof createInstalls>
