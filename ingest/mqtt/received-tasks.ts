// Tasks an MQTT device confirmed receiving: the PUBACK of the QoS 1 publish that carried them (MQTT 3.1.1 §4.3.2,
// MQTT 5.0 §4.3.2: the receiver has taken ownership of the message). A subscription to the tasks topic delivers
// again the tasks sent and not answered (a device may have lost them on a dropped connection), except those the
// device confirmed within the last RECENT_MS: a device that received its reboot task, went off and came back was
// sent it a second time and answered twice (bench reboot: one more publish, acknowledgement and statement per device
// of a fleet reboot). Past RECENT_MS a task still unanswered is sent again at the next subscription, as before: a
// device that lost what it had received (a crash) gets it back.
//
// Kept in this process's memory, bounded: forgetting (a restart, an eviction) only means a task is sent again, which
// a device ignores by its uid (docs/devices.md); it never means a task is not sent.

/** How long a confirmed task is not sent again: longer than a gateway takes to reboot. */
export const RECENT_MS = 120_000
/** Systems remembered at most; the least recently written are forgotten first. */
const MAX_SYSTEMS = 100_000
/** Task uids remembered per system, the latest kept. */
const MAX_PER_SYSTEM = 32

export interface ReceivedTasks {
  /** The device of the system acknowledged the publish that carried these tasks. */
  add (systemUid: string, taskUids: readonly string[]): void
  /** The tasks the system's device confirmed receiving lately (not to be sent again at its next subscription). */
  of (systemUid: string): string[]
}

export function createReceivedTasks (opts: { now?: () => number, recentMs?: number, maxSystems?: number } = {}): ReceivedTasks {
  const now = opts.now ?? Date.now
  const recentMs = opts.recentMs ?? RECENT_MS
  const maxSystems = opts.maxSystems ?? MAX_SYSTEMS
  const bySystem = new Map<string, Array<{ uid: string, at: number }>>()
  return {
    add (systemUid, taskUids) {
      if (taskUids.length === 0) return
      const at = now()
      const known = bySystem.get(systemUid) ?? []
      bySystem.delete(systemUid) // re-inserted last: the Map's order is the eviction order
      const kept = known.filter((k) => !taskUids.includes(k.uid) && at - k.at < recentMs)
      bySystem.set(systemUid, [...kept, ...taskUids.map((uid) => ({ uid, at }))].slice(-MAX_PER_SYSTEM))
      if (bySystem.size > maxSystems) bySystem.delete(bySystem.keys().next().value as string)
    },
    of (systemUid) {
      const at = now()
      return (bySystem.get(systemUid) ?? []).filter((k) => at - k.at < recentMs).map((k) => k.uid)
    }
  }
}
