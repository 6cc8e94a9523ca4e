// Device messages in the ingest: accepted into the group commit (bounded by bytes and count), acknowledged after
// their commit, then folded into the derived state, the rollups and the live stream.
import type { UnitOfWork } from '../../ports/store.js'
import type { Logger } from '../../logger.js'
import type { MetricsRegistry } from '../../metrics.js'
import type { DeviceMessage } from '../../domain/device-message.js'
import type { EventBus } from '../../ports/events.js'
import { isStoreUnavailable, type RetryOptions } from '../../store-errors.js'
import { createGroupCommit } from './group-commit.js'
import type { DerivedState } from './derived-state.js'
import { messageEvent } from './ingest-events.js'
import { bufferFull, createBufferBytes, messageBytes } from './buffer-bytes.js'
import { ingestMetrics } from './ingest-metrics.js'
import { writeMessages } from './message-write.js'
import { storedNotices } from './stored-notices.js'
import type { AlertsRaised } from '../alerts/alerts-raised.js'

export interface IngestStats {
  committedMessages: number
  committedPoints: number
  failedMessages: number
  batches: number
  /** Payloads refused before storage, by protocol and reason (malformed, forbidden topic...). */
  refused: Record<string, number>
}

export interface MessageIngestOptions {
  maxBatch?: number | undefined
  maxPending?: number | undefined
  maxPendingBytes?: number | undefined
  parallel?: number | undefined
  gather?: { min: number, ms: number } | undefined
}

export interface MessageIngestDeps {
  inTransaction: UnitOfWork
  log: Logger
  metrics: MetricsRegistry
  storeRetry: RetryOptions
  options: MessageIngestOptions
  derived: DerivedState
  /** Told that rollup increments were written (rollup-folds.ts). */
  folds: { note: () => void }
  onStored?: ((systemUids: readonly string[]) => Promise<void>) | undefined
  events?: EventBus | undefined
  /** The time alert rules are evaluated at (message-write.ts). */
  now: () => number
  /** Told the alerts a batch raised, after its commit (IngestServiceDeps.onAlerts). */
  onAlerts?: AlertsRaised | undefined
}

/**
 * Messages of devices that wait for each answer (M3DA: one package in flight) are gathered into batches of a few
 * hundred: 5 ms more before their answer, about half the store's work per message (bench ingest --protocol m3da).
 * A busy MQTT ingest writes batches of a thousand and more, which never wait.
 */
const GATHER = { min: 256, ms: 5 }

/** A float NaN or infinity as a null value (see accept). */
function finitePoints (msg: DeviceMessage): DeviceMessage {
  if (!msg.points.some((p) => typeof p.value === 'number' && !Number.isFinite(p.value))) return msg
  return { ...msg, points: msg.points.map((p) => typeof p.value === 'number' && !Number.isFinite(p.value) ? { ...p, value: null } : p) }
}

export function createMessageIngest ({ inTransaction, log, metrics, storeRetry, options, derived, folds, onStored, events, now, onAlerts }: MessageIngestDeps) {
  const stats: IngestStats = { committedMessages: 0, committedPoints: 0, failedMessages: 0, batches: 0, refused: {} }
  const stored = storedNotices(onStored, log)

  async function write (msgs: DeviceMessage[]): Promise<Array<Error | undefined>> {
    const { known, inserted, results, alerts } = await writeMessages(inTransaction, storeRetry, msgs, now)
    // Off the acknowledgement path: an alert whose notice is lost here is still pending in the store, and the
    // periodic sweep passes it on (decision 0032).
    if (alerts.length > 0 && onAlerts !== undefined) onAlerts(alerts).catch((err: unknown) => { log.warn({ err, alerts: alerts.length }, 'raised alerts not passed on; the sweep will') })
    stored.note(msgs.filter((m, i) => results[i] === undefined).map((m) => m.systemUid))
    if (inserted.size > 0) folds.note()
    // Live stream: the messages stored now, with their points, under the company that holds their system.
    if (events?.listening() === true) events.publish(msgs.flatMap((m) => inserted.has(m.uid) ? [messageEvent(m, known.get(m.systemUid) ?? m.companyUid)] : []))
    return results
  }

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

  /** Counts a payload refused before storage (docs/devices.md: dropped and counted). */
  function refuse (protocol: string, reason: string): void {
    const key = `${protocol}:${reason}`
    stats.refused[key] = (stats.refused[key] ?? 0) + 1
    m.refused.inc({ protocol, reason })
  }

  /**
   * Stores the message; resolves after commit. @throws system.unknown when the system was deleted meanwhile;
   * service.unavailable at once while the buffer is full (buffer-bytes.ts: the device sends it again)
   */
  async function accept (msg: DeviceMessage): Promise<void> {
    // A float NaN or infinity (M3DA and Sparkplug carry IEEE floats; JSON payloads cannot) is stored as a null value:
    // JSON answers have no way to write it, and it is no reading to fold into a mean.
    msg = finitePoints(msg)
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

  return {
    accept,
    refuse,
    stats: (): IngestStats => ({ ...stats, refused: { ...stats.refused } }),
    pending: () => commits.pending(),
    /** Approximate bytes of the messages waiting for their commit (buffer-bytes.ts). */
    pendingBytes: buffer.held,
    drain: async (): Promise<void> => { await commits.drain() }
  }
}
