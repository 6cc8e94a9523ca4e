// The monthly points partitions and DATA_RETENTION_DAYS (docs/store.md#points-partitions-and-retention;
// storage/migrations/0020_points_partitions.sql, core/services/data/point-partitions.service.ts), on the store of
// the run: PGlite, or PostgreSQL with TEST_DATABASE_URL.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import type { UnitOfWork } from '../../../core/ports/store.js'
import type { Repositories } from '../../../core/ports/repositories.js'
import type { DataValue } from '../../../core/domain/device-message.js'
import { createPointPartitionsService } from '../../../core/services/data/point-partitions.service.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { createTestDb, type TestDb } from '../../helpers/test-db.js'
import { utc } from '../../helpers/telemetry.js'
import { eventually } from '../../helpers/devices.js'

const DAY = 86_400_000
let testDb: TestDb
let db: Db
let repos: Repositories
let inTransaction: UnitOfWork
const SYSTEM = 'sys-partitions'

/** The partitions of data_points by name, with their bounds as PostgreSQL shows them. */
async function partitions (): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string, bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
     JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'data_points'::regclass ORDER BY 1`)
  return Object.fromEntries(rows.map((r) => [r.name, r.bound]))
}

/** Where each point of the system is stored: ts → partition name. */
async function placement (): Promise<Record<number, string>> {
  const { rows } = await db.query<{ ts: number, part: string }>(
    'SELECT ts, tableoid::regclass::text AS part FROM data_points WHERE system_uid = $1 ORDER BY ts', [SYSTEM])
  return Object.fromEntries(rows.map((r) => [r.ts, r.part]))
}

/** Points written the way ingest writes them (the rollups too, where the store keeps them). */
async function addPoints (points: Array<{ ts: number, value?: DataValue, dataId?: string }>, messageUid = randomUUID()): Promise<string> {
  await inTransaction(async (r) => {
    await r.telemetry.insertPoints(points.map((p) => ({ systemUid: SYSTEM, dataId: p.dataId ?? 'machine.temperature', ts: p.ts, value: p.value ?? 1, messageUid })))
  })
  return messageUid
}

async function addMessage (ts: number): Promise<string> {
  const uid = randomUUID()
  await db.query('INSERT INTO device_messages (uid, system_uid, protocol, ts, received_at, nb_data_points) VALUES ($1, $2, \'MQTT\', $3, $3, 1)', [uid, SYSTEM, ts])
  await addPoints([{ ts }], uid)
  return uid
}

const JULY = { start: utc('2026-07-01T00:00:00'), end: utc('2026-08-01T00:00:00') }

const service = (now: number, retentionDays = 0) =>
  createPointPartitionsService({ repos, inTransaction, clock: { now: () => now }, retentionDays })

/** Back to the store as 0020 leaves it: no monthly partition, nothing stored. */
async function reset (): Promise<void> {
  for (const name of Object.keys(await partitions())) {
    if (name !== 'data_points_default') await db.exec(`ALTER TABLE data_points DETACH PARTITION ${name}; DROP TABLE ${name}`)
  }
  await db.exec('DELETE FROM data_points; DELETE FROM device_messages')
  for (const table of ['data_rollups', 'data_rollups_daily', 'data_rollup_deltas']) {
    const rollups = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table])
    if (rollups.rows[0]?.t !== null) await db.exec(`DELETE FROM ${table}`)
  }
}

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  repos = createRepositories(db)
  inTransaction = async (fn) => await db.transaction(async (tx) => await fn(createRepositories(tx)))
  await db.query("INSERT INTO companies (uid, name, created_at) VALUES ('co-partitions', 'Partitions', 0)")
  await db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
    VALUES ($1, 'co-partitions', 'partitions', 'INVENTORY', 'READY', 'ACTIVE', 0, 0)`, [SYSTEM])
})
afterAll(async () => { await testDb.drop() })
beforeEach(async () => { await reset() })

describe('partitions ahead', () => {
  const now = utc('2026-03-15T10:00:00')

  it('migration 0020 leaves one default partition; the upkeep creates the previous month to two ahead, in UTC month bounds', async () => {
    expect(await partitions()).toEqual({ data_points_default: 'DEFAULT' })
    const report = await service(now).upkeep()
    expect(report.created).toEqual(['202602', '202603', '202604', '202605'])
    expect(await partitions()).toEqual({
      data_points_default: 'DEFAULT',
      data_points_p202602: `FOR VALUES FROM ('${utc('2026-02-01T00:00:00')}') TO ('${utc('2026-03-01T00:00:00')}')`,
      data_points_p202603: `FOR VALUES FROM ('${utc('2026-03-01T00:00:00')}') TO ('${utc('2026-04-01T00:00:00')}')`,
      data_points_p202604: `FOR VALUES FROM ('${utc('2026-04-01T00:00:00')}') TO ('${utc('2026-05-01T00:00:00')}')`,
      data_points_p202605: `FOR VALUES FROM ('${utc('2026-05-01T00:00:00')}') TO ('${utc('2026-06-01T00:00:00')}')`
    })
  })

  it('is idempotent: a second run, or one a month later, creates only what is missing', async () => {
    await service(now).upkeep()
    const again = await service(now).upkeep()
    expect(again).toEqual({ created: [], dropped: [], movedPoints: 0, deletedPoints: 0, deletedMessages: 0 })
    expect((await service(now + 31 * DAY).upkeep()).created).toEqual(['202606'])
    // The repository answers "already there" for a partition that exists (a second process got there first).
    expect(await inTransaction(async (r) => await r.pointPartitions.create({ start: utc('2026-03-01T00:00:00'), end: utc('2026-04-01T00:00:00') }, { holdInserts: false }))).toBeUndefined()
  })

  it('creates only the months around now at start (ensureAhead): the job moves the others later', async () => {
    await addPoints([{ ts: utc('2025-07-04T00:00:00') }, { ts: now }])
    expect((await service(now).ensureAhead()).created).toEqual(['202602', '202603', '202604', '202605'])
    expect(await placement()).toEqual({ [utc('2025-07-04T00:00:00')]: 'data_points_default', [now]: 'data_points_p202603' })
    expect((await service(now, 40).ensureAhead()).created).toEqual([])
    expect((await service(now).upkeep()).created).toEqual(['202507'])
  })

  it('gives each partition the indexes of the parent', async () => {
    await service(now).upkeep()
    const { rows } = await db.query<{ idx: string }>(
      'SELECT pg_get_indexdef(x.indexrelid) AS idx FROM pg_index x WHERE x.indrelid = \'data_points_p202603\'::regclass ORDER BY 1')
    expect(rows.map((r) => r.idx.replace(/^.* USING /, ''))).toEqual(['btree (message_uid)', 'btree (system_uid, data_id, ts DESC)'])
  })

  it('writes a point of now straight into its month', async () => {
    await service(now).upkeep()
    await addPoints([{ ts: now }, { ts: utc('2026-05-31T23:59:59.999') }, { ts: utc('2026-02-01T00:00:00') }])
    expect(await placement()).toEqual({
      [utc('2026-02-01T00:00:00')]: 'data_points_p202602',
      [now]: 'data_points_p202603',
      [utc('2026-05-31T23:59:59.999')]: 'data_points_p202605'
    })
  })
})

describe('the default partition', () => {
  const now = utc('2026-03-15T10:00:00')
  const odd = {
    before1970: -5000,
    epoch: 0,
    lastYear: utc('2025-07-04T08:00:00'),
    soon: utc('2026-09-30T23:59:59.999'),
    nextYear: utc('2027-03-31T23:59:59.999'),
    farAhead: utc('2027-04-01T00:00:00'),
    year2100: utc('2100-01-01T00:00:00')
  }

  it('stores a point of any timestamp; the upkeep moves the months it holds into partitions of their own', async () => {
    await service(now).upkeep()
    await addPoints(Object.values(odd).map((ts) => ({ ts, value: ts })))
    const before = await placement()
    expect(new Set(Object.values(before))).toEqual(new Set(['data_points_default']))
    const report = await service(now).upkeep()
    expect(report.created).toEqual(['197001', '202507', '202609', '202703'])
    expect(report.movedPoints).toBe(4)
    // Before 1970 and beyond twelve months ahead stay in the default partition (core/domain/point-partitions.ts).
    expect(await placement()).toEqual({
      [odd.before1970]: 'data_points_default',
      [odd.epoch]: 'data_points_p197001',
      [odd.lastYear]: 'data_points_p202507',
      [odd.soon]: 'data_points_p202609',
      [odd.nextYear]: 'data_points_p202703',
      [odd.farAhead]: 'data_points_default',
      [odd.year2100]: 'data_points_default'
    })
    // Every point is still there with its value.
    const raw = await repos.dataQueries.raw([SYSTEM], ['machine.temperature'], { from: -1e13, to: 1e13 }, 100)
    expect(raw.map((p) => [p.ts, p.value]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(Object.values(odd).sort((a, b) => a - b).map((ts) => [ts, ts]))
  })

  it('refuses a plain CREATE TABLE ... PARTITION OF while the default partition holds rows of its month; the upkeep moves them in one transaction', async () => {
    await addPoints([{ ts: utc('2026-07-10T00:00:00') }, { ts: utc('2026-07-20T00:00:00') }])
    await expect(db.exec(`CREATE TABLE data_points_tmp PARTITION OF data_points FOR VALUES FROM (${utc('2026-07-01T00:00:00')}) TO (${utc('2026-08-01T00:00:00')})`))
      .rejects.toThrow(/default partition/)
    expect(Object.keys(await partitions())).toEqual(['data_points_default'])
    const moved = await inTransaction(async (r) => await r.pointPartitions.create(JULY, { holdInserts: false }))
    expect(moved).toBe(2)
    expect(new Set(Object.values(await placement()))).toEqual(new Set(['data_points_p202607']))
  })

  it('leaves no trace of a creation that failed: the rows stay in the default partition', async () => {
    await addPoints([{ ts: utc('2026-07-10T00:00:00') }])
    // The table name is taken: the CREATE TABLE fails after the locks, and the transaction is rolled back.
    await db.exec('CREATE TABLE data_points_p202607 (x int)')
    await expect(service(now).upkeep()).rejects.toThrow()
    await db.exec('DROP TABLE data_points_p202607')
    expect(await placement()).toEqual({ [utc('2026-07-10T00:00:00')]: 'data_points_default' })
    // The next run does it.
    expect((await service(now).upkeep()).created).toContain('202607')
    expect(await placement()).toEqual({ [utc('2026-07-10T00:00:00')]: 'data_points_p202607' })
  })
})

describe('inserts while a partition is created', () => {
  const now = utc('2026-07-15T10:00:00')
  const first = JULY.start + 1000
  const during = JULY.start + 2000

  /** Until another session of the store waits for a lock (PostgreSQL: an insert held back by the creation). */
  async function someoneWaits (): Promise<void> {
    await eventually(async () => (await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0]?.n !== 0,
    10_000, 'an insert waiting for the creation')
  }

  it('holds back the inserts of a month ingest writes to until its partition is attached: they go there, none refused', async () => {
    await addPoints([{ ts: first }])
    if (db.kind === 'pglite') {
      // One connection: nothing runs beside the transaction; the insert after it goes to the new partition.
      expect(await inTransaction(async (r) => await r.pointPartitions.create(JULY, { holdInserts: true }))).toBe(1)
      await addPoints([{ ts: during }])
    } else {
      let insert: Promise<unknown> = Promise.resolve()
      const moved = await inTransaction(async (r) => {
        const n = await r.pointPartitions.create(JULY, { holdInserts: true })
        insert = addPoints([{ ts: during }]) // another connection, while this transaction holds its locks
        await someoneWaits()
        return n
      })
      await insert
      expect(moved).toBe(1)
    }
    expect(await placement()).toEqual({ [first]: 'data_points_p202607', [during]: 'data_points_p202607' })
  })

  it('lets ingest into the other partitions go on while an old month moves; a point of that very month is refused, not misplaced', async () => {
    await service(now).upkeep()
    const late = utc('2025-02-10T00:00:00')
    await addPoints([{ ts: late }])
    const february = { start: utc('2025-02-01T00:00:00'), end: utc('2025-03-01T00:00:00') }
    if (db.kind === 'pglite') {
      expect(await inTransaction(async (r) => await r.pointPartitions.create(february, { holdInserts: false }))).toBe(1)
      await addPoints([{ ts: now }])
    } else {
      let sameMonth: Promise<unknown> = Promise.resolve()
      await inTransaction(async (r) => {
        await r.pointPartitions.create(february, { holdInserts: false })
        // Now's month has its partition: its insert commits while the move is not committed yet.
        await addPoints([{ ts: now }])
        sameMonth = addPoints([{ ts: late + 1 }]).then(() => 'stored', (err: Error) => err.message)
        await someoneWaits()
      })
      // Routed to the default partition before the ATTACH, then held back: PostgreSQL refuses the row rather than
      // leave it in the wrong partition (the ingest writes such a batch again message by message, see the repository).
      expect(await sameMonth).toMatch(/partition constraint/)
    }
    expect(await placement()).toEqual({ [late]: 'data_points_p202502', [now]: 'data_points_p202607' })
  })
})

describe('retention', () => {
  const now = utc('2026-03-15T10:00:00')
  // 60 days before now is 2026-01-14: January is kept whole, December 2025 and older expire.
  const RETENTION = 60

  async function rollupHours (): Promise<number[] | undefined> {
    const { rows: [t] } = await db.query<{ t: string | null }>("SELECT to_regclass('data_rollups')::text AS t")
    if (t?.t === null) return undefined
    // The increments of the points written are folded into their hours first (0027_data_rollups_daily.sql).
    const { rows: [d] } = await db.query<{ t: string | null }>("SELECT to_regclass('data_rollup_deltas')::text AS t")
    if (d?.t !== null) await db.transaction(async (tx) => { await createRepositories(tx).telemetry.foldRollups(1_000_000) })
    return (await db.query<{ hour: number }>('SELECT hour FROM data_rollups WHERE system_uid = $1 ORDER BY hour', [SYSTEM])).rows.map((r) => r.hour)
  }

  it('keeps everything by default (DATA_RETENTION_DAYS 0)', async () => {
    await service(utc('2025-10-15T00:00:00')).upkeep()
    await addPoints([{ ts: utc('2025-10-20T00:00:00') }, { ts: -1 }])
    const report = await service(now + 3650 * DAY).upkeep()
    expect(report.dropped).toEqual([])
    expect(Object.keys(await placement())).toHaveLength(2)
  })

  it('drops the partitions whose month ended before now − retention and keeps the recent points, last values and rollups', async () => {
    await service(utc('2025-10-15T00:00:00')).upkeep() // 202509 .. 202512
    await service(now).upkeep() // 202602 .. 202605
    const old = [utc('2025-10-31T23:59:59.999'), utc('2025-12-31T23:59:59.999')]
    const kept = [utc('2026-01-01T00:00:00'), utc('2026-01-14T00:00:00'), now]
    const oldMessages = await Promise.all(old.map(addMessage))
    const keptMessages = await Promise.all(kept.map(addMessage))
    await addPoints([{ ts: -1 }, { ts: utc('2100-01-01T00:00:00') }]) // in the default partition
    await db.query("INSERT INTO data_last (system_uid, data_id, ts, num) VALUES ($1, 'machine.temperature', $2, 1)", [SYSTEM, old[0]])
    const rollupsBefore = await rollupHours()
    // Where the store keeps rollups, the expired months have some: their staying is then a real check.
    if (rollupsBefore !== undefined) expect(rollupsBefore).toContain(Math.floor((old[0] as number) / 3_600_000) * 3_600_000)

    const report = await service(now, RETENTION).upkeep()
    expect(report.dropped).toEqual(['202509', '202510', '202511', '202512'])
    expect(report.deletedPoints).toBe(1) // the 1969 one in the default partition
    expect(report.deletedMessages).toBe(2)
    expect(report.created).toEqual(['202601']) // its points were in the default partition
    expect(Object.keys(await partitions()).sort()).toEqual(['data_points_default', 'data_points_p202601', 'data_points_p202602',
      'data_points_p202603', 'data_points_p202604', 'data_points_p202605'])
    expect(await placement()).toEqual({
      [kept[0] as number]: 'data_points_p202601',
      [kept[1] as number]: 'data_points_p202601',
      [now]: 'data_points_p202603',
      [utc('2100-01-01T00:00:00')]: 'data_points_default'
    })
    const messages = (await db.query<{ uid: string }>('SELECT uid FROM device_messages WHERE system_uid = $1', [SYSTEM])).rows.map((r) => r.uid)
    expect(messages.sort()).toEqual([...keptMessages].sort())
    expect(messages.some((m) => oldMessages.includes(m))).toBe(false)
    // Rollups (where the store has them) and last values are not raw points: they stay.
    expect(await rollupHours()).toEqual(rollupsBefore)
    expect((await db.query('SELECT 1 FROM data_last WHERE system_uid = $1', [SYSTEM])).rows).toHaveLength(1)
    // A second run has nothing left to do.
    expect(await service(now, RETENTION).upkeep()).toEqual({ created: [], dropped: [], movedPoints: 0, deletedPoints: 0, deletedMessages: 0 })
  })

  it('does not create partitions past the horizon: their points are deleted instead', async () => {
    // 10 days before now is 2026-03-05: February is past the horizon, though it is the month before the current one.
    await addPoints([{ ts: utc('2025-06-01T00:00:00') }, { ts: utc('2026-02-20T00:00:00') }, { ts: utc('2026-03-01T00:00:00') }])
    const report = await service(now, 10).upkeep()
    expect(report.created).toEqual(['202603', '202604', '202605'])
    expect(report.deletedPoints).toBe(2)
    expect(await placement()).toEqual({ [utc('2026-03-01T00:00:00')]: 'data_points_p202603' })
  })

  it('deletes expired messages of every system, many systems in chunks', async () => {
    const uids = Array.from({ length: 1201 }, (_, i) => `sys-chunk-${String(i).padStart(4, '0')}`)
    await db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
      SELECT u, 'co-partitions', u, 'INVENTORY', 'READY', 'ACTIVE', 0, 0 FROM unnest($1::text[]) AS u`, [uids])
    await db.query(`INSERT INTO device_messages (uid, system_uid, protocol, ts, received_at, nb_data_points)
      SELECT 'm-' || u || '-' || t, u, 'MQTT', t, t, 0 FROM unnest($1::text[]) AS u, unnest($2::int8[]) AS t`, [uids, [utc('2025-01-01T00:00:00'), now]])
    const report = await service(now, RETENTION).upkeep()
    expect(report.deletedMessages).toBe(1201)
    const { rows } = await db.query<{ n: number, oldest: number }>('SELECT count(*)::int AS n, min(ts) AS oldest FROM device_messages WHERE system_uid LIKE $1', ['sys-chunk-%'])
    expect(rows[0]).toEqual({ n: 1201, oldest: now })
    await db.query("DELETE FROM systems WHERE uid LIKE 'sys-chunk-%'")
  })
})

describe('partition pruning', () => {
  const now = utc('2026-03-15T10:00:00')

  /** The repository's queries, each also EXPLAINed with the same parameters: the plans, in order. */
  function explaining (): { repos: Repositories, plans: string[] } {
    const plans: string[] = []
    const q = {
      async query<R> (sql: string, params?: readonly unknown[]) {
        const plan = await db.query<Record<string, string>>(`EXPLAIN ${sql}`, params)
        plans.push(plan.rows.map((r) => Object.values(r)[0]).join('\n'))
        return await db.query<R>(sql, params)
      }
    }
    return { repos: createRepositories(q), plans }
  }

  const partitionsIn = (plan: string): string[] => [...new Set(plan.match(/data_points_(p\d{6}|default)\b/g) ?? [])].sort()

  it('reads only the month\'s partition for a one-day raw query', async () => {
    await service(now).upkeep()
    await addPoints([{ ts: utc('2026-02-10T12:00:00'), value: 1 }, { ts: utc('2026-03-10T12:00:00'), value: 2 }, { ts: utc('2026-04-10T12:00:00'), value: 3 }])
    await db.exec('ANALYZE data_points')
    const { repos: r, plans } = explaining()
    const points = await r.dataQueries.raw([SYSTEM], ['machine.temperature'], { from: utc('2026-03-10T00:00:00'), to: utc('2026-03-11T00:00:00') }, 100)
    expect(points.map((p) => p.value)).toEqual([2])
    expect(plans).toHaveLength(1)
    expect(partitionsIn(plans[0] ?? '')).toEqual(['data_points_p202603'])
  })

  it('reads only the month\'s partition for the raw edges of a one-day aggregation, and answers from them', async () => {
    await service(now).upkeep()
    // From and to inside hours: the aggregation reads the raw points of those partial hours.
    await addPoints([{ ts: utc('2026-02-10T12:10:00'), value: 1 }, { ts: utc('2026-03-10T00:40:00'), value: 5 }, { ts: utc('2026-03-10T23:50:00'), value: 7 }])
    await db.exec('ANALYZE data_points')
    const { repos: r, plans } = explaining()
    const from = utc('2026-03-10T00:30:00')
    const rows = await r.dataQueries.aggregate({ targets: { systems: [SYSTEM] }, dataIds: ['machine.temperature'], usage: {}, buckets: [from], from, to: from + DAY, fn: 'max' })
    expect(rows).toEqual([{ key: SYSTEM, dataId: 'machine.temperature', bucket: 0, v: 7 }])
    const read = [...new Set(plans.flatMap(partitionsIn))]
    expect(read).toEqual(['data_points_p202603'])
  })

  it('reads the default partition too when the range reaches a month without partition', async () => {
    await service(now).upkeep()
    const { repos: r, plans } = explaining()
    await r.dataQueries.raw([SYSTEM], ['machine.temperature'], { from: utc('2026-05-31T00:00:00'), to: utc('2026-06-02T00:00:00') }, 100)
    expect(partitionsIn(plans[0] ?? '')).toEqual(['data_points_default', 'data_points_p202605'])
  })
})
