// Operations engine: label then bulk delete 10,000 systems; tasks/s, time from request to FINISHED, API latency meanwhile.
//
// The service runs in this process as bin/serve.ts assembles it (engine workers included; PGlite in a temporary
// DATA_DIR; with DATABASE_URL also PostgreSQL, on a database of its own that is dropped after). The systems are
// seeded by SQL through the Db port (bench/lib/seed-systems.ts). Then, through HTTP: a label operation on every system
// of the company (labels.add), and a bulk delete of the systems carrying that label (systems.label). While each runs,
// GET /api/v1/operations/{uid} is polled: its latency shows whether the API stays responsive.
//
// Env: BENCH_SYSTEMS (10000), WORKER_CONCURRENCY (16, as the service's default), DATABASE_URL (a PostgreSQL server).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { benchConfig } from './lib/service.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedSystems } from './lib/seed-systems.js'
import { percentile } from './lib/stats.js'
import { pollUntilFinished } from './lib/operation-poll.js'
import { table, type Cell } from './lib/table.js'

const SYSTEMS = Number(process.env.BENCH_SYSTEMS ?? 10_000)
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '16'
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const POLL_MS = 50

interface Run {
  store: string
  operation: string
  tasks: number
  /** POST answered (selection resolved, operation and tasks written). */
  requestMs: number
  /** startDate → endDate of the operation. */
  runS: number
  tasksPerS: number
  /** Request sent → FINISHED seen. */
  toFinishedS: number
  pollP50: number
  pollMax: number
  failures: number
}

async function benchOn (store: 'pglite' | 'postgres'): Promise<Run[]> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_ops')
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-ops-'))
  try {
    console.log(`\n== ${store}: starting the service and seeding ${SYSTEMS} systems`)
    const config = benchConfig(dataDir, scratch?.url, {
      WORKER_CONCURRENCY: CONCURRENCY,
      FLEET_ADMIN_PASSWORD: 'bench-password',
      FLEET_CLIENT_SECRET: 'bench-secret'
    })
    const infra = await openInfra(config)
    const service = await assembleService(config, pino({ level: 'silent' }), infra)
    try {
      const { httpPort } = await service.listen({ anyPort: true, host: '127.0.0.1' })
      const origin = `http://127.0.0.1:${httpPort}`
      const companyUid = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
      const seeded = await seedSystems(infra.db, companyUid, SYSTEMS, Date.now())
      await infra.db.exec('VACUUM ANALYZE')
      console.log(`   seeded in ${(seeded.rowsSeconds + seeded.indexesSeconds).toFixed(1)} s`)
      const qs = new URLSearchParams({ grant_type: 'password', username: config.FLEET_ADMIN_EMAIL, password: 'bench-password', client_id: config.FLEET_CLIENT_ID, client_secret: 'bench-secret' })
      const token = ((await (await fetch(`${origin}/api/oauth/token?${qs.toString()}`)).json()) as { access_token: string }).access_token
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

      async function measure (operation: string, path: string, body: unknown): Promise<Run> {
        const t0 = performance.now()
        const wall0 = Date.now()
        const res = await fetch(`${origin}/api/v1/operations/systems/${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
        if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${await res.text()}`)
        const requestMs = performance.now() - t0
        const { operation: uid } = await res.json() as { operation: string }
        const { op, latencies } = await pollUntilFinished(origin, uid, headers, POLL_MS)
        const toFinishedS = (performance.now() - t0) / 1000
        const runS = ((op.endDate ?? 0) - (op.startDate ?? wall0)) / 1000
        const success = op.counters.find((c) => c.state === 'SUCCESS')?.count ?? 0
        latencies.sort((a, b) => a - b)
        const run: Run = {
          store,
          operation,
          tasks: op.total,
          requestMs,
          runS,
          tasksPerS: runS > 0 ? op.total / runS : Number.NaN,
          toFinishedS,
          pollP50: percentile(latencies, 50),
          pollMax: latencies[latencies.length - 1] ?? Number.NaN,
          failures: op.total - success
        }
        console.log(`   ${operation}: ${run.tasks} tasks, ${run.tasksPerS.toFixed(0)} tasks/s, FINISHED ${run.toFinishedS.toFixed(1)} s after the request`)
        return run
      }

      const label = await measure('label', 'label', { labels: { add: ['bench-op'] } })
      const del = await measure('delete', 'delete', { systems: { label: 'bench-op' } })
      const left = (await infra.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems')).rows[0]?.n
      if (left !== 0) throw new Error(`${left ?? '?'} systems left after the bulk delete`)
      return [label, del]
    } finally {
      await service.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

const runs: Run[] = []
runs.push(...await benchOn('pglite'))
if (SERVER_URL !== undefined) runs.push(...await benchOn('postgres'))
else console.log('\n(DATABASE_URL not set: PostgreSQL skipped)')

console.log(`\nOperations on ${SYSTEMS} systems (WORKER_CONCURRENCY ${CONCURRENCY}; poll every ${POLL_MS} ms)\n`)
const rows: Cell[][] = runs.map((r) => [r.store, r.operation, r.tasks, r.failures, r.requestMs, r.runS, r.tasksPerS, r.toFinishedS, r.pollP50, r.pollMax])
console.log(table(['store', 'operation', 'tasks', 'failed', 'request ms', 'run s', 'tasks/s', 'to FINISHED s', 'GET p50 ms', 'GET max ms'], rows))
