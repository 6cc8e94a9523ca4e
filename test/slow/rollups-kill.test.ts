// Rollups, "the crash test for dirty hours": the hourly and daily rollups are merged in the transaction that
// commits the points(storage/repositories/telemetry.repository.ts insertPoints), so a process killed at any moment
// leaves every hour's and day's rollup equal to what the committed points give, and there is no dirty period to redo.
// The real service runs as a child process, a simulated MQTT fleet publishes as fast as it is acknowledged, the
// service is killed with SIGKILL in the middle of it and restarted on the same store; then each rollup row must
// equal the row rebuilt from the raw points (storage/repositories/rollups.sql.ts rebuildRollups), and the restarted
// service's aggregations through the rollups must answer what the raw points answer.
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Db } from '../../core/ports/store.js'
import { AGGREGATE_FNS, bucketsOf } from '../../core/domain/aggregation.js'
import type { AggregateRow } from '../../core/ports/data-queries.js'
import { startFleet } from '../../simulator/fleet.js'
import { connectApi } from '../../simulator/provision.js'
import { rebuildRollups } from '../../storage/repositories/rollups.sql.js'
import { createTelemetryRepository } from '../../storage/repositories/telemetry.repository.js'
import { createDataQueriesRepository } from '../../storage/repositories/data-queries.repository.js'
import { killAfterAcks, recordAckedSeqs } from '../helpers/acked-seqs.js'
import { cliService } from '../helpers/cli-service.js'
import { inspect, storeKinds } from '../helpers/cli-stores.js'

const DEVICES = 20
const ACKED_BEFORE_KILL = 300
const CLIENT_SECRET = 'rollups-kill-secret'
const ADMIN_PASSWORD = 'rollups-kill-password'

type Row = Record<string, unknown>
const COLUMNS = 'system_uid, data_id, start, cnt, n_num, sum, ss, min, max, m2, wide'

/** The hourly rollup rows, then the daily ones (0027_data_rollups_daily.sql): both kept by the same transaction. */
async function rollupRows (db: Db): Promise<Row[]> {
  const hours = (await db.query<Row>(`SELECT 'hour' AS period, ${COLUMNS.replace('start', 'hour AS start')} FROM data_rollups ORDER BY system_uid, data_id, hour`)).rows
  const days = (await db.query<Row>(`SELECT 'day' AS period, ${COLUMNS.replace('start', 'day AS start')} FROM data_rollups_daily ORDER BY system_uid, data_id, day`)).rows
  return [...hours, ...days]
}

/** Counts and flags equal; sums equal up to the rounding of another order of addition. */
function expectSameRows (kept: Row[], rebuilt: Row[]): void {
  const key = (r: Row): string => `${String(r.period)} ${String(r.system_uid)} ${String(r.data_id)} ${String(r.start)}`
  expect(kept.map(key)).toEqual(rebuilt.map(key))
  for (const [i, r] of kept.entries()) {
    const f = rebuilt[i] ?? {}
    for (const col of ['cnt', 'n_num', 'wide', 'min', 'max']) expect(String(r[col]), `${key(r)} ${col}`).toBe(String(f[col]))
    for (const col of ['sum', 'ss', 'm2']) {
      const a = Number(r[col])
      const b = Number(f[col])
      expect(Math.abs(a - b), `${key(r)} ${col}: kept ${a}, rebuilt ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b), Number(f.ss)))
    }
  }
}

describe.each(storeKinds())('SIGKILL of the service during ingest on %s', (_kind, makeStore) => {
  it('leaves every hourly rollup equal to the committed points', { timeout: 300_000 }, async () => {
    const store = await makeStore()
    onTestFinished(async () => { await store.drop() })
    const service = await cliService(store, { FLEET_ADMIN_PASSWORD: ADMIN_PASSWORD, FLEET_CLIENT_SECRET: CLIENT_SECRET })
    const credentials = { url: `http://127.0.0.1:${service.httpPort}`, clientId: 'fleet-cli', clientSecret: CLIENT_SECRET, email: 'admin@fleet.local', password: ADMIN_PASSWORD }

    const first = await service.serve()
    const acked = recordAckedSeqs()
    const fleet = startFleet({
      api: credentials,
      devices: DEVICES,
      protocol: 'mqtt',
      mqttUrl: `mqtt://127.0.0.1:${service.mqttPort}`,
      rate: 0, // as fast as the acknowledgements come: batches are being committed when the kill lands
      reconnectPeriod: 0,
      events: acked.events
    })
    onTestFinished(async () => { await fleet.stop() })
    await killAfterAcks(first, fleet, acked, ACKED_BEFORE_KILL, 60_000)

    // The restarted service answers its aggregations through the rollups left by the killed one.
    const second = await service.serve()
    const api = await connectApi(credentials)
    const systems = [...acked.bySystem.keys()].slice(0, 5)
    const from = Date.now() - 86_400_000
    const to = Date.now() + 3_600_000
    const perSystem = async (fn: 'cnt' | 'max', fold: (vs: number[]) => number): Promise<Record<string, number>> => {
      const res = await api.request('GET', `/api/v1/systems/data/aggregated?targetIds=${systems.join(',')}&dataIds=sim.seq&interval=1hour&fn=${fn}&from=${from}&to=${to}&size=500`)
      expect(res.status).toBe(200)
      const body = res.json as Record<string, Record<string, Array<{ v: number | null }>>>
      return Object.fromEntries(systems.map((uid) => [uid, fold((body[uid]?.['sim.seq'] ?? []).flatMap((p) => p.v === null ? [] : [p.v]))]))
    }
    const counts = await perSystem('cnt', (vs) => vs.reduce((a, b) => a + b, 0))
    const maxima = await perSystem('max', (vs) => Math.max(...vs))
    second.signal('SIGTERM')
    expect(await second.exited()).toEqual({ code: 0, signal: null })

    await inspect(store, async (db) => {
      // The increments the killed process committed and had not folded are folded now, as its successor would.
      await db.transaction(async (tx) => { await createTelemetryRepository(tx).foldRollups(1_000_000) })
      const kept = await rollupRows(db)
      expect(kept.length).toBeGreaterThan(0)
      // What the API answered through the rollups is what the raw points hold.
      const { rows } = await db.query<{ system_uid: string, n: string, max: number }>(
        `SELECT system_uid, count(*) AS n, max(num) AS max FROM data_points WHERE data_id = 'sim.seq' AND system_uid = ANY($1::text[])
         AND ts >= $2 AND ts < $3 GROUP BY system_uid`, [systems, from, to])
      expect(counts).toEqual(Object.fromEntries(rows.map((r) => [r.system_uid, Number(r.n)])))
      expect(maxima).toEqual(Object.fromEntries(rows.map((r) => [r.system_uid, r.max])))
      // Every fn through the rollups as from the raw points.
      const q = { targets: { systems }, dataIds: ['sim.seq'], usage: {}, buckets: bucketsOf(from, to, { n: 1, unit: 'hour' }, 500), from, to }
      for (const fn of AGGREGATE_FNS) {
        const sorted = (rows: AggregateRow[]): AggregateRow[] => rows.sort((a, b) => a.key.localeCompare(b.key) || a.bucket - b.bucket)
        const viaRollups = sorted(await createDataQueriesRepository(db).aggregate({ ...q, fn }))
        const viaPoints = sorted(await createDataQueriesRepository(db, { rollups: false }).aggregate({ ...q, fn }))
        expect(viaRollups.map((r) => [r.key, r.bucket, r.v === null])).toEqual(viaPoints.map((r) => [r.key, r.bucket, r.v === null]))
        for (const [i, r] of viaPoints.entries()) expect(Math.abs((viaRollups[i]?.v ?? 0) - (r.v ?? 0)), fn).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(r.v ?? 0)))
      }
      await db.transaction(async (tx) => { await rebuildRollups(tx, { from: null, to: null }) })
      expectSameRows(kept, await rollupRows(db))
    })
  })
})
