// The device side of device tasks in the ingest: the acks that answer them and the takes that deliver them, each
// gathered from many devices into one transaction (group-commit.ts).
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Logger } from '../../logger.js'
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { AnswerStatus, DeviceAnswer, DeviceTask } from '../../domain/device-task.js'
import type { DeviceAnswers } from '../../ports/devices.js'
import { isStoreUnavailable, retryWhileUnavailable, type RetryOptions } from '../../store-errors.js'
import { createGroupCommit } from './group-commit.js'
import type { DerivedState } from './derived-state.js'

/** One device's ack payload on its way to the store; `answers` are the open device tasks it closed. */
interface AckItem {
  systemUid: string
  protocol: DeviceProtocol
  acks: ReadonlyArray<{ uid: string, status: AnswerStatus, message: string | null }>
  answers: DeviceAnswer[]
}

/** One device's request for its tasks on its way to the store; `tasks` what it was given. */
interface TakeItem { systemUid: string, protocol: DeviceProtocol, again: boolean, received: readonly string[], tasks: DeviceTask[] }

export interface DeviceTaskIngestDeps {
  inTransaction: UnitOfWork
  clock: Clock
  log: Logger
  storeRetry: RetryOptions
  /** Acks and takes are traffic: lastCommDate and commStatus follow in the coalesced flush, as for data. */
  derived: DerivedState
  onAnswers?: DeviceAnswers | undefined
}

export function createDeviceTaskIngest ({ inTransaction, clock, log, storeRetry, derived, onAnswers }: DeviceTaskIngestDeps) {
  /**
   * The acks of many devices go in one transaction (a reboot of thousands of devices brings thousands of acks in a
   * few seconds; one transaction each made the ack path the slowest part of it, bench/reboot.ts), and their answers
   * reach the operations engine together, which handles them per operation in batches too.
   */
  async function writeAcks (items: AckItem[]): Promise<Array<Error | undefined>> {
    const now = clock.now()
    const answered = await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
      await tx.telemetry.insertAcks(items.flatMap((i) => i.acks.map((a) => ({ systemUid: i.systemUid, taskUid: a.uid, status: a.status, message: a.message, protocol: i.protocol, receivedAt: now }))))
      return await tx.deviceTasks.answerMany(items.map((i) => ({ systemUid: i.systemUid, acks: i.acks.map((a) => ({ taskUid: a.uid, status: a.status, message: a.message })) })), now)
    }), storeRetry)
    // The ack is traffic: lastCommDate and commStatus follow in the coalesced flush (derived-state.ts), as for data.
    for (const i of items) derived.touch(i.systemUid, now)
    items.forEach((i, n) => { i.answers = answered[n] ?? [] })
    const answers = answered.flat()
    if (answers.length > 0 && onAnswers !== undefined) {
      await onAnswers(answers).catch((err: unknown) => {
        log.error({ err, tasks: answers.map((a) => a.taskUid) }, 'device answers not passed to the operations; they stay answered in the store')
      })
    }
    return items.map(() => undefined)
  }
  const ackCommits = createGroupCommit<AckItem>({ write: writeAcks, maxBatch: 500, maxPending: 20_000, parallel: 1, failsWhole: isStoreUnavailable })

  /**
   * Task takes of many devices in one transaction, as their acks: after a reboot thousands of devices come back
   * within a second and each subscription takes its tasks; one transaction each (five round trips) made the
   * reconnections, not the devices, what a reboot of the fleet waited for (bench/reboot.ts). A task poll is device
   * traffic (docs/devices.md: lastCommDate on traffic): a REST device that only polls is communicating; its
   * System data is kept as it is.
   */
  async function writeTakes (items: TakeItem[]): Promise<Array<Error | undefined>> {
    const now = clock.now()
    const taken = await retryWhileUnavailable(async () => await inTransaction(async (tx) => await tx.deviceTasks.takeMany(items, now)), storeRetry)
    for (const i of items) derived.touch(i.systemUid, now)
    items.forEach((i, n) => { i.tasks = taken[n] ?? [] })
    return items.map(() => undefined)
  }
  const takeCommits = createGroupCommit<TakeItem>({ write: writeTakes, maxBatch: 500, maxPending: 20_000, parallel: 1, failsWhole: isStoreUnavailable })

  return {
    /**
     * Records a device's acknowledgements (device_acks, every one as received) and answers its open device tasks in
     * one transaction (docs/devices.md: the ack ends the task); answers the device answers it closed.
     * An ack of an unknown task, of another system's task or of a task already answered closes nothing.
     *
     * Once committed, the answers go to `onAnswers` (the operations engine). A failure there is logged and not
     * thrown: the device's ack is stored and must not be sent again. The answer is not lost either: the device task
     * stays OK / ERROR (with the device's message) in the store, where the engine finds it again by reading the
     * states of the device tasks of its IN_PROGRESS operation tasks (repos.deviceTasks.states, then the rows) at its
     * recovery or timeout sweep. The same holds for a process that stops between the commit and this call, and for
     * a commit whose answer was lost and written again (the retry closes nothing the first try closed).
     */
    async acceptAcks (systemUid: string, protocol: DeviceProtocol, acks: ReadonlyArray<{ uid: string, status: AnswerStatus, message: string | null }>): Promise<DeviceAnswer[]> {
      const item: AckItem = { systemUid, protocol, acks, answers: [] }
      await ackCommits.submit(item)
      return item.answers
    },
    /**
     * The device's tasks to deliver over this protocol, oldest first, marked SENT; the device is communicating
     * (docs/devices.md). `again` (a connection, a subscription, a poll) adds those delivered before and not
     * answered yet: a device may have lost them, and ignores one it already ran by its uid (§Device tasks); but not
     * those of `received`, which the device confirmed receiving (an MQTT PUBACK: the transport's own guarantee).
     */
    async takeTasks (systemUid: string, protocol: DeviceProtocol, opts: { again?: boolean, received?: readonly string[] } = {}): Promise<DeviceTask[]> {
      const item: TakeItem = { systemUid, protocol, again: opts.again === true, received: opts.received ?? [], tasks: [] }
      await takeCommits.submit(item)
      return item.tasks
    },
    drain: async (): Promise<void> => { await ackCommits.drain(); await takeCommits.drain() }
  }
}
