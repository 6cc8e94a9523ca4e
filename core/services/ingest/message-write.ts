// The acknowledged write of a batch of device messages: the messages and their points, in one transaction.
import { FleetError } from '../../errors.js'
import type { UnitOfWork } from '../../ports/store.js'
import type { DeviceMessage } from '../../domain/device-message.js'
import type { PointRow } from '../../ports/telemetry.js'
import { retryWhileUnavailable, type RetryOptions } from '../../store-errors.js'
import { settledInOrder } from '../../settled.js'

/** Rolls back a batch written at once that holds a message of a system not found (see writeMessages()). */
class UnknownSystemInBatch extends Error {}

/** The points of the messages that `keep` keeps, as rows. */
function pointRows (msgs: readonly DeviceMessage[], keep: (m: DeviceMessage) => boolean): PointRow[] {
  const points: PointRow[] = []
  for (const m of msgs) {
    if (!keep(m)) continue
    for (const p of m.points) points.push({ systemUid: m.systemUid, dataId: p.dataId, ts: p.ts, value: p.value, messageUid: m.uid })
  }
  return points
}

/** What a batch's write found: the systems known (with their company), and the messages inserted (not stored before). */
export interface WrittenBatch { known: Map<string, string>, inserted: Set<string>, results: Array<Error | undefined> }

/**
 * Writes the messages and their points; a message of a system not found is answered system.unknown. A batch whose
 * connection was lost is written again (storeRetry), exactly: a message already stored is skipped with its points.
 */
export async function writeMessages (inTransaction: UnitOfWork, storeRetry: RetryOptions, msgs: DeviceMessage[]): Promise<WrittenBatch> {
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
  const { known, inserted } = await attempt(true).catch(async (err: unknown) => {
    if (!(err instanceof UnknownSystemInBatch)) throw err
    // Rolled back: nothing of it is stored, so the next attempt is a first one again.
    attempts = 0
    return await attempt(false)
  })
  const results = msgs.map((m) => known.has(m.systemUid) ? undefined : new FleetError('system.unknown', [m.systemUid]))
  return { known, inserted, results }
}
