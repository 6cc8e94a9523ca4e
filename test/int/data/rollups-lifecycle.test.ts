// docs/store.md#rollups: late and out-of-order points update their hour; deleting a system, one by one or in bulk,
// deletes its rollups with its points; DATA_ROLLUPS=false answers the same from the raw points.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { createSystem } from '../../helpers/systems.js'
import { insertPoints, utc } from '../../helpers/telemetry.js'
import { postDelete, started, waitFinished } from '../../helpers/operations.js'

const H = 3_600_000
const T0 = utc('2025-03-01T00:00:00')

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

type Series = Record<string, Record<string, Array<{ ts: number, v: number | null }>>>

async function aggregated (uid: string, fn: string, interval = '1hour', from = T0, to = T0 + 3 * H): Promise<Array<{ ts: number, v: number | null }>> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/data/aggregated?targetIds=${uid}&dataIds=t&interval=${interval}&fn=${fn}&from=${from}&to=${to}` })
  expect(res.statusCode).toBe(200)
  return (res.json() as Series)[uid]?.t ?? []
}

/** The hourly rollup rows of the system once its increments are folded; and its daily rows and increments left. */
async function rollupRows (uid: string): Promise<number> {
  await stack.ctx.services.ingest.drain() // folds the increments (core/services/ingest/rollup-folds.ts)
  return Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM data_rollups WHERE system_uid = $1', [uid])).rows[0]?.n)
}
const otherRows = async (uid: string): Promise<number> => Number((await stack.db.query<{ n: string }>(
  'SELECT (SELECT count(*) FROM data_rollups_daily WHERE system_uid = $1) + (SELECT count(*) FROM data_rollup_deltas WHERE system_uid = $1) AS n', [uid])).rows[0]?.n)

describe('hourly rollups', () => {
  it('take late and out-of-order points into their own hour', async () => {
    const uid = (await createSystem(stack, { name: uniq('late') })).uid as string
    await insertPoints(stack.db, uid, [{ dataId: 't', ts: T0 + 2 * H + 10, value: 5 }, { dataId: 't', ts: T0 + 10, value: 1 }])
    expect(await aggregated(uid, 'sum')).toEqual([{ ts: T0 + 2 * H, v: 5 }, { ts: T0 + H, v: null }, { ts: T0, v: 1 }])
    // Later messages carrying older points: the first hour and the empty one change, the newest does not.
    await insertPoints(stack.db, uid, [{ dataId: 't', ts: T0 + H + 5, value: 7 }, { dataId: 't', ts: T0 + 20, value: 3 }])
    await insertPoints(stack.db, uid, [{ dataId: 't', ts: T0 + 30, value: 'text' }])
    expect(await aggregated(uid, 'sum')).toEqual([{ ts: T0 + 2 * H, v: 5 }, { ts: T0 + H, v: 7 }, { ts: T0, v: 4 }])
    expect(await aggregated(uid, 'cnt')).toEqual([{ ts: T0 + 2 * H, v: 1 }, { ts: T0 + H, v: 1 }, { ts: T0, v: 3 }])
    // 5, 1, 7, 3 (the string is counted, not folded): mean 4, population deviation √5.
    expect((await aggregated(uid, 'stddev', '1day', T0, T0 + 3 * H))[0]?.v).toBeCloseTo(Math.sqrt(5), 12)
    expect(await aggregated(uid, 'max', '1day', T0 + 15, T0 + 2 * H + 11)).toEqual([{ ts: T0, v: 7 }])
  })

  it('are deleted with their system, one by one and in bulk', async () => {
    const one = (await createSystem(stack, { name: uniq('del') })).uid as string
    const bulk = [(await createSystem(stack, { name: uniq('bulk') })).uid as string, (await createSystem(stack, { name: uniq('bulk') })).uid as string]
    const kept = (await createSystem(stack, { name: uniq('kept') })).uid as string
    for (const uid of [one, ...bulk, kept]) await insertPoints(stack.db, uid, [{ dataId: 't', ts: T0, value: 1 }, { dataId: 't', ts: T0 + H, value: 2 }])
    expect(await rollupRows(one)).toBe(2)

    // Increments not folded yet go with the system too.
    for (const uid of [one, ...bulk]) await insertPoints(stack.db, uid, [{ dataId: 't', ts: T0 + 2 * H, value: 3 }])
    expect(await otherRows(one)).toBeGreaterThan(0)
    const res = await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${one}` })
    expect(res.statusCode).toBe(200)
    expect(await otherRows(one)).toBe(0)
    expect(await rollupRows(one)).toBe(0)

    await waitFinished(stack, await started(postDelete(stack, { systems: { uids: bulk } })))
    for (const uid of bulk) expect(await otherRows(uid)).toBe(0)
    for (const uid of bulk) expect(await rollupRows(uid)).toBe(0)
    expect(await rollupRows(kept)).toBe(2)
    expect(await aggregated(kept, 'sum', '1day')).toEqual([{ ts: T0, v: 3 }])
  })
})

describe('DATA_ROLLUPS=false', () => {
  let raw: Stack
  beforeAll(async () => { raw = await startStack({ env: { DATA_ROLLUPS: 'false' } }) })
  afterAll(async () => { await raw.close() })

  it('reads the raw points only: rollups written behind its back change nothing', async () => {
    const uid = (await createSystem(raw, { name: uniq('raw') })).uid as string
    await insertPoints(raw.db, uid, [{ dataId: 't', ts: T0 + 10, value: 2 }])
    await raw.db.query('UPDATE data_rollup_deltas SET sum = 1000, cnt = 50 WHERE system_uid = $1', [uid])
    await raw.ctx.services.ingest.drain()
    await raw.db.query('UPDATE data_rollups SET sum = 1000, cnt = 50 WHERE system_uid = $1', [uid])
    const res = await raw.call(raw.adminToken, { method: 'GET', url: `/api/v1/systems/data/aggregated?targetIds=${uid}&dataIds=t&interval=1day&fn=sum&from=${T0}&to=${T0 + 24 * H}` })
    expect((res.json() as Series)[uid]?.t).toEqual([{ ts: T0, v: 2 }])
  })
})
