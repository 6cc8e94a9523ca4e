// docs/store.md#rollups("Usage data ids get the same treatment"): the usage import (SYSTEM_IMPORT_USAGES) keeps the
// daily usage rollups exact as records arrive, a later import moving a session to the day of an earlier record of it,
// and imports of one system side by side too; deleting a system, one by one or in bulk, deletes its usage rollups;
// DATA_ROLLUPS=false answers from the records only. The answers themselves are held to the raw path's by
// test/slow/property/usage-rollups-property.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { createSystem } from '../../helpers/systems.js'
import { postDelete, started, waitFinished } from '../../helpers/operations.js'
import { utc } from '../../helpers/telemetry.js'
import type { Queryable } from '../../../core/ports/store.js'
import { rebuildUsageRollups } from '../../../storage/repositories/usage-rollups.sql.js'
import { csvOf, getJson, importUsage, postUsageCsv } from './usage-helpers.js'

const H = 3_600_000
const D = 24 * H
const T0 = utc('2025-03-01T00:00:00')
const HEADER = ['system', 'uid', 'type', 'start', 'end', 'partial', 'bytesSent', 'bytesReceived', 'phoneNumber']

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

type Series = Record<string, Record<string, Array<{ ts: number, v: number | null }>>>

async function aggregated (s: Stack, uid: string, ids: string, fn: string, from = T0, to = T0 + 3 * D): Promise<Series[string]> {
  const res = await s.call(s.adminToken, { method: 'GET', url: `/api/v1/systems/data/aggregated?targetIds=${uid}&dataIds=${ids}&interval=1day&fn=${fn}&from=${from}&to=${to}` })
  expect(res.statusCode).toBe(200)
  return (res.json() as Series)[uid] ?? {}
}
const values = (series: Array<{ v: number | null }> | undefined): Array<number | null> => (series ?? []).map((p) => p.v)

/** The system's rollups as text (numerics normalised: a sum's display scale depends on the values it adds). */
async function rollups (q: Queryable, uid: string): Promise<string[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT data_id, day, n, trim_scale(sum) AS sum, trim_scale(ss) AS ss, trim_scale(min) AS min, trim_scale(max) AS max
     FROM usage_rollups WHERE system_uid = $1 ORDER BY data_id, day`, [uid])
  return rows.map((r) => Object.values(r).map(String).join(' '))
}

/** The stored rollups are those a rebuild from the records writes (in a transaction rolled back after). */
async function expectRebuilt (s: Stack, uid: string): Promise<void> {
  const stored = await rollups(s.db, uid)
  expect(stored.length).toBeGreaterThan(0)
  const rollback = new Error('rollback')
  let rebuilt: string[] = []
  await s.db.transaction(async (tx) => {
    await rebuildUsageRollups(tx, [uid])
    rebuilt = await rollups(tx, uid)
    throw rollback
  }).catch((err: unknown) => { if (err !== rollback) throw err })
  expect(rebuilt).toEqual(stored)
}

describe('daily usage rollups', () => {
  it('are kept by the import as records arrive, a session moving to the day of its earliest record', async () => {
    const s = (await createSystem(stack, { name: uniq('ur') })).uid as string
    await importUsage(stack, csvOf([HEADER,
      [s, 'sess-1', 'DATA', T0 + 10 * H, '', 'true', 1200, 800, ''],
      [s, 'sess-1', 'DATA', T0 + 10 * H, T0 + 11 * H, 'false', 300, 150, ''],
      [s, 'sess-2', 'DATA', T0 + D + 5 * H, T0 + D + 6 * H + 500, 'false', 10, 20, ''],
      [s, 'call-1', 'VOICE_OUT', T0 + D + 7 * H, T0 + D + 7 * H + 61_000, '', '', '', '+33612345678'],
      [s, 'sms-1', 'SMS_SENT', T0 + 2 * D, '', '', '', '', '+33612345678']]))
    await expectRebuilt(stack, s)
    const ids = 'DATA_SESSION,DATA_BYTES_TOTAL,DATA_DURATION,VOICE_OUT_SESSION,SMS_SENT'
    let res = await aggregated(stack, s, ids, 'sum')
    expect(values(res.DATA_SESSION)).toEqual([null, 1, 1])
    expect(values(res.DATA_BYTES_TOTAL)).toEqual([null, 30, 2450])
    expect(values(res.DATA_DURATION)).toEqual([null, 3600.5, 3600])
    expect(values(res.VOICE_OUT_SESSION)).toEqual([null, 1, null])
    expect(values(res.SMS_SENT)).toEqual([1, null, null])

    // An interim record of sess-2 from the day before (and a repeat of a stored record): the session counts on day 0.
    await importUsage(stack, csvOf([HEADER,
      [s, 'sess-2', 'DATA', T0 + 23 * H, '', 'true', 1, 1, ''],
      [s, 'sess-1', 'DATA', T0 + 10 * H, T0 + 11 * H, 'false', 300, 150, '']]))
    await expectRebuilt(stack, s)
    res = await aggregated(stack, s, ids, 'sum')
    expect(values(res.DATA_SESSION)).toEqual([null, null, 2])
    expect(values(res.DATA_BYTES_TOTAL)).toEqual([null, 30, 2452])
    expect(values((await aggregated(stack, s, 'DATA_SESSION', 'cnt')).DATA_SESSION)).toEqual([0, 0, 2])
    // A range cut inside days: the cut parts come from the records.
    expect(values((await aggregated(stack, s, 'DATA_BYTES_TOTAL', 'sum', T0 + 10 * H + 1, T0 + 2 * D + 5 * H)).DATA_BYTES_TOTAL)).toEqual([null, 30, 2])
    // The import's processing date (now) is the date of the INVOICED_ counters: today's row, rounded to 1 KiB each.
    const { rows } = await stack.db.query<{ sum: string }>("SELECT sum::text FROM usage_rollups WHERE system_uid = $1 AND data_id = 'INVOICED_DATA_BYTES_TOTAL'", [s])
    expect(rows.map((r) => Number(r.sum)).reduce((a, b) => a + b, 0)).toBe(5 * 1024)
  })

  it('stay exact with imports of one system side by side', async () => {
    const s = (await createSystem(stack, { name: uniq('ur-par') })).uid as string
    const file = (k: number): string => csvOf([HEADER, ...Array.from({ length: 40 }, (_, i) =>
      [s, `sess-${i % 7}`, 'DATA', T0 + ((i * 37 + k * 11) % 72) * H + k, '', 'true', i, k, ''])])
    const ops = await Promise.all([0, 1, 2].map(async (k) => await started(postUsageCsv(stack, file(k)))))
    for (const op of ops) await waitFinished(stack, op, 30_000)
    await expectRebuilt(stack, s)
    expect(values((await aggregated(stack, s, 'DATA_SESSION', 'sum', T0, T0 + 4 * D)).DATA_SESSION).reduce<number>((a, v) => a + (v ?? 0), 0)).toBe(7)
  })

  it('are deleted with their system, one by one and in bulk', async () => {
    const one = (await createSystem(stack, { name: uniq('ur-del') })).uid as string
    const bulk = [(await createSystem(stack, { name: uniq('ur-bulk') })).uid as string, (await createSystem(stack, { name: uniq('ur-bulk') })).uid as string]
    const kept = (await createSystem(stack, { name: uniq('ur-kept') })).uid as string
    await importUsage(stack, csvOf([HEADER, ...[one, ...bulk, kept].map((uid) => [uid, 'sms', 'SMS_SENT', T0, '', '', '', '', '+1'])]))
    const count = async (uid: string): Promise<number> =>
      Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM usage_rollups WHERE system_uid = $1', [uid])).rows[0]?.n)
    expect(await count(one)).toBe(2) // SMS_SENT on its start, INVOICED_SMS_SENT on its processing date

    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${one}` })).statusCode).toBe(200)
    expect(await count(one)).toBe(0)
    await waitFinished(stack, await started(postDelete(stack, { systems: { uids: bulk } })))
    for (const uid of bulk) expect(await count(uid)).toBe(0)
    expect(await count(kept)).toBe(2)
    expect(values((await aggregated(stack, kept, 'SMS_SENT', 'sum')).SMS_SENT)).toEqual([null, null, 1])
  })
})

describe('DATA_ROLLUPS=false', () => {
  let raw: Stack
  beforeAll(async () => { raw = await startStack({ env: { DATA_ROLLUPS: 'false' } }) })
  afterAll(async () => { await raw.close() })

  it('reads the usage records only: rollups changed behind its back change nothing', async () => {
    const s = (await createSystem(raw, { name: uniq('ur-raw') })).uid as string
    await importUsage(raw, csvOf([HEADER, [s, 'sms', 'SMS_SENT', T0 + H, '', '', '', '', '+1']]))
    await raw.db.query('UPDATE usage_rollups SET n = 50, sum = 1000 WHERE system_uid = $1', [s])
    expect(values((await aggregated(raw, s, 'SMS_SENT', 'sum')).SMS_SENT)).toEqual([null, null, 1])
    expect((await getJson(raw, `/api/v1/systems/data/aggregated?targetIds=${s}&dataIds=SMS_SENT&interval=1month&fn=cnt&from=${T0}&to=${T0 + 31 * D}`))[s].SMS_SENT)
      .toEqual([{ ts: T0, v: 1 }])
  })
})
