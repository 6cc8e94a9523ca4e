// Tells the operations engine which systems' device messages were just committed (IngestServiceDeps.onStored).
import type { Logger } from '../../logger.js'

/**
 * Passes the systems whose messages were committed to `onStored`, one call at a time: systems noted meanwhile wait
 * for the next call, together, so a busy ingest makes few calls (each is one query while no task waits for values).
 */
export function storedNotices (onStored: ((systemUids: readonly string[]) => Promise<void>) | undefined, log: Logger): { note: (systemUids: readonly string[]) => void } {
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
