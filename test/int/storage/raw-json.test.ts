// The raw read written by the store (DataQueriesRepository.rawJson, used by GET /systems/data/raw) answers what the
// decoded read answers: the same points in the same order, a boolean as 1 or 0, a NaN or an infinity as null, any
// string (quotes, backslashes, control characters, emoji) and any double (tiny, huge, negative zero) read back
// exactly. Property-based, on the store of the run.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DataValue } from '../../../core/domain/device-message.js'
import { encodeValue } from '../../../core/ports/telemetry.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { createTestDb, type TestDb } from '../../helpers/test-db.js'

const SYSTEMS = ['sys-a', 'sys-b']
const IDS = ['d.one', 'd.two', 'd.three']

let t: TestDb
beforeAll(async () => {
  t = await createTestDb()
  await t.db.query("INSERT INTO companies (uid, name, created_at) VALUES ('c-raw', 'Raw', 0)")
  for (const uid of SYSTEMS) {
    await t.db.query(`INSERT INTO systems (uid, company_uid, name, life_cycle_state, state, activity_state, creation_date, last_state_change_date)
      VALUES ($1, 'c-raw', $1, 'INVENTORY', 'READY', 'ACTIVE', 0, 0)`, [uid])
  }
}, 120_000)
afterAll(async () => { await t.drop() })

const value: fc.Arbitrary<DataValue> = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 5e-324, 1.7976931348623157e308, 1e-7, 123456789012345680000),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ unit: 'binary' }).map((s) => s.replace(/\0/g, '')),
  fc.constantFrom('"quoted"', 'back\\slash', 'line\nfeed\ttab\u0001', 'é😀', '</script>', '')
)

/** The decoded read in the API's shape: a boolean as 1 or 0 (booleans come back decoded from num and str). */
const apiValue = (v: DataValue): number | string | null => typeof v === 'boolean' ? (v ? 1 : 0) : v

describe('raw data written by the store', () => {
  it('answers, parsed, what the decoded raw read answers', async () => {
    const repos = createRepositories(t.db)
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ s: fc.constantFrom(...SYSTEMS), d: fc.constantFrom(...IDS), ts: fc.integer({ min: 0, max: 50 }), v: value }), { maxLength: 40 }),
      fc.integer({ min: 1, max: 8 }),
      async (points, size) => {
        await t.db.query('DELETE FROM data_points')
        for (const [i, p] of points.entries()) {
          const { num, str } = encodeValue(p.v)
          await t.db.query('INSERT INTO data_points (system_uid, data_id, ts, num, str, message_uid) VALUES ($1, $2, $3, $4, $5, $6)',
            [p.s, p.d, 1_000_000 + p.ts, num, str, `m-${i}`])
        }
        const range = { from: 1_000_000, to: 1_000_040 }
        const decoded = await repos.dataQueries.raw(SYSTEMS, IDS, range, size)
        const written = await repos.dataQueries.rawJson(SYSTEMS, IDS, range, size)
        for (const s of SYSTEMS) {
          for (const d of IDS) {
            const expected = decoded.filter((p) => p.systemUid === s && p.dataId === d).map((p) => ({ ts: p.ts, v: apiValue(p.value) }))
            const json = written.find((w) => w.systemUid === s && w.dataId === d)?.json
            const got: unknown = json === undefined ? [] : JSON.parse(json)
            // Points with one timestamp may come in either order: compare the timestamps in order, then the sets.
            expect((got as Array<{ ts: number }>).map((p) => p.ts)).toEqual(expected.map((p) => p.ts))
            const key = (p: { ts: number, v: unknown }): string => `${p.ts} ${Object.is(p.v, -0) ? '0' : JSON.stringify(p.v)}`
            expect((got as Array<{ ts: number, v: unknown }>).map(key).sort()).toEqual(expected.map(key).sort())
          }
        }
      }), { numRuns: 40 })
  }, 300_000)
})
