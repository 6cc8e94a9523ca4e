// PointPartitionsRepository (storage/repositories/point-partitions.repository.ts): DDL of the monthly partitions of
// data_points, the UTC months of the default partition, and the chunked delete of old messages.
import { expect } from 'vitest'
import { addMonths, monthOf } from '../../../core/domain/months.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { defineContract, newCompany, newSystem, uniq, type Store } from './store.js'

const JAN = monthOf(Date.UTC(2030, 0, 1))

async function point (store: Store, systemUid: string, ts: number): Promise<void> {
  await store.db.query("INSERT INTO data_points (system_uid, data_id, ts, num, str, message_uid) VALUES ($1, 'v', $2, 1, NULL, 'm')", [systemUid, ts])
}

export const pointPartitionsContract = defineContract('PointPartitionsRepository', {
  'creates a month\'s partition moving its points, once; answers the default partition\'s UTC months; drops it': async (store) => {
    const { repos, db } = store
    const s = await newSystem(repos, await newCompany(repos))
    const feb = addMonths(JAN, 1)
    // The last ms of January and the first of February, UTC, whatever the session's time zone.
    await point(store, s, JAN.end - 1)
    await point(store, s, JAN.start)
    await point(store, s, feb.start)
    expect(await repos.pointPartitions.defaultMonths(JAN.start, addMonths(JAN, 2).start)).toEqual([JAN, feb])
    expect(await repos.pointPartitions.defaultMonths(feb.start, feb.end)).toEqual([feb])
    const moved = await db.transaction(async (tx) => await createRepositories(tx).pointPartitions.create(JAN, { holdInserts: false }))
    expect(moved).toBe(2)
    expect(await db.transaction(async (tx) => await createRepositories(tx).pointPartitions.create(JAN, { holdInserts: true }))).toBeUndefined()
    expect(await repos.pointPartitions.months()).toContainEqual(JAN)
    expect(await repos.pointPartitions.defaultMonths(JAN.start, addMonths(JAN, 2).start)).toEqual([feb])
    // Points of the month now go to its partition, and read through data_points as before.
    await point(store, s, JAN.start + 5)
    expect((await db.query('SELECT count(*)::int AS n FROM data_points WHERE system_uid = $1', [s])).rows).toEqual([{ n: 4 }])
    expect(await db.transaction(async (tx) => await createRepositories(tx).pointPartitions.drop(JAN))).toBe(true)
    expect(await db.transaction(async (tx) => await createRepositories(tx).pointPartitions.drop(JAN))).toBe(false)
    expect(await repos.pointPartitions.months()).not.toContainEqual(JAN)
    expect((await db.query('SELECT count(*)::int AS n FROM data_points WHERE system_uid = $1', [s])).rows).toEqual([{ n: 1 }])
    expect(await repos.pointPartitions.deleteDefaultBefore(feb.start + 1)).toBeGreaterThanOrEqual(1)
    expect(await repos.pointPartitions.defaultMonths(feb.start, feb.end)).toEqual([])
  },

  'deletes old messages a chunk of systems at a time, in uid order': async ({ repos, db }) => {
    const co = await newCompany(repos)
    // Uids of one prefix: no system of another test sorts between them.
    const prefix = uniq('sys')
    const uids: string[] = []
    for (const n of [1, 2, 3]) uids.push(await newSystem(repos, co, { uid: `${prefix}-${n}` }))
    for (const s of uids) {
      await repos.telemetry.insertMessages([100, 200].map((ts) => ({ uid: uniq('m'), systemUid: s, protocol: 'MQTT', ts, receivedAt: ts, nbDataPoints: 0 })), { again: false })
    }
    const before = uids[0] === undefined ? null : (await db.query<{ uid: string }>('SELECT max(uid) AS uid FROM systems WHERE uid < $1', [uids[0]])).rows[0]?.uid ?? null
    const first = await repos.pointPartitions.deleteMessagesBefore(150, before, 2)
    expect(first).toEqual({ lastUid: uids[1], deleted: 2 })
    const second = await repos.pointPartitions.deleteMessagesBefore(150, first.lastUid, 1)
    expect(second).toEqual({ lastUid: uids[2], deleted: 1 })
    const left = await db.query<{ ts: number }>('SELECT ts FROM device_messages WHERE system_uid = ANY($1::text[]) ORDER BY ts', [uids])
    expect(left.rows.map((r) => r.ts)).toEqual([200, 200, 200])
  }
})
