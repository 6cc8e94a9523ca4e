// MSCI polling: N simulated AirLink gateways (5,000) polled by the service's repeatable job; polls/s and the share polled on time.
//
// Per store (PostgreSQL when DATABASE_URL is set, on a scratch database dropped after; then PGlite in a temporary
// DATA_DIR): the whole service runs in this process (bin/serve.ts assembleService, with its transports and jobs), N
// systems are seeded through the Db port (bench/lib/seed-systems.ts), each given communication.msci.host of its own
// simulated gateway, and their firmware application the MSCI communication of --access with --period. AceManager
// gateways share one HTTP server, each reached at a loopback address of its own (127.1.x.y: bound on 0.0.0.0 for
// that); SNMP gateways are one net-snmp agent each, on a UDP port each.
// Warm-up: until every gateway was polled once, then one period (the first polls spread the next ones over a
// period); then for --seconds (default: one period)
// the poller's own counts: polls/s, failed polls, the share of polls started at most ON_TIME_MS (2 s, two ticks of the
// job) after they were due, and the lateness p50 / p95 / max. The need is N / period polls/s.
//
// Flags: --gateways N (5000), --period S (60), --seconds S (one period), --access acemanager|snmp (acemanager),
// --stores postgres,pglite (both; postgres only with DATABASE_URL). Env: DATABASE_URL, MSCI_POLL_CONCURRENCY,
// MSCI_TIMEOUT_MS, WORKER_CONCURRENCY (reach the service).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { pino } from 'pino'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import type { MsciTransport } from '../ingest/msci/msci.transport.js'
import { ON_TIME_MS } from '../ingest/msci/poller.js'
import { createAirlinkGateway, type AirlinkGateway } from '../simulator/airlink/gateway.js'
import { startAceManager } from '../simulator/airlink/acemanager-server.js'
import { startSnmpAgent, type SimulatedSnmpAgent } from '../simulator/airlink/snmp-agent.js'
import { benchConfig } from './lib/service.js'
import { seedSystems } from './lib/seed-systems.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { percentile } from './lib/stats.js'
import { table, type Cell } from './lib/table.js'

const { values: flags } = parseArgs({
  options: {
    gateways: { type: 'string', default: '5000' },
    period: { type: 'string', default: '60' },
    seconds: { type: 'string' },
    access: { type: 'string', default: 'acemanager' },
    stores: { type: 'string', default: 'postgres,pglite' }
  }
})
const positive = (name: string, v: string): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) { console.error(`--${name} takes a positive integer, got ${v}`); process.exit(2) }
  return n
}
const GATEWAYS = positive('gateways', flags.gateways)
const PERIOD_S = positive('period', flags.period)
const SECONDS = positive('seconds', flags.seconds ?? flags.period)
if (flags.access !== 'acemanager' && flags.access !== 'snmp') { console.error(`--access takes acemanager or snmp, got ${flags.access}`); process.exit(2) }
const ACCESS: 'acemanager' | 'snmp' = flags.access
if (GATEWAYS > 65_000) { console.error('--gateways: at most 65000 (one loopback address or UDP port each)'); process.exit(2) }
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const STORES = flags.stores.split(',').map((s) => s.trim()).filter((s): s is Store => (s === 'postgres' && SERVER_URL !== undefined) || s === 'pglite')
const SERVICE_ENV = Object.fromEntries(['MSCI_POLL_CONCURRENCY', 'MSCI_TIMEOUT_MS', 'WORKER_CONCURRENCY'].flatMap((k) => process.env[k] === undefined ? [] : [[k, process.env[k] ?? '']]))
const USER = 'user'
const PASSWORD = 'bench-gateway-password'

type Store = 'postgres' | 'pglite'

/** Gateway i's loopback address (127.1.0.0/16; the first and last of each /24 left out). */
const addressOf = (i: number): string => `127.1.${Math.floor(i / 250)}.${(i % 250) + 2}`

interface Gateways { hosts: string[], close: () => Promise<void> }

async function startGateways (n: number): Promise<Gateways> {
  const gateways: AirlinkGateway[] = Array.from({ length: n }, (_, i) => createAirlinkGateway({ serial: `SN${String(i + 1).padStart(8, '0')}` }))
  if (ACCESS === 'acemanager') {
    const byAddress = new Map(gateways.map((g, i) => [addressOf(i), g]))
    const server = await startAceManager((address) => byAddress.get(address), { user: USER, password: PASSWORD, host: '0.0.0.0' })
    return { hosts: gateways.map((_, i) => `${addressOf(i)}:${server.port}`), close: server.close }
  }
  const agents: SimulatedSnmpAgent[] = []
  for (const g of gateways) agents.push(await startSnmpAgent(g, { community: PASSWORD }))
  return { hosts: agents.map((a) => `127.0.0.1:${a.port}`), close: async () => { await Promise.all(agents.map(async (a) => { await a.close() })) } }
}

interface Run { store: Store, pollsPerS: number, polls: number, failed: number, onTimeShare: number, p50: number, p95: number, max: number }

async function runOn (store: Store, gateways: Gateways): Promise<Run> {
  const scratch: ScratchDatabase | undefined = store === 'postgres' ? await createScratchDatabase(SERVER_URL ?? '', 'fleet_bench_poll') : undefined
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-poll-'))
  const config = benchConfig(dataDir, scratch?.url, { M3DA_PORT: '0', MSCI_ALLOWED_NETWORKS: '127.0.0.0/8', ...SERVICE_ENV })
  const log = pino({ level: 'silent' })
  const infra = await openInfra(config, log)
  const service = await assembleService(config, log, infra)
  try {
    const { rows } = await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')
    const companyUid = rows[0]?.uid ?? ''
    const t0 = Date.now()
    await seedSystems(infra.db, companyUid, GATEWAYS, t0)
    // seedSystems gives each system one of the company's two applications: both speak MSCI here.
    await infra.db.query('UPDATE applications SET communication = $1::jsonb WHERE company_uid = $2',
      [JSON.stringify([{ type: 'MSCI', commIdType: 'SERIAL', parameters: { access: ACCESS, pollPeriodS: PERIOD_S } }]), companyUid])
    await infra.db.query(`UPDATE systems s SET communication = jsonb_build_object('msci', jsonb_build_object('host', ($1::text[])[o.i], 'user', $2::text, 'password', $3::text))
      FROM (SELECT uid, row_number() OVER (ORDER BY uid) AS i FROM systems) o WHERE s.uid = o.uid`, [gateways.hosts, USER, PASSWORD])
    console.log(`${store}: ${GATEWAYS} gateways seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s; warming up`)
    const msci = service.transports.find((t) => t.name === 'msci') as MsciTransport | undefined
    if (msci === undefined) throw new Error('no msci transport')
    // Warm-up: every gateway polled once (their next polls are spread over a period from there), then one period.
    for (;;) {
      const { rows: [polled] } = await infra.db.query<{ n: number }>('SELECT count(*)::int AS n FROM msci_polls WHERE last_poll_at IS NOT NULL')
      if ((polled?.n ?? 0) >= GATEWAYS) break
      await sleep(1000)
    }
    await sleep(PERIOD_S * 1000)
    const before = msci.stats()
    const started = Date.now()
    await sleep(SECONDS * 1000)
    const after = msci.stats()
    const seconds = (Date.now() - started) / 1000
    const polls = after.polls - before.polls
    const lateness = after.latenessMs.slice(before.latenessMs.length).sort((a, b) => a - b)
    return {
      store,
      polls,
      pollsPerS: polls / seconds,
      failed: after.failed - before.failed,
      onTimeShare: polls === 0 ? NaN : (after.onTime - before.onTime) / polls,
      p50: percentile(lateness, 50) / 1000,
      p95: percentile(lateness, 95) / 1000,
      max: (lateness[lateness.length - 1] ?? NaN) / 1000
    }
  } finally {
    await service.close()
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

const gateways = await startGateways(GATEWAYS)
const runs: Run[] = []
try {
  for (const store of STORES) runs.push(await runOn(store, gateways))
} finally {
  await gateways.close()
}
console.log(`\nMSCI polling over ${ACCESS}: ${GATEWAYS} gateways, period ${PERIOD_S} s (need ${(GATEWAYS / PERIOD_S).toFixed(1)} polls/s), window ${SECONDS} s; on time: started at most ${ON_TIME_MS / 1000} s late`)
console.log(table(['store', 'polls/s', 'polls', 'failed', 'on time %', 'late p50 s', 'late p95 s', 'late max s'],
  runs.map((r): Cell[] => [r.store, r.pollsPerS, r.polls, r.failed, r.onTimeShare * 100, r.p50, r.p95, r.max])))
process.exit(0)
