// Migration 0026 (docs/store.md#rollups: daily rollups of the usage data ids) on a store that already holds usage
// records: it writes their rollups, the very rows a rebuild from the records writes, and the aggregations answer
// through them what they answer from the records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { AGGREGATE_FNS, USAGE_DATA_IDS, bucketsOf } from '../../../core/domain/aggregation.js'
import { migrate } from '../../../storage/migrate.js'
import { createDataQueriesRepository } from '../../../storage/repositories/data-queries.repository.js'
import { rebuildUsageRollups } from '../../../storage/repositories/usage-rollups.sql.js'
import { emptyStore, migrateBefore } from '../../helpers/empty-store.js'
import { utc } from '../../helpers/telemetry.js'

const MIGRATION = '0026_usage_rollups.sql'
const SYSTEMS = ['sys-a', 'sys-b']
const D = 86_400_000

let db: Db
let drop: () => Promise<void>

// A session with an interim record and its final one across midnight, a second session whose earlier interim record
// was stored last, calls, SMS (one without a processing date), MSU, and a counter left empty.
const RECORDS: Array<[string, string, string, number, number | null, number | null, boolean, number | null, number | null, number | null]> = [
  // system, uid, type, start, end, processed_at, partial, bytes_total, rounded_bytes_total, rounded_duration
  ['sys-a', 's1', 'DATA', utc('2025-01-31T23:00:00'), utc('2025-01-31T23:00:00'), utc('2025-02-01T00:10:00'), true, 1500, 2048, null],
  ['sys-a', 's1', 'DATA', utc('2025-01-31T23:00:00'), utc('2025-02-01T01:00:00.250'), utc('2025-02-01T02:00:00'), false, 700, 1024, null],
  ['sys-a', 's2', 'DATA', utc('2025-02-01T10:00:00'), utc('2025-02-01T11:00:00'), utc('2025-02-01T12:00:00'), false, null, null, null],
  ['sys-a', 's2', 'DATA', utc('2025-01-30T08:00:00'), utc('2025-01-30T08:00:00'), utc('2025-01-30T09:00:00'), true, 10, 1024, null],
  ['sys-a', 'c1', 'VOICE_OUT', utc('2025-02-01T09:00:00'), utc('2025-02-01T09:01:01'), utc('2025-02-02T00:00:00'), false, null, null, 120],
  ['sys-b', 'c2', 'VOICE_IN', utc('2025-01-31T12:00:00'), utc('2025-01-31T12:00:30.5'), utc('2025-01-31T13:00:00'), false, null, null, 60],
  ['sys-b', 'm1', 'SMS_SENT', utc('2025-02-01T00:00:00'), null, null, false, null, null, null],
  ['sys-b', 'm2', 'SMS_RECEIVED', utc('2025-01-31T23:59:59.999'), null, utc('2025-02-01T00:00:00'), false, null, null, null],
  ['sys-b', 'u1', 'MSU', utc('2025-02-03T05:00:00'), null, utc('2025-02-03T05:00:01'), false, null, null, null]
]

async function rollupRows (): Promise<string[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT system_uid, data_id, day, n, trim_scale(sum) AS sum, trim_scale(ss) AS ss, trim_scale(min) AS min, trim_scale(max) AS max
     FROM usage_rollups ORDER BY system_uid, data_id, day`)
  return rows.map((r) => Object.values(r).map(String).join(' '))
}

beforeAll(async () => {
  ({ db, drop } = await emptyStore())
  await migrateBefore(db, MIGRATION)
  await db.query("INSERT INTO companies (uid, name, created_at) VALUES ('c-old', 'Old', 0)")
  for (const s of SYSTEMS) {
    await db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
      VALUES ($1, 'c-old', $1, 'INVENTORY', 'READY', 'ACTIVE', 0, 0)`, [s])
  }
  for (const [system, uid, type, start, end, processed, partial, total, rounded, duration] of RECORDS) {
    await db.query(`INSERT INTO usage_records (system_uid, uid, type, start_ts, end_ts, processed_at, partial, bytes_total, rounded_bytes_total, rounded_duration)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [system, uid, type, start, end, processed, partial, total, rounded, duration])
  }
})
afterAll(async () => { await drop() })

describe('migration 0026', () => {
  it('writes the rollups of the records already stored: the rows a rebuild writes', async () => {
    expect((await migrate(db))[0]).toBe(MIGRATION)
    const migrated = await rollupRows()
    // Every series of every record, on its day: DATA 6, VOICE 3, SMS 2 each, MSU 2 (some share a day).
    expect(migrated.length).toBeGreaterThan(15)
    expect(migrated).toContain(`sys-a DATA_SESSION ${utc('2025-01-30T00:00:00')} 1 1 1 1 1`)
    expect(migrated).toContain(`sys-a DATA_SESSION ${utc('2025-02-01T00:00:00')} 0 0 0 null null`)
    await db.transaction(async (tx) => { await rebuildUsageRollups(tx) })
    expect(await rollupRows()).toEqual(migrated)
  })

  it('answers through them what the records answer', async () => {
    const from = utc('2025-01-29T00:00:00')
    const to = utc('2025-02-05T00:00:00')
    const rollups = createDataQueriesRepository(db)
    const raw = createDataQueriesRepository(db, { rollups: false })
    for (const unit of ['day', 'month'] as const) {
      const buckets = bucketsOf(from, to, { n: 1, unit }, 500)
      for (const fn of AGGREGATE_FNS) {
        for (const [lo, hi] of [[from, to], [from + 1, to - 3 * D + 7]]) {
          const q = { targets: { systems: SYSTEMS }, dataIds: [], usage: { ...USAGE_DATA_IDS }, buckets, from: lo ?? from, to: hi ?? to, fn }
          const sort = (rows: Array<{ key: string, dataId: string, bucket: number, v: number | null }>): unknown[] =>
            rows.filter((r) => r.bucket >= 0).sort((a, b) => `${a.key} ${a.dataId} ${a.bucket}`.localeCompare(`${b.key} ${b.dataId} ${b.bucket}`))
          const a = sort(await rollups.aggregate(q))
          const b = sort(await raw.aggregate(q))
          // stddev rounds differently on the two paths (usage-aggregate.sql.ts); everything else here is exact.
          if (fn === 'stddev') expect(a.length).toBe(b.length)
          else expect(a, `${unit} ${fn} ${lo} ${hi}`).toEqual(b)
        }
      }
    }
  })
})
