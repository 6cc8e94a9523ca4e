// CSV register: a 10,000-row register file (serial number, IMEI, third party SIM); rows/s and request → FINISHED.
//
// The service runs in this process as bin/serve.ts assembles it (engine workers included; PGlite in a temporary
// DATA_DIR; with DATABASE_URL also PostgreSQL, on a database of its own that is dropped after). Through HTTP: one
// multipart POST /api/v1/operations/systems/register of the whole file, then GET /api/v1/operations/{uid} polled
// until FINISHED (its latency shows whether the API stays responsive while the rows are applied). Every row must
// succeed and make its system, gateway and subscription.
//
// Env: BENCH_ROWS (10000), WORKER_CONCURRENCY (16, as the service's default), DATABASE_URL (a PostgreSQL server).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { benchConfig } from './lib/service.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { percentile } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'
import { pollUntilFinished } from './lib/operation-poll.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000)
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? '16'
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const POLL_MS = 100

/** A valid IMEI (Luhn check digit) from a 14-digit body. */
function imei (n: number): string {
  const body = `35937706${String(n).padStart(6, '0')}`
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[i])
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return `${body}${(10 - (sum % 10)) % 10}`
}

/** What a spreadsheet exports: BOM, `;`, CRLF. */
function registerFile (rows: number): Buffer {
  const lines = ['NAME;LABELS;GATEWAY[SERIAL NUMBER];GATEWAY[IMEI];SUBSCRIPTION[IDENTIFIER];SUBSCRIPTION[OPERATOR];M3DA[password]']
  for (let i = 0; i < rows; i++) {
    lines.push(`Bench ${i};bench|north;BSN${String(i).padStart(10, '0')};${imei(i)};8933${String(i).padStart(15, '0')};ORANGE;bench-pass-${i}`)
  }
  return Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`, 'utf8')
}

function multipart (file: Buffer): { body: Buffer, contentType: string } {
  const boundary = `----bench${Date.now()}`
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="register.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

interface Run { store: string, rows: number, fileMb: number, requestMs: number, runS: number, rowsPerS: number, toFinishedS: number, pollP50: number, pollMax: number, failures: number }

async function benchOn (store: 'pglite' | 'postgres'): Promise<Run> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_register')
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-register-'))
  try {
    console.log(`\n== ${store}: registering ${ROWS} rows`)
    const config = benchConfig(dataDir, scratch?.url, { WORKER_CONCURRENCY: CONCURRENCY, FLEET_ADMIN_PASSWORD: 'bench-password', FLEET_CLIENT_SECRET: 'bench-secret' })
    const infra = await openInfra(config)
    const service = await assembleService(config, pino({ level: 'silent' }), infra)
    try {
      const { httpPort } = await service.listen({ anyPort: true, host: '127.0.0.1' })
      const origin = `http://127.0.0.1:${httpPort}`
      const qs = new URLSearchParams({ grant_type: 'password', username: config.FLEET_ADMIN_EMAIL, password: 'bench-password', client_id: config.FLEET_CLIENT_ID, client_secret: 'bench-secret' })
      const token = ((await (await fetch(`${origin}/api/oauth/token?${qs.toString()}`)).json()) as { access_token: string }).access_token
      const file = registerFile(ROWS)
      const { body, contentType } = multipart(file)
      const t0 = performance.now()
      const wall0 = Date.now()
      const res = await fetch(`${origin}/api/v1/operations/systems/register`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body })
      if (res.status !== 200) throw new Error(`register: ${res.status} ${await res.text()}`)
      const requestMs = performance.now() - t0
      const { operation: uid } = await res.json() as { operation: string }
      const { op, latencies } = await pollUntilFinished(origin, uid, { authorization: `Bearer ${token}` }, POLL_MS)
      const toFinishedS = (performance.now() - t0) / 1000
      const runS = ((op.endDate ?? 0) - (op.startDate ?? wall0)) / 1000
      const success = op.counters.find((c) => c.state === 'SUCCESS')?.count ?? 0
      const made = (await infra.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems WHERE gateway_uid IS NOT NULL AND subscription_uid IS NOT NULL')).rows[0]?.n ?? 0
      if (made !== ROWS) throw new Error(`${made} complete systems made for ${ROWS} rows`)
      latencies.sort((a, b) => a - b)
      const run: Run = {
        store,
        rows: op.total,
        fileMb: file.length / 1024 / 1024,
        requestMs,
        runS,
        rowsPerS: runS > 0 ? op.total / runS : Number.NaN,
        toFinishedS,
        pollP50: percentile(latencies, 50),
        pollMax: latencies[latencies.length - 1] ?? Number.NaN,
        failures: op.total - success
      }
      console.log(`   ${run.rows} rows, ${run.rowsPerS.toFixed(0)} rows/s, FINISHED ${run.toFinishedS.toFixed(1)} s after the request`)
      return run
    } finally {
      await service.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

const runs: Run[] = [await benchOn('pglite')]
if (SERVER_URL !== undefined) runs.push(await benchOn('postgres'))
else console.log('\n(DATABASE_URL not set: PostgreSQL skipped)')

console.log(`\nRegister of a ${ROWS}-row CSV (WORKER_CONCURRENCY ${CONCURRENCY}; poll every ${POLL_MS} ms)\n`)
const rows: Cell[][] = runs.map((r) => [r.store, r.rows, r.fileMb, r.failures, r.requestMs, r.runS, r.rowsPerS, r.toFinishedS, r.pollP50, r.pollMax])
console.log(table(['store', 'rows', 'file MB', 'failed', 'request ms', 'run s', 'rows/s', 'to FINISHED s', 'GET p50 ms', 'GET max ms'], rows))
