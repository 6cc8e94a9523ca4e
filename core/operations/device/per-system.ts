// What retrieve data and apply settings share (docs/operations.md#bulk-operations; docs/operations.md#bulk-operations):
// a request is refused when no selected system defines any of the ids it names (400, nothing created); each task reads
// its system and its applications, and a chunk of tasks reads them all at once.
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { ChunkContext, OperationHandler, TaskContext, TaskOutcome } from '../handler.js'
import type { DeviceTasksRepository } from '../../ports/devices.js'
import { elementsOf, loadTargets, type DeviceTarget, type Element } from './targets.js'

/** Systems read per query while judging a selection (a uids selection has at most 100, a label or criteria more). */
const SLICE = 500

/**
 * Whether at least one of the systems defines at least one of the ids as an element `accepts` takes. Systems with the
 * same applications are judged once.
 */
export async function someSystemDefines (repos: Pick<Repositories, 'applications'>, systemUids: readonly string[], ids: readonly string[], accepts: (e: Element) => boolean): Promise<boolean> {
  const judged = new Set<string>()
  for (let i = 0; i < systemUids.length; i += SLICE) {
    const apps = await repos.applications.forSystems(systemUids.slice(i, i + SLICE))
    for (const applications of apps.values()) {
      const key = applications.map((a) => a.uid).join(',')
      if (judged.has(key)) continue
      judged.add(key)
      const elements = elementsOf(applications)
      if (ids.some((id) => { const e = elements.get(id); return e !== undefined && accepts(e) })) return true
    }
  }
  return false
}

/**
 * A device operation's chunk costs a few statements whatever its size (its systems, their applications, its device
 * tasks and its tasks' states, each in one statement), so its tasks weigh a fifth of a label's: 500 per chunk. Chunks
 * of 100 made the engine release a reboot of 10,000 devices at about 800 tasks a second, slower than the devices
 * answered (bench reboot).
 */
const DEVICE_TASK_WEIGHT = 0.2

type DeviceTaskRows = Array<Parameters<DeviceTasksRepository['insert']>[0][number]>

/** What one task does once its system and applications are read (undefined: the system is gone). */
export type RunOnTarget = (ctx: TaskContext, target: DeviceTarget | undefined) => Promise<TaskOutcome>

/**
 * run() and runChunk() of a device operation from what one task does with its target: a chunk reads its systems and
 * their applications in one go, writes the device tasks of its tasks in one statement, and a task whose checks fail
 * (a FleetError) writes nothing and fails alone.
 */
export function perSystem (runOne: RunOnTarget): Pick<OperationHandler, 'run' | 'runChunk' | 'taskWeight'> {
  return {
    taskWeight: DEVICE_TASK_WEIGHT,
    async run (ctx) {
      const targets = await loadTargets(ctx.tx, ctx.op.companyUid, [ctx.task.systemUid])
      return await runOne(ctx, targets.get(ctx.task.systemUid))
    },
    async runChunk ({ tx, op, tasks, now }: ChunkContext) {
      const targets = await loadTargets(tx, op.companyUid, tasks.map((t) => t.systemUid))
      // The device tasks are gathered and written once the chunk's tasks have run: one INSERT per task was most of a
      // chunk's time (bench reboot, 10,000 devices), and it held back the next chunk.
      const rows: DeviceTaskRows = []
      let taskRows: DeviceTaskRows = []
      const gathering: Repositories = { ...tx, deviceTasks: { ...tx.deviceTasks, insert: async (r) => { taskRows.push(...r) } } }
      const out: Array<TaskOutcome | FleetError> = []
      for (const task of tasks) {
        taskRows = []
        try {
          out.push(await runOne({ tx: gathering, op, task, now }, targets.get(task.systemUid)))
          rows.push(...taskRows)
        } catch (err) {
          if (!(err instanceof FleetError)) throw err
          out.push(err) // what the failed task gathered is dropped with it
        }
      }
      if (rows.length > 0) await tx.deviceTasks.insert(rows)
      return out
    }
  }
}

/** The target of a task, or its failure when the system was deleted since the operation was created. @throws system.unknown */
export function present (ctx: TaskContext, target: DeviceTarget | undefined): DeviceTarget {
  if (target === undefined) throw new FleetError('system.unknown', [ctx.task.systemUid])
  return target
}
