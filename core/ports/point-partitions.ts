// The monthly partitions of the data points (storage/migrations/0020_points_partitions.sql): what the upkeep job
// (core/services/data/point-partitions.service.ts) needs from the store.
import type { Month } from '../domain/months.js'

export interface PointPartitionsRepository {
  /** The months that have a partition of their own (the default partition is not one of them). */
  months (): Promise<Month[]>
  /** The months of the points the default partition holds in [from, to). */
  defaultMonths (from: number, to: number): Promise<Month[]>
  /**
   * Creates the month's partition and moves into it the points of that month the default partition holds, in the
   * caller's transaction (which must be one). Answers the points moved, or undefined when the partition existed.
   * `holdInserts`: every insert into data_points waits for the commit, for a month that ingest writes to now (see
   * the repository); otherwise only inserts into the default partition wait.
   */
  create (month: Month, opts: { holdInserts: boolean }): Promise<number | undefined>
  /** Detaches and drops the month's partition with its points; false when there was none. */
  drop (month: Month): Promise<boolean>
  /** Deletes the default partition's points older than `before`; answers how many. */
  deleteDefaultBefore (before: number): Promise<number>
  /**
   * Deletes the device messages older than `before` of the next `limit` systems in uid order after `afterUid`
   * (null: from the first): answers the last system uid seen (null when none was left) and the messages deleted.
   */
  deleteMessagesBefore (before: number, afterUid: string | null, limit: number): Promise<{ lastUid: string | null, deleted: number }>
}
