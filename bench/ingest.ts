// MQTT ingest: 1,000 devices publishing QoS 1 messages of 3 points; committed msg/s, ack latency, vs bare aedes.
//
// The service runs in this process (PGlite in a temporary DATA_DIR; with DATABASE_URL also PostgreSQL, on a
// database of its own that is dropped after), MQTT on a free port. 1,000 systems are inserted straight into the
// store with a known MQTT password, then a separate device process (bench/ingest-devices.ts) opens one MQTT
// connection per system and publishes as fast as the PUBACKs allow. The same device process then runs the same
// clients against a bare aedes broker (no hooks, memory persistence) on another port: the ratio is what storing
// before acknowledging costs.
//
// With `--protocol m3da` (docs/protocols/m3da.md), the bare broker is left out. After the MQTT devices, in the same run:
// the same MQTT devices with one message in flight each (M3DA allows one package in flight, docs/protocols/m3da.md: the
// same number of messages outstanding), then the same number of M3DA agents over TCP (bench/lib/m3da-ingest.ts),
// unsecured, then hmac-sha1 + aes-cbc-128. Each group's committed messages and points per second are printed beside
// the MQTT figures and their ratios to them, and so is the CPU one message cost the service, the device process and
// a PostgreSQL server of this machine (bench/lib/server-cpu.ts): the three share its cores.
//
// Env: BENCH_SECONDS (60, measured seconds per target), BENCH_DEVICES (1000), BENCH_INFLIGHT (4 per connection),
// BENCH_BARE (true), DATABASE_URL (a PostgreSQL server), BENCH_STORES (pglite,postgres: the stores to run, in that order), DATA_ROLLUPS (true; false: the service writes no hourly rollups).
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Aedes } from 'aedes'
import { pino } from 'pino'
import type { Db } from '../core/ports/store.js'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import type { TargetResult } from './ingest-devices.js'
import { devicesInput, runDevices } from './lib/device-process.js'
import { benchConfig } from './lib/service.js'
import { m3daGroups, runM3daGroup, seedM3da, storedOf } from './lib/m3da-ingest.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { isLocalServer, postgresCpuSeconds } from './lib/server-cpu.js'
import { seedSystems } from './lib/seed-systems.js'
import { table } from './lib/table.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)
const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000)
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 4)
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((s) => s.trim())
const WARMUP = Math.min(5, Math.max(1, SECONDS / 6))
const PASSWORD = 'bench-mqtt-password'
// `npm run bench -- ingest --protocol m3da`, also written `ingest -- --protocol m3da`.
const M3DA = parseArgs({ args: process.argv.slice(2).filter((a) => a !== '--'), options: { protocol: { type: 'string', default: 'mqtt' } } }).values.protocol === 'm3da'
// BENCH_BARE=false leaves the bare broker out (a CPU profile of the run then holds the service alone).
const BARE = !M3DA && process.env.BENCH_BARE !== 'false'

/**
 * CPU per committed message (µs) of each process while one group of devices ran: the service (this process), the
 * device process, and the PostgreSQL server when it runs on this machine (NaN otherwise, and for PGlite, whose
 * thread is in the service's process). They share the machine's cores: the total is what one message costs it.
 */
interface CpuPerMessage { service: number, devices: number, store: number }

/** A group of devices run after the MQTT one (--protocol m3da): what they had answered and the store committed meanwhile. */
interface GroupFigures { result: TargetResult, committedPerS: number, pointsPerS: number, cpu: CpuPerMessage }

interface Figures {
  store: string
  service: TargetResult
  /** Not run with --protocol m3da. */
  bare: TargetResult | undefined
  /** --protocol m3da: MQTT with one message in flight, M3DA unsecured, M3DA secured. */
  groups: GroupFigures[]
  messages: number
  points: number
  /** Rows per second of publishing (warm-up included: every stored row counts). */
  committedPerS: number
  pointsPerS: number
  batch: number
  serviceCpuS: number
  cpu: CpuPerMessage
}

/** Systems 1..n of seed-systems, each reachable over MQTT as SN<i> with PASSWORD (docs/devices.md). */
async function seedDevices (db: Db, companyUid: string, n: number): Promise<void> {
  await seedSystems(db, companyUid, n, Date.now())
  await db.query('UPDATE systems SET communication = $1::jsonb', [JSON.stringify({ mqtt: { password: PASSWORD } })])
  await db.query(`INSERT INTO comm_identifiers (identifier, system_uid)
    SELECT g.serial_number, s.uid FROM systems s JOIN gateways g ON g.uid = s.gateway_uid`)
  await db.exec('VACUUM ANALYZE')
}

async function bareAedes (): Promise<{ url: string, close (): Promise<void> }> {
  const broker = await Aedes.createBroker()
  const server: Server = createServer((socket) => { broker.handle(socket) })
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve) })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async close () {
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
      await new Promise<void>((resolve) => { broker.close(() => { resolve() }) })
    }
  }
}

async function checkThroughApi (origin: string, token: string, db: Db): Promise<void> {
  const headers = { authorization: `Bearer ${token}` }
  // Systems 1..5: MQTT devices in every run (with --protocol m3da, systems past DEVICES have M3DA data only).
  const uids = (await db.query<{ uid: string }>("SELECT md5('s' || i) AS uid FROM generate_series(1, 5) AS i ORDER BY 1")).rows.map((r) => r.uid)
  const raw = await fetch(`${origin}/api/v1/systems/data/raw?targetIds=${uids.join(',')}&dataIds=sim.seq&size=1`, { headers })
  const body = await raw.json() as Record<string, Record<string, unknown[]>>
  if (raw.status !== 200 || uids.some((u) => body[u]?.['sim.seq']?.length !== 1)) throw new Error(`raw data not readable: ${raw.status} ${JSON.stringify(body)}`)
  const msgs = await fetch(`${origin}/api/v1/systems/${uids[0] ?? ''}/messages?size=1`, { headers })
  const m = await msgs.json() as { messages: Array<{ nbDataPoints: number, protocol: string }> }
  if (msgs.status !== 200 || m.messages[0]?.nbDataPoints !== 3 || m.messages[0].protocol !== 'MQTT') throw new Error(`messages not readable: ${JSON.stringify(m)}`)
}

/** The service under test, listening, its store seeded. */
interface Running {
  store: 'pglite' | 'postgres'
  db: Db
  service: Awaited<ReturnType<typeof assembleService>>
  ports: { mqtt?: number, m3da?: number }
  /** The local PostgreSQL server's CPU seconds so far (NaN when there is none to read). */
  storeCpu: () => number
}

/** Runs one group of devices after the MQTT run; counts what the store committed and the CPU it took meanwhile. */
async function measureGroup (r: Running, name: string, protocol: 'MQTT' | 'M3DA', run: () => Promise<TargetResult>): Promise<GroupFigures> {
  const publishing = SECONDS + WARMUP
  const before = await storedOf(r.db, protocol)
  const statsBefore = r.service.ctx.services.ingest.stats()
  const cpuBefore = process.cpuUsage()
  const storeBefore = r.storeCpu()
  const result = await run()
  const after = await storedOf(r.db, protocol)
  const statsAfter = r.service.ctx.services.ingest.stats()
  const cpuUsed = process.cpuUsage(cpuBefore)
  const storeUsed = r.storeCpu() - storeBefore
  const n = Math.max(1, after.m - before.m)
  if (after.m - before.m < result.ackedTotal) throw new Error(`${name}: ${result.ackedTotal} messages answered but only ${after.m - before.m} stored`)
  console.log(`   ${name}: ${(result.acked / result.seconds).toFixed(0)} msg/s answered (${result.ackedTotal} in all, ${result.errors} errors); ` +
    `mean batch ${((statsAfter.committedMessages - statsBefore.committedMessages) / Math.max(1, statsAfter.batches - statsBefore.batches)).toFixed(0)} messages`)
  return {
    result,
    committedPerS: (after.m - before.m) / publishing,
    pointsPerS: (after.p - before.p) / publishing,
    cpu: { service: (cpuUsed.user + cpuUsed.system) / n, devices: result.cpuUs / n, store: storeUsed * 1e6 / n }
  }
}

/** --protocol m3da: the groups run after the MQTT devices. */
async function otherGroups (r: Running): Promise<GroupFigures[]> {
  if (!M3DA) return []
  const groups: GroupFigures[] = []
  // The same MQTT devices with one message in flight each, as M3DA allows one package in flight
  // (docs/protocols/m3da.md): the same number of messages outstanding, so the same batches, as the M3DA groups.
  const name = 'MQTT, one in flight'
  console.log(`   ${name}: ${DEVICES} connections, 1 in flight each, ${WARMUP} s warm-up + ${SECONDS} s`)
  groups.push(await measureGroup(r, name, 'MQTT', async () => {
    const [res] = await runDevices(devicesInput([{ name, url: `mqtt://127.0.0.1:${r.ports.mqtt ?? 0}` }], { devices: DEVICES, password: PASSWORD, seconds: SECONDS, warmupSeconds: WARMUP, inflight: 1 }))
    if (res === undefined) throw new Error('the device process answered no result')
    return res
  }))
  for (const group of m3daGroups(DEVICES)) {
    console.log(`   ${group.name}: ${DEVICES} agents over TCP, one envelope in flight each, ${WARMUP} s warm-up + ${SECONDS} s`)
    groups.push(await measureGroup(r, group.name, 'M3DA', async () => await runM3daGroup(group, { url: `tcp://127.0.0.1:${r.ports.m3da ?? 0}`, devices: DEVICES, seconds: SECONDS, warmupSeconds: WARMUP })))
  }
  return groups
}

/** The MQTT devices against the service, then (BENCH_BARE) against the bare broker: the figures but the groups'. */
async function measureMqtt (r: Running, bareUrl: string): Promise<Omit<Figures, 'groups'>> {
  console.log(`   ${DEVICES} connections, ${INFLIGHT} in flight each, ${WARMUP} s warm-up + ${SECONDS} s per target`)
  const storeCpu0 = r.storeCpu()
  let storeCpuS = Number.NaN
  const cpu0 = process.cpuUsage()
  const batches0 = r.service.ctx.services.ingest.stats().batches
  let cpu = { user: 0, system: 0 }
  const onResult = (res: TargetResult): void => {
    console.log(`   ${res.name}: ${(res.acked / res.seconds).toFixed(0)} msg/s acknowledged (${res.ackedTotal} in all, ${res.errors} unacknowledged)`)
    if (res.name === 'service') { cpu = process.cpuUsage(cpu0); storeCpuS = r.storeCpu() - storeCpu0 } // the bare broker runs in this process too, after
  }
  const targets = [{ name: 'service', url: `mqtt://127.0.0.1:${r.ports.mqtt ?? 0}` }, ...(BARE ? [{ name: 'bare aedes', url: bareUrl }] : [])]
  const [svc, bareResult] = await runDevices(devicesInput(targets, { devices: DEVICES, password: PASSWORD, seconds: SECONDS, warmupSeconds: WARMUP, inflight: INFLIGHT }), onResult)
  if (svc === undefined || (BARE && bareResult === undefined)) throw new Error('the device process answered no result')
  const stats = r.service.ctx.services.ingest.stats()
  const counts = (await r.db.query<{ m: number, p: number }>(
    'SELECT (SELECT count(*) FROM device_messages)::int8 AS m, (SELECT count(*) FROM data_points)::int8 AS p')).rows[0] ?? { m: 0, p: 0 }
  if (counts.m < svc.ackedTotal) throw new Error(`${svc.ackedTotal} messages acknowledged but only ${counts.m} stored`)
  const publishing = SECONDS + WARMUP
  const acked = Math.max(1, svc.ackedTotal)
  return {
    store: r.store,
    service: svc,
    bare: bareResult,
    messages: counts.m,
    points: counts.p,
    committedPerS: counts.m / publishing,
    pointsPerS: counts.p / publishing,
    batch: stats.committedMessages / Math.max(1, stats.batches - batches0),
    serviceCpuS: (cpu.user + cpu.system) / 1e6,
    cpu: { service: (cpu.user + cpu.system) / acked, devices: svc.cpuUs / acked, store: storeCpuS * 1e6 / acked }
  }
}

async function benchOn (store: 'pglite' | 'postgres'): Promise<Figures> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_ingest')
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-ingest-'))
  try {
    console.log(`\n== ${store}: starting the service and registering ${DEVICES} systems`)
    const config = benchConfig(dataDir, scratch?.url, {
      FLEET_ADMIN_PASSWORD: 'bench-password',
      FLEET_CLIENT_SECRET: 'bench-secret',
      // DATA_ROLLUPS=false measures the ingest without the hourly rollups it writes in the same transaction.
      DATA_ROLLUPS: process.env.DATA_ROLLUPS
    })
    const infra = await openInfra(config)
    const service = await assembleService(config, pino({ level: 'silent' }), infra)
    const bare = await bareAedes()
    try {
      const { httpPort, ports } = await service.listen({ anyPort: true, host: '127.0.0.1' })
      const origin = `http://127.0.0.1:${httpPort}`
      const qs = new URLSearchParams({ grant_type: 'password', username: config.FLEET_ADMIN_EMAIL, password: 'bench-password', client_id: config.FLEET_CLIENT_ID, client_secret: 'bench-secret' })
      const token = ((await (await fetch(`${origin}/api/oauth/token?${qs.toString()}`)).json()) as { access_token: string }).access_token
      const companyUid = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
      await seedDevices(infra.db, companyUid, M3DA ? 2 * DEVICES : DEVICES)
      if (M3DA) await seedM3da(infra.db, companyUid, DEVICES, Date.now())
      const storeCpu = (): number => store === 'postgres' && isLocalServer(scratch?.url) ? postgresCpuSeconds() ?? Number.NaN : Number.NaN
      const running: Running = { store, db: infra.db, service, ports, storeCpu }
      const mqttFigures = await measureMqtt(running, bare.url)
      await checkThroughApi(origin, token, infra.db)
      const f: Figures = { ...mqttFigures, groups: await otherGroups(running) }
      print(f)
      return f
    } finally {
      await bare.close()
      await service.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

function print (f: Figures): void {
  const rate = (r: TargetResult): number => r.acked / r.seconds
  const line = (name: string, r: TargetResult): Array<string | number> => [name, r.connected, rate(r), r.latencies.p50, r.latencies.p99, r.latencies.max, r.errors]
  console.log()
  console.log(table(['target', 'conns', 'acked msg/s', 'ack p50 ms', 'ack p99 ms', 'ack max ms', 'unacked'], [
    line('service', f.service),
    ...(f.bare === undefined ? [] : [line('bare aedes', f.bare)]),
    ...f.groups.map((m) => line(m.result.name, m.result))
  ]))
  console.log(`\n   stored: ${f.messages} messages, ${f.points} points = ${f.committedPerS.toFixed(0)} msg/s, ${f.pointsPerS.toFixed(0)} points/s committed` +
    ` (mean batch ${f.batch.toFixed(0)} messages; readable through the API)`)
  if (f.bare !== undefined) console.log(`   service ÷ bare aedes = ${(rate(f.service) / rate(f.bare)).toFixed(3)}; service process CPU ${f.serviceCpuS.toFixed(1)} s`)
  if (f.groups.length > 0) {
    const one = f.groups[0]?.committedPerS ?? Number.NaN
    console.log(table(['committed', 'msg/s', 'points/s', '÷ MQTT', '÷ MQTT one in flight'], [
      ['MQTT', f.committedPerS, f.pointsPerS, 1, f.committedPerS / one],
      ...f.groups.map((m) => [m.result.name, m.committedPerS, m.pointsPerS, m.committedPerS / f.committedPerS, m.committedPerS / one])
    ]))
    // Where each group's messages spent the machine's CPU (bench m3da-security: the codecs and security alone).
    const cpuRow = (name: string, c: CpuPerMessage): Array<string | number> => [name, c.service, c.devices, c.store, c.service + c.devices + (Number.isNaN(c.store) ? 0 : c.store)]
    console.log()
    console.log(table(['CPU µs per message', 'service', 'devices', 'PostgreSQL', 'total'], [cpuRow('MQTT', f.cpu), ...f.groups.map((m) => cpuRow(m.result.name, m.cpu))]))
  }
}

const results: Figures[] = []
if (STORES.includes('pglite')) results.push(await benchOn('pglite'))
if (!STORES.includes('postgres')) { /* not asked for */ } else if (SERVER_URL !== undefined) results.push(await benchOn('postgres'))
else console.log('\n(DATABASE_URL not set: PostgreSQL skipped)')

console.log('\n== summary')
if (M3DA) {
  const at = (f: Figures, i: number): GroupFigures | undefined => f.groups[i]
  console.log(table(['store', 'MQTT msg/s', 'MQTT one in flight', 'M3DA msg/s', 'M3DA points/s', 'M3DA secured msg/s', 'secured points/s', 'secured ÷ MQTT', 'secured ÷ MQTT one in flight'],
    results.map((f) => [f.store, f.committedPerS, at(f, 0)?.committedPerS ?? Number.NaN, at(f, 1)?.committedPerS ?? Number.NaN, at(f, 1)?.pointsPerS ?? Number.NaN,
      at(f, 2)?.committedPerS ?? Number.NaN, at(f, 2)?.pointsPerS ?? Number.NaN,
      (at(f, 2)?.committedPerS ?? Number.NaN) / f.committedPerS, (at(f, 2)?.committedPerS ?? Number.NaN) / (at(f, 0)?.committedPerS ?? Number.NaN)])))
} else {
  console.log(table(['store', 'committed msg/s', 'points/s', 'ack p50 ms', 'ack p99 ms', 'bare aedes msg/s', 'ratio'],
    results.map((f) => [f.store, f.committedPerS, f.pointsPerS, f.service.latencies.p50, f.service.latencies.p99,
      (f.bare?.acked ?? Number.NaN) / (f.bare?.seconds ?? 1), (f.service.acked / f.service.seconds) / ((f.bare?.acked ?? Number.NaN) / (f.bare?.seconds ?? 1))])))
}
