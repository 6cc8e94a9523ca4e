// The ingest service: device messages (./message-ingest.ts) and the device side of device tasks, acks and takes
// (./device-task-ingest.ts), over one derived state (./derived-state.ts) and one rollup fold (./rollup-folds.ts).
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Logger } from '../../logger.js'
import { noMetrics, type MetricsRegistry } from '../../metrics.js'
import type { DeviceAnswers } from '../../ports/devices.js'
import type { TelemetryRepository } from '../../ports/telemetry.js'
import type { EventBus } from '../../ports/events.js'
import { createDerivedState } from './derived-state.js'
import { createRollupFolds } from './rollup-folds.js'
import { createMessageIngest } from './message-ingest.js'
import { createDeviceTaskIngest } from './device-task-ingest.js'
import type { AlertsRaised } from '../alerts/alerts-raised.js'

export type { IngestStats } from './message-ingest.js'

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
   * it asked for, docs/devices.md). Called off the acknowledgement path, one call at a time; a failure
   * is logged.
   */
  onStored?: (systemUids: readonly string[]) => Promise<void>
  /** Where committed messages and commStatus changes go (the live stream, core/ports/events.ts); absent: nowhere. */
  events?: EventBus
  /** Telemetry outside any transaction: the VACUUM of the rollup increments (rollup-folds.ts). */
  telemetry?: Pick<TelemetryRepository, 'vacuumRollupDeltas'>
  /**
   * Told the uids of the alerts a batch raised, after its commit and off the acknowledgement path (decision 0032: it
   * queues their notification); a failure is logged, and the alerts stay pending for the sweep. Absent: nobody.
   */
  onAlerts?: AlertsRaised
}

/**
 * Stores device messages for every protocol (docs/architecture.md#how-data-flows): one device message and its points
 * per payload, the latest value of each data id, and the System data fields, lastCommDate and commStatus of its system.
 * accept() resolves only after commit, so transports acknowledge after the store has the data.
 */
export function createIngestService ({ inTransaction, clock, log, options = {}, metrics = noMetrics, onAnswers, onStored, events, telemetry, onAlerts }: IngestServiceDeps) {
  // The acknowledged write: messages and their points only. Derived state (data_last, System data, lastCommDate)
  // follows in coalesced flushes (derived-state.ts), off the acknowledgement path.
  // A batch whose connection was lost is written again, and its devices wait for their acknowledgement meanwhile
  // (the process survives a lost store connection and loses nothing acknowledged). Writing again is exact:
  // a message already stored (a COMMIT whose answer was lost) is skipped with its points.
  const storeRetry = {
    maxMs: options.storeRetryMs ?? 30_000,
    onRetry: (err: Error, attempt: number) => { if (attempt === 1) log.warn({ err }, 'store unavailable; writing again') }
  }

  const derived = createDerivedState({ inTransaction, log, options: { flushMs: options.derivedFlushMs }, events })
  const folds = createRollupFolds({ inTransaction, telemetry, log })
  folds.note() // increments a stopped process left behind

  const messages = createMessageIngest({ inTransaction, log, metrics, storeRetry, options, derived, folds, onStored, events, now: () => clock.now(), onAlerts })
  const tasks = createDeviceTaskIngest({ inTransaction, clock, log, storeRetry, derived, onAnswers })

  return {
    accept: messages.accept,
    refuse: messages.refuse,
    acceptAcks: tasks.acceptAcks,
    takeTasks: tasks.takeTasks,
    stats: messages.stats,
    pending: messages.pending,
    /** Approximate bytes of the messages waiting for their commit (buffer-bytes.ts). */
    pendingBytes: messages.pendingBytes,
    /** Resolves once everything accepted is committed and its derived state written. */
    drain: async () => { await messages.drain(); await tasks.drain(); await derived.flush(); await folds.fold() }
  }
}

export type IngestService = ReturnType<typeof createIngestService>
