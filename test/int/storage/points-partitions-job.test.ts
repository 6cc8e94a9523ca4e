// The points partitions of a running service (bin/serve.ts): the months around now are created before it takes
// traffic, and each run of the repeatable job points.partitions moves odd months out of the default partition and
// applies DATA_RETENTION_DAYS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createSystem, type Json } from '../../helpers/systems.js'
import { eventually } from '../../helpers/devices.js'
import { uniq } from '../../helpers/factories.js'
import { insertPoints, utc } from '../../helpers/telemetry.js'

// The service's clock: June 2031, with one year of retention (the horizon is June 2030).
const NOW = utc('2031-06-15T12:00:00')
let stack: Stack

const partitionNames = async (): Promise<string[]> => (await stack.db.query<{ name: string }>(
  `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'data_points'::regclass ORDER BY 1`)).rows.map((r) => r.name)

beforeAll(async () => {
  stack = await startStack({ clock: { now: () => NOW }, env: { DATA_RETENTION_DAYS: '365' } })
})
afterAll(async () => { await stack.close() })

describe('the points.partitions job', () => {
  it('has the months around now partitioned before the service takes traffic, and runs hourly as a repeatable job', async () => {
    expect(await partitionNames()).toEqual(['data_points_default', 'data_points_p203105', 'data_points_p203106', 'data_points_p203107', 'data_points_p203108'])
    const { rows } = await stack.db.query<{ every: number }>("SELECT repeat_every_ms AS every FROM jobs WHERE id = 'repeat:points.partitions'")
    expect(rows.map((r) => Number(r.every))).toEqual([3_600_000])
  })

  it('moves a month out of the default partition and deletes what is past the retention at its next run; the API answers the same', async () => {
    const uid = (await createSystem(stack, { name: uniq('partitioned') })).uid as string
    const late = utc('2031-12-24T18:00:00')
    const expired = utc('2029-03-01T00:00:00')
    await insertPoints(stack.db, uid, [{ dataId: 'machine.temperature', ts: late, value: 7 }, { dataId: 'machine.temperature', ts: expired, value: 3 }])
    const raw = async (): Promise<Json> => (await stack.call(stack.adminToken, {
      method: 'GET', url: `/api/v1/systems/data/raw?targetIds=${uid}&dataIds=machine.temperature&from=${utc('2031-01-01T00:00:00')}&to=${utc('2032-01-01T00:00:00')}`
    })).json()
    const before = await raw()
    expect(before).toEqual({ [uid]: { 'machine.temperature': [{ ts: late, v: 7 }] } })

    await stack.db.query("UPDATE jobs SET run_at = 0 WHERE id = 'repeat:points.partitions'")
    await eventually(async () => (await partitionNames()).includes('data_points_p203112'), 10_000, 'the December partition')
    await eventually(async () => (await stack.db.query('SELECT 1 FROM data_points WHERE ts = $1', [expired])).rows.length === 0, 10_000, 'the retention')
    const { rows } = await stack.db.query<{ part: string }>('SELECT tableoid::regclass::text AS part FROM data_points WHERE system_uid = $1', [uid])
    expect(rows).toEqual([{ part: 'data_points_p203112' }])
    expect(await raw()).toEqual(before)
  })
})
