import { FleetError } from '../../errors.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Logger } from '../../logger.js'
import { noMetrics, type MetricsRegistry } from '../../metrics.js'
import type { DeviceMessage, DeviceProtocol } from '../../domain/device-message.js'
import type { DeviceAnswer, DeviceTask } from '../../domain/device-task.js'
import type { DeviceAnswers } from '../../ports/devices.js'
import type { PointRow, TelemetryRepository } from '../../ports/telemetry.js'
import { isStoreUnavailable, retryWhileUnavailable } from '../../store-errors.js'
import { createGroupCommit } from './group-commit.js'
import { createDerivedState } from './derived-state.js'
import { createRollupFolds } from './rollup-folds.js'
import type { EventBus } from '../../ports/events.js'
import { messageEvent } from './ingest-events.js'
import { settledInOrder } from '../../settled.js'
import { bufferFull, createBufferBytes, messageBytes } from './buffer-bytes.js'

/** Rolls back a batch written at once that holds a message of a system not found (see write()). */
class UnknownSystemInBatch extends Error {}

export interface IngestOptions {
  maxBatch?: number
  maxPending?: number
  /** Approximate bytes of the messages waiting for their commit beyond which a message is refused (buffer-bytes.ts). */
  maxPendingBytes?: number
  parallel?: number
  derivedFlushMs?: number
  /** How long a write is tried again while the store is unavailable before its devices are failed (default 30 s). */
  storeRetryMs?: number
  /** A batch of fewer messages waits this long for more (group-commit.ts `gather`); default: 256 messages, 5 ms. */
  gather?: { min: number, ms: number }
}

/** One device's ack payload on its way to the store; `answers` are the open device tasks it closed. */
interface AckItem {
  systemUid: string
  protocol: DeviceProtocol
  acks: ReadonlyArray<{ uid: string, status: 'OK' | 'ERROR', message: string | null }>
  answers: DeviceAnswer[]
}

/** One device's request for its tasks on its way to the store; `tasks` what it was given. */
interface TakeItem { systemUid: string, protocol: DeviceProtocol, again: boolean, received: readonly string[], tasks: DeviceTask[] }

export interface IngestStats {
  committedMessages: number
  committedPoints: number
  failedMessages: number
  batches: number
  /** Payloads refused before storage, by protocol and reason (malformed, forbidden topic...). */
  refused: Record<string, number>
}

export interface IngestServiceDeps {
  inTransaction: UnitOfWork
  clock: Clock
  log: Logger
  options?: IngestOptions
  metrics?: MetricsRegistry
  /** Where the answers of devices go once committed (the operations engine); absent: they stay in the store only. */
  onAnswers?: DeviceAnswers
  /**
   * Told which systems' device messages were just committed (the operations engine: a retrieve waits for the values
   * it asked for, conventions.md §Device tasks). Called off the acknowledgement path, one call at a time; a failure
   * is logged.
   */
  onStored?: (systemUids: readonly string[]) => Promise<void>
  /** Where committed messages and commStatus changes go (the live stream, core/ports/events.ts); absent: nowhere. */
  events?: EventBus
  /** Telemetry outside any transaction: the VACUUM of the rollup increments (rollup-folds.ts). */
  telemetry?: Pick<TelemetryRepository, 'vacuumRollupDeltas'>
}

/** The pipeline's metrics (issue 8, Operability): what was stored or refused, and how the group commit keeps up. */
function ingestMetrics (metrics: MetricsRegistry, pending: () => number, pendingBytes: () => number) {
  metrics.gauge({ name: 'fleet_ingest_buffer_depth', help: 'Device messages waiting for their commit (queued or being written)', collect: () => [{ value: pending() }] })
  metrics.gauge({ name: 'fleet_ingest_buffer_bytes', help: 'Approximate bytes of the device messages waiting for their commit (bound: INGEST_BUFFER_BYTES)', collect: () => [{ value: pendingBytes() }] })
  return {
    accepted: metrics.counter<'protocol'>({ name: 'fleet_ingest_messages_accepted_total', help: 'Device messages committed, by protocol', labels: ['protocol'] }),
    refused: metrics.counter<'protocol' | 'reason'>({ name: 'fleet_ingest_messages_refused_total', help: 'Device payloads refused before storage, by protocol and reason', labels: ['protocol', 'reason'] }),
    failed: metrics.counter<'protocol'>({ name: 'fleet_ingest_messages_failed_total', help: 'Device messages the store did not take (not acknowledged; the device sends again)', labels: ['protocol'] }),
    batchSize: metrics.histogram({ name: 'fleet_ingest_batch_size', help: 'Device messages per group-commit transaction', buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000] }),
    commitSeconds: metrics.histogram({ name: 'fleet_ingest_commit_duration_seconds', help: 'Time to write one group-commit batch' })
  }
}

/**
 * Messages of devices that wait for each answer (M3DA: one package in flight) are gathered into batches of a few
 * hundred: 5 ms more before their answer, about half the store's work per message (bench ingest --protocol m3da).
 * A busy MQTT ingest writes batches of a thousand and more, which never wait.
 */
const GATHER = { min: 256, ms: 5 }

/**
 * Passes the systems whose messages were committed to `onStored`, one call at a time: systems noted meanwhile wait
 * for the next call, together, so a busy ingest makes few calls (each is one query while no task waits for values).
 */
function storedNotices (onStored: IngestServiceDeps['onStored'], log: Logger) {
  let waiting = new Set<string>()
  let running = false
  async function drain (listener: NonNullable<typeof onStored>): Promise<void> {
    running = true
    while (waiting.size > 0) {
      const uids = [...waiting]
      waiting = new Set()
      await listener(uids).catch((err: unknown) => { log.warn({ err, systems: uids.length }, 'stored values not passed to the operations') })
    }
    running = false
  }
  return {
    note (systemUids: readonly string[]): void {
      if (onStored === undefined || systemUids.length === 0) return
      for (const uid of systemUids) waiting.add(uid)
      if (!running) drain(onStored).catch(() => {}) // drain() logs the listener's failures itself
    }
  }
}

/**
 * Stores device messages for every protocol (shared/style.md §2.6): one device message and its points per payload,
 * the latest value of each data id, and the System data fields, lastCommDate and commStatus of its system.
 * accept() resolves only after commit, so transports acknowledge after the store has the data.
 */
export function createIngestService ({ inTransaction, clock, log, options = {}, metrics = noMetrics, onAnswers, onStored, events, telemetry }: IngestServiceDeps) {
  const stats: IngestStats = { committedMessages: 0, committedPoints: 0, failedMessages: 0, batches: 0, refused: {} }

  // The acknowledged write: messages and their points only. Derived state (data_last, System data, lastCommDate)
  // follows in coalesced flushes (derived-state.ts), off the acknowledgement path.
  // A batch whose connection was lost is written again, and its devices wait for their acknowledgement meanwhile
  // (issue 8: the process survives a lost store connection and loses nothing acknowledged). Writing again is exact:
  // a message already stored (a COMMIT whose answer was lost) is skipped with its points.
  const storeRetry = {
    maxMs: options.storeRetryMs ?? 30_000,
    onRetry: (err: Error, attempt: number) => { if (attempt === 1) log.warn({ err }, 'store unavailable; writing again') }
  }

  const stored = storedNotices(onStored, log)

  /** The points of the messages that `keep` keeps, as rows. */
  const pointRows = (msgs: readonly DeviceMessage[], keep: (m: DeviceMessage) => boolean): PointRow[] => {
    const points: PointRow[] = []
    for (const m of msgs) {
      if (!keep(m)) continue
      for (const p of m.points) points.push({ systemUid: m.systemUid, dataId: p.dataId, ts: p.ts, value: p.value, messageUid: m.uid })
    }
    return points
  }

  async function write (msgs: DeviceMessage[]): Promise<Array<Error | undefined>> {
    const rows = msgs.map((m) => ({ uid: m.uid, systemUid: m.systemUid, protocol: m.protocol, ts: m.timestamp, receivedAt: m.receivedAt, nbDataPoints: m.nbDataPoints }))
    let attempts = 0
    const attempt = async (pipelined: boolean): Promise<{ known: Map<string, string>, inserted: Set<string> }> => await retryWhileUnavailable(async () => await inTransaction(async (tx) => {
      const again = attempts++ > 0
      if (pipelined && !again) {
        // The first attempt sends the messages and all their points at once, without waiting for the messages'
        // answer (which systems exist): the store runs one statement while this thread prepares the next, instead of
        // waiting for it (bench ingest, PGlite: its thread stood idle 12 % of the time between a batch's statements).
        // A system deleted meanwhile is rare: then the transaction is rolled back and written again in steps below.
        const [stored] = await settledInOrder([tx.telemetry.insertMessages(rows, { again: false }), tx.telemetry.insertPoints(pointRows(msgs, () => true))])
        if (msgs.some((m) => !stored.known.has(m.systemUid))) throw new UnknownSystemInBatch()
        return { known: stored.known, inserted: new Set(stored.inserted) }
      }
      const stored = await tx.telemetry.insertMessages(rows, { again })
      const inserted = new Set(stored.inserted)
      await tx.telemetry.insertPoints(pointRows(msgs, (m) => inserted.has(m.uid)))
      return { known: stored.known, inserted }
    }), storeRetry)
    const out = await attempt(true).catch(async (err: unknown) => {
      if (!(err instanceof UnknownSystemInBatch)) throw err
      // Rolled back: nothing of it is stored, so the next attempt is a first one again.
      attempts = 0
      return await attempt(false)
    })
    const { known, inserted } = out
    const results = msgs.map((m) => known.has(m.systemUid) ? undefined : new FleetError('system.unknown', [m.systemUid]))
    stored.note(msgs.filter((m, i) => results[i] === undefined).map((m) => m.systemUid))
    if (inserted.size > 0) folds.note()
    // Live stream (issue 15): the messages stored now, with their points, under the company that holds their system.
    if (events?.listening() === true) events.publish(msgs.flatMap((m) => inserted.has(m.uid) ? [messageEvent(m, known.get(m.systemUid) ?? m.companyUid)] : []))
    return results
  }

  const derived = createDerivedState({ inTransaction, log, options: { flushMs: options.derivedFlushMs }, events })
  const folds = createRollupFolds({ inTransaction, telemetry, log })
  folds.note() // increments a stopped process left behind

  const commits = createGroupCommit<DeviceMessage>({
    write,
    maxBatch: options.maxBatch ?? 2000,
    maxPending: options.maxPending ?? 20_000,
    parallel: options.parallel ?? 1,
    failsWhole: isStoreUnavailable,
    gather: options.gather ?? GATHER,
    onBatch: (n, ms) => {
      stats.batches++
      m.batchSize.observe({}, n)
      m.commitSeconds.observe({}, ms / 1000)
      log.trace({ size: n }, 'ingest batch')
    }
  })
  const buffer = createBufferBytes(options.maxPendingBytes ?? 128 * 1024 * 1024)
  const m = ingestMetrics(metrics, () => commits.pending(), buffer.held)

  /**
   * Stores the message; resolves after commit. @throws system.unknown when the system was deleted meanwhile;
   * service.unavailable at once while the buffer is full (buffer-bytes.ts: the device sends it again)
   */
  async function accept (msg: DeviceMessage): Promise<void> {
    // A float NaN or infinity (M3DA and Sparkplug carry IEEE floats; JSON payloads cannot) is stored as a null value:
    // JSON answers have no way to write it, and it is no reading to fold into a mean.
    if (msg.points.some((p) => typeof p.value === 'number' && !Number.isFinite(p.value))) {
      msg = { ...msg, points: msg.points.map((p) => typeof p.value === 'number' && !Number.isFinite(p.value) ? { ...p, value: null } : p) }
    }
    const bytes = messageBytes(msg)
    if (!buffer.take(bytes)) {
      refuse(msg.protocol, 'ingest.buffer.full')
      throw bufferFull()
    }
    try {
      await commits.submit(msg)
      derived.note(msg)
      stats.committedMessages++
      stats.committedPoints += msg.points.length
      m.accepted.inc({ protocol: msg.protocol })
    } catch (err) {
      stats.failedMessages++
      m.failed.inc({ protocol: msg.protocol })
      throw err
    } finally {
      buffer.release(bytes)
    }
  }

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
   * traffic (conventions.md §Data: lastCommDate on traffic): a REST device that only polls is communicating; its
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

  /** Counts a payload refused before storage (conventions.md §Devices: dropped and counted). */
  function refuse (protocol: string, reason: string): void {
    const key = `${protocol}:${reason}`
    stats.refused[key] = (stats.refused[key] ?? 0) + 1
    m.refused.inc({ protocol, reason })
  }

  /**
   * Records a device's acknowledgements (device_acks, every one as received) and answers its open device tasks in
   * one transaction (conventions.md §Device tasks: the ack ends the task); answers the device answers it closed. An
   * ack of an unknown task, of another system's task or of a task already answered closes nothing.
   *
   * Once committed, the answers go to `onAnswers` (the operations engine). A failure there is logged and not
   * thrown: the device's ack is stored and must not be sent again. The answer is not lost either: the device task
   * stays OK / ERROR (with the device's message) in the store, where the engine finds it again by reading the
   * states of the device tasks of its IN_PROGRESS operation tasks (repos.deviceTasks.states, then the rows) at its
   * recovery or timeout sweep. The same holds for a process that stops between the commit and this call, and for a
   * commit whose answer was lost and written again (the retry closes nothing the first try closed).
   */
  async function acceptAcks (systemUid: string, protocol: DeviceProtocol, acks: ReadonlyArray<{ uid: string, status: 'OK' | 'ERROR', message: string | null }>): Promise<DeviceAnswer[]> {
    const item: AckItem = { systemUid, protocol, acks, answers: [] }
    await ackCommits.submit(item)
    return item.answers
  }

  /**
   * The device's tasks to deliver over this protocol, oldest first, marked SENT; the device is communicating
   * (conventions.md §Data). `again` (a connection, a subscription, a poll) adds those delivered before and not
   * answered yet: a device may have lost them, and ignores one it already ran by its uid (§Device tasks); but not
   * those of `received`, which the device confirmed receiving (an MQTT PUBACK: the transport's own guarantee).
   */
  async function takeTasks (systemUid: string, protocol: DeviceProtocol, opts: { again?: boolean, received?: readonly string[] } = {}): Promise<DeviceTask[]> {
    const item: TakeItem = { systemUid, protocol, again: opts.again === true, received: opts.received ?? [], tasks: [] }
    await takeCommits.submit(item)
    return item.tasks
  }

  return {
    accept,
    refuse,
    acceptAcks,
    takeTasks,
    stats: (): IngestStats => ({ ...stats, refused: { ...stats.refused } }),
    pending: () => commits.pending(),
    /** Approximate bytes of the messages waiting for their commit (buffer-bytes.ts). */
    pendingBytes: buffer.held,
    /** Resolves once everything accepted is committed and its derived state written. */
    drain: async () => { await commits.drain(); await ackCommits.drain(); await takeCommits.drain(); await derived.flush(); await folds.fold() }
  }
}

export type IngestService = ReturnType<typeof createIngestService>
