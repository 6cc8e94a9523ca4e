// An operation as the API answers it (docs/operations.md#bulk-operations), for the operations pages; no DOM here, so
// the pure parts of the pages (rollout-text.ts) are unit-tested under Node.
export interface Counter { state: string, count: number }
export interface Operation {
  uid: string
  operationType: string
  state: string
  createdAt: number
  startDate: number | null
  scheduledTime: number | null
  endDate: number | null
  cancelDate: number | null
  timeoutDate: number
  total: number
  target: string | null
  counters: Counter[]
  user: { uid: string, email: string | null } | null
  parameters: Record<string, unknown>
  abortedBy: AbortedBy | null
  /** The safe rollout's policy and where it stands (docs/operations.md#safe-rollouts); null without one. */
  rollout?: Rollout | null
}

/** Why a rollout stopped: its failure threshold, or a wave that could no longer reach its share of successes. */
export type AbortedBy =
  | { reason: 'failure.threshold', failurePercent: number, minTasks?: number, ended: number, failed: number }
  | { reason: 'wave.failed', wave: number, waveSuccessPercent: number, size: number, needed: number, succeeded: number, failed: number }

export interface Rollout {
  maxPerMinute: number | null
  /** Cumulative percents of the systems, the last one 100. */
  waves: number[] | null
  waveSuccessPercent: number | null
  abort: { failurePercent: number, minFinished: number } | null
  maintenanceWindow: { start: string, end: string, timeZone: string } | null
  /** The wave open now, from 1. */
  wave: number | null
  /** Tasks sent to their devices so far. */
  sent: number
  /** When the next task may leave (a spent pace, a closed window). */
  nextAt: number | null
  paused: boolean
}
