// TelemetryRepository (storage/repositories/telemetry.repository.ts), the ingest's writes: unnest() of typed arrays
// (storage/sql-arrays.ts), JSON record sets, values encoded as num/str, the comm status sweep (its candidates, the heartbeats it reads, its compare-and-set).
import { expect } from 'vitest'
import { createRepositories } from '../../../storage/repositories/index.js'
import { createTelemetryRepository } from '../../../storage/repositories/telemetry.repository.js'
import type { Queryable } from '../../../core/ports/store.js'
import { newCompany, newSystem, uniq, defineContract } from './store.js'

export const telemetryContract = defineContract('TelemetryRepository', {

  'inserts the messages of existing systems only, and skips stored uids when written again': async ({ repos }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const msg = (systemUid: string, uid = uniq('m')): { uid: string, systemUid: string, protocol: string, ts: number, receivedAt: number, nbDataPoints: number } =>
      ({ uid, systemUid, protocol: 'MQTT', ts: 1_767_225_600_123, receivedAt: 1_767_225_600_200, nbDataPoints: 2 })
    const [m1, gone] = [msg(s), msg('deleted-system')]
    const first = await repos.telemetry.insertMessages([m1, gone], { again: false })
    expect(first).toEqual({ known: new Map([[s, co]]), inserted: [m1.uid] })
    const m2 = msg(s)
    const again = await repos.telemetry.insertMessages([m1, m2], { again: true })
    expect(again).toEqual({ known: new Map([[s, co]]), inserted: [m2.uid] })
    await expect(repos.telemetry.insertMessages([m1], { again: false })).rejects.toMatchObject({ code: '23505' })
    expect(await repos.telemetry.insertMessages([], { again: false })).toEqual({ known: new Map(), inserted: [] })
    expect(await repos.dataQueries.message(s, m2.uid)).toEqual({ uid: m2.uid, timestamp: 1_767_225_600_123, protocol: 'MQTT', nbDataPoints: 2 })
  },

  'locks the systems in uid order, creating a missing state row, and updates System data without going back in time': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const a = await newSystem(repos, co)
    const b = await newSystem(repos, co)
    await db.query('DELETE FROM system_state WHERE system_uid = $1', [b]) // as a system inserted behind the repositories
    const locked = await db.transaction(async (tx) => await createRepositories(tx).telemetry.lockSystems([b, a, b, 'none']))
    expect(locked.map((r) => r.uid)).toEqual([a, b].sort())
    expect(locked.find((r) => r.uid === b)).toEqual({ uid: b, companyUid: co, commStatus: 'UNDEFINED', lastCommDate: null, data: {}, dataTs: {} })
    await repos.telemetry.updateSystems([{ uid: a, data: { rssi: -60, name: 'é"' }, dataTs: { rssi: 9000 }, lastCommDate: 9000 }])
    await repos.telemetry.updateSystems([{ uid: a, data: { rssi: -61 }, dataTs: { rssi: 8000 }, lastCommDate: 8000 }])
    const [st] = await repos.telemetry.lockSystems([a])
    expect(st).toEqual({ uid: a, companyUid: co, commStatus: 'OK', lastCommDate: 9000, data: { rssi: -61 }, dataTs: { rssi: 8000 } })
  },

  'keeps the latest point of each data id, booleans and strings encoded, NULL for no value': async ({ repos }) => {
    const s = await newSystem(repos, await newCompany(repos))
    await repos.telemetry.upsertLast([
      { systemUid: s, dataId: 'a.num', ts: 200, value: 1.25 },
      { systemUid: s, dataId: 'a.bool', ts: 200, value: false },
      { systemUid: s, dataId: 'b.str', ts: 200, value: 'x,"y"' },
      { systemUid: s, dataId: 'a_null', ts: 200, value: null }
    ])
    await repos.telemetry.upsertLast([{ systemUid: s, dataId: 'a.num', ts: 100, value: 9 }, { systemUid: s, dataId: 'a.bool', ts: 300, value: true }])
    await repos.telemetry.upsertLast([])
    expect(await repos.dataQueries.last(s, { all: true })).toEqual([
      { dataId: 'a.bool', ts: 300, value: true }, { dataId: 'a.num', ts: 200, value: 1.25 },
      { dataId: 'a_null', ts: 200, value: null }, { dataId: 'b.str', ts: 200, value: 'x,"y"' }])
    // The prefix is taken literally: '_' is no wildcard.
    expect((await repos.dataQueries.last(s, { prefix: 'a.' })).map((p) => p.dataId)).toEqual(['a.bool', 'a.num'])
    expect((await repos.dataQueries.last(s, { prefix: 'a_' })).map((p) => p.dataId)).toEqual(['a_null'])
    expect((await repos.dataQueries.last(s, { ids: ['b.str', 'zz'] })).map((p) => p.dataId)).toEqual(['b.str'])
  },

  'records acks, answers the data ids received since a time and the mobile numbers of systems': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const m = uniq('m')
    await repos.telemetry.insertMessages([{ uid: m, systemUid: s, protocol: 'REST', ts: 500, receivedAt: 1000, nbDataPoints: 2 }], { again: false })
    await repos.telemetry.insertPoints([
      { systemUid: s, dataId: 'x', ts: 500, value: 1, messageUid: m }, { systemUid: s, dataId: 'y', ts: 500, value: 'on', messageUid: m }])
    expect((await repos.telemetry.receivedIds(s, ['x', 'y', 'z'], 1000)).sort()).toEqual(['x', 'y'])
    expect(await repos.telemetry.receivedIds(s, ['x'], 1001)).toEqual([])
    expect(await repos.telemetry.receivedIds(s, [], 0)).toEqual([])
    await repos.telemetry.insertAcks([{ systemUid: s, taskUid: 't1', status: 'ERROR', message: null, protocol: 'REST', receivedAt: 1_767_225_600_123 }])
    const acks = await db.query('SELECT task_uid, status, message, received_at FROM device_acks WHERE system_uid = $1', [s])
    expect(acks.rows).toEqual([{ task_uid: 't1', status: 'ERROR', message: null, received_at: 1_767_225_600_123 }])
    const sub = uniq('sub')
    await db.query(`INSERT INTO subscriptions (uid, company_uid, identifier, mobile_number, operator, state, creation_date)
      VALUES ($1, $2, $3, '+33600000000', 'UNKNOWN', 'INVENTORY', 1)`, [sub, co, uniq('8933')])
    const empty = uniq('sub')
    await db.query(`INSERT INTO subscriptions (uid, company_uid, identifier, mobile_number, operator, state, creation_date)
      VALUES ($1, $2, $3, '', 'UNKNOWN', 'INVENTORY', 1)`, [empty, co, uniq('8933')])
    await repos.systems.update(s, { subscriptionUid: sub })
    const other = await newSystem(repos, co, { subscriptionUid: empty })
    expect(await repos.telemetry.mobileNumbers([s, other])).toEqual(new Map([[s, '+33600000000']]))
  },

  'sweeps commStatus: WARNING past one period, ERROR past two, the heartbeat period and sla read from text': async ({ repos }) => {
    const co = await newCompany(repos)
    const now = 100_000_000
    const sys = async (ago: number, heartbeat: unknown): Promise<string> => {
      const uid = await newSystem(repos, co, { heartbeat })
      await repos.systems.update(uid, { lastCommDate: now - ago, commStatus: 'OK' })
      return uid
    }
    const fresh = await sys(30_000, null)
    const warn = await sys(90_000, null)
    const error = await sys(130_000, null)
    const hourly = await sys(90_000, { state: 'ON', period: ' 1H ' })
    const slaMin = await sys(150_000, { state: 'on', period: '1h', sla: { warning: '2min', error: '2 m' } })
    const off = await sys(130_000, { state: 'OFF', period: '1h' })
    const junk = await sys(90_000, { state: 'ON', period: '1 week' })
    const mine = new Set([fresh, warn, error, hourly, slaMin, off, junk])
    const changes = (await repos.telemetry.sweepCommStatus(now, 60_000)).filter((c) => mine.has(c.uid))
    expect(new Map(changes.map((c) => [c.uid, c.status]))).toEqual(new Map([[warn, 'WARNING'], [error, 'ERROR'], [slaMin, 'ERROR'], [off, 'ERROR'], [junk, 'WARNING']]))
    expect(changes.find((c) => c.uid === warn)).toEqual({ uid: warn, companyUid: co, status: 'WARNING', lastCommDate: now - 90_000 })
    expect((await repos.telemetry.sweepCommStatus(now, 60_000)).filter((c) => mine.has(c.uid))).toEqual([])
  },

  'sweeps commStatus: WARNING to ERROR, ERROR lowered by a grown delay, a failure newer than the last communication held': async ({ db, repos }) => {
    const co = await newCompany(repos)
    const now = 200_000_000
    const sys = async (ago: number, commStatus: 'OK' | 'WARNING' | 'ERROR', heartbeat: unknown = null, failedAgo?: number): Promise<string> => {
      const uid = await newSystem(repos, co, { heartbeat })
      await repos.systems.update(uid, { lastCommDate: now - ago, commStatus })
      if (failedAgo !== undefined) await db.query('UPDATE system_state SET data = data || jsonb_build_object(\'lastCommFailureDate\', $2::int8) WHERE system_uid = $1', [uid, now - failedAgo])
      return uid
    }
    const worse = await sys(130_000, 'WARNING')
    const sla = await sys(130_000, 'OK', { state: 'ON', period: '1min', sla: { warning: '100s', error: '1h' } })
    const longer = await sys(130_000, 'ERROR', { state: 'ON', period: '100s' })
    const held = await sys(30_000, 'ERROR', null, 10_000)
    const over = await sys(30_000, 'ERROR', null, 40_000)
    const dead = await sys(500_000, 'ERROR', { state: 'ON', period: 'soon' })
    const mine = new Set([worse, sla, longer, held, over, dead])
    const changes = (await repos.telemetry.sweepCommStatus(now, 60_000)).filter((c) => mine.has(c.uid))
    expect(new Map(changes.map((c) => [c.uid, c.status]))).toEqual(new Map([[worse, 'ERROR'], [sla, 'WARNING'], [longer, 'WARNING'], [over, 'OK']]))
    const { rows } = await db.query<{ system_uid: string, comm_status: string }>('SELECT system_uid, comm_status FROM system_state WHERE system_uid = ANY($1::text[])', [[held, dead]])
    expect(new Map(rows.map((r) => [r.system_uid, r.comm_status]))).toEqual(new Map([[held, 'ERROR'], [dead, 'ERROR']]))
  },

  'sweeps commStatus: a system heard from between the sweep\'s read and its write keeps OK': async ({ db, repos }) => {
    const co = await newCompany(repos)
    const now = 300_000_000
    const [heard, silent] = [await newSystem(repos, co), await newSystem(repos, co)]
    for (const uid of [heard, silent]) await repos.systems.update(uid, { lastCommDate: now - 90_000, commStatus: 'OK' })
    // The store the sweep runs on: its traffic arrives just before its write (the only UPDATE it sends).
    const racing: Queryable = {
      async query (sql, params) {
        if (sql.trimStart().startsWith('UPDATE')) await repos.telemetry.updateSystems([{ uid: heard, data: {}, dataTs: {}, lastCommDate: now }])
        return await db.query(sql, params)
      }
    }
    const changes = (await createTelemetryRepository(racing).sweepCommStatus(now, 60_000)).filter((c) => c.uid === heard || c.uid === silent)
    expect(changes).toEqual([{ uid: silent, companyUid: co, status: 'WARNING', lastCommDate: now - 90_000 }])
    const { rows } = await db.query<{ comm_status: string, last_comm_date: string }>('SELECT comm_status, last_comm_date FROM system_state WHERE system_uid = $1', [heard])
    expect(rows.map((r) => [r.comm_status, Number(r.last_comm_date)])).toEqual([['OK', now]])
  }
})
