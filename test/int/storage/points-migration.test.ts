// Migration 0020 (docs/store.md#points-partitions-and-retention) on a store that already holds points: they stay where
// they are (the old table becomes the default partition, indexes included), every query answers as before, and the
// upkeep then moves each month into a partition of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { createPointPartitionsService } from '../../../core/services/data/point-partitions.service.js'
import { migrate } from '../../../storage/migrate.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { emptyStore, migrateBefore } from '../../helpers/empty-store.js'
import { utc } from '../../helpers/telemetry.js'

const MIGRATION = '0020_points_partitions.sql'
const SYSTEM = 'sys-old'

let db: Db
let drop: () => Promise<void>

// Points of three months and one of a wild clock, and a number, a string, a boolean and a null among them.
const POINTS: Array<[string, number, number | null, string | null]> = [
  ['machine.temperature', utc('2025-11-30T23:59:59.999'), 20.5, null],
  ['machine.temperature', utc('2025-12-01T00:00:00'), 21, null],
  ['machine.temperature', utc('2026-01-15T12:00:00'), 22, null],
  ['machine.state', utc('2026-01-15T12:00:00'), null, 'RUNNING'],
  ['machine.door', utc('2026-01-15T12:00:00'), 1, 'true'],
  ['machine.nothing', utc('2026-01-15T12:00:00'), null, null],
  ['machine.temperature', utc('2100-01-01T00:00:00'), 99, null]
]

/** What the raw query answers for every data id over all time. */
async function rawAnswer (): Promise<unknown> {
  return await createRepositories(db).dataQueries.raw([SYSTEM], [...new Set(POINTS.map((p) => p[0]))].sort(), { from: -1e13, to: 1e13 }, 100)
}

beforeAll(async () => {
  ({ db, drop } = await emptyStore())
  await migrateBefore(db, MIGRATION)
  await db.query("INSERT INTO companies (uid, name, created_at) VALUES ('c-old', 'Old', 0)")
  await db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
    VALUES ($1, 'c-old', 'old', 'INVENTORY', 'READY', 'ACTIVE', 0, 0)`, [SYSTEM])
  await db.query(`INSERT INTO data_points (system_uid, data_id, ts, num, str, message_uid)
    SELECT $1, d, t, n, s, 'm-old' FROM unnest($2::text[], $3::int8[], $4::float8[], $5::text[]) AS x (d, t, n, s)`,
  [SYSTEM, POINTS.map((p) => p[0]), POINTS.map((p) => p[1]), POINTS.map((p) => p[2]), POINTS.map((p) => p[3])])
})
afterAll(async () => { await drop() })

describe('migration 0020', () => {
  let before: unknown

  it('applies on a store holding points, keeping them in the default partition with its indexes', async () => {
    before = await rawAnswer()
    expect(before).toHaveLength(POINTS.length)
    const applied = await migrate(db)
    expect(applied[0]).toBe(MIGRATION)
    const { rows } = await db.query<{ part: string, n: number }>('SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM data_points GROUP BY 1')
    expect(rows).toEqual([{ part: 'data_points_default', n: POINTS.length }])
    expect((await db.query<{ kind: string }>("SELECT relkind::text AS kind FROM pg_class WHERE relname = 'data_points'")).rows).toEqual([{ kind: 'p' }])
    // The parent's indexes hold the default partition's existing ones: attached, not built a second time.
    const { rows: idx } = await db.query<{ parent: string, child: string }>(
      `SELECT i.inhparent::regclass::text AS parent, i.inhrelid::regclass::text AS child FROM pg_inherits i
       WHERE i.inhparent IN ('data_points_series_idx'::regclass, 'data_points_message_idx'::regclass) ORDER BY 1`)
    expect(idx).toEqual([
      { parent: 'data_points_message_idx', child: 'data_points_default_message_idx' },
      { parent: 'data_points_series_idx', child: 'data_points_default_series_idx' }
    ])
    expect(await rawAnswer()).toEqual(before)
  })

  it('lets the upkeep move each month out of the default partition; the answers do not change', async () => {
    const partitions = createPointPartitionsService({
      repos: createRepositories(db),
      inTransaction: async (fn) => await db.transaction(async (tx) => await fn(createRepositories(tx))),
      clock: { now: () => utc('2026-01-20T00:00:00') },
      retentionDays: 0
    })
    const report = await partitions.upkeep()
    expect(report.created).toEqual(['202511', '202512', '202601', '202602', '202603'])
    expect(report.movedPoints).toBe(POINTS.length - 1)
    const { rows } = await db.query<{ part: string, n: number }>('SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM data_points GROUP BY 1 ORDER BY 1')
    expect(rows).toEqual([
      { part: 'data_points_default', n: 1 },
      { part: 'data_points_p202511', n: 1 },
      { part: 'data_points_p202512', n: 1 },
      { part: 'data_points_p202601', n: 4 }
    ])
    expect(await rawAnswer()).toEqual(before)
    expect(await createRepositories(db).dataQueries.messagePoints(SYSTEM, 'm-old')).toHaveLength(POINTS.length)
  })
})
