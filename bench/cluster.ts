// Cluster ingest: messages committed per second behind Mosquitto with 1 and with 2 ingest processes, and
// the embedded broker's figure in the same run.
//
// Everything runs on this machine, on one PostgreSQL database (DATABASE_URL, a scratch database dropped after):
// BENCH_DEVICES systems are inserted straight into the store, a Mosquitto of the bench's own starts on a free port
// (anonymous devices: what is measured is the path broker → service → store, not the broker's logins), and the
// service runs as real CLI processes (`fleet serve`). Three targets in turn, each for BENCH_SECONDS after a warm-up:
//   embedded   one process, all roles, its own MQTT port: the devices publish to it (bench ingest's setting)
//   ingest ×1  one `fleet serve --roles ingest` with MQTT_URL: the devices publish to Mosquitto
//   ingest ×2  two of them, sharing the subscriptions
// The device process is bench ingest's (bench/ingest-devices.ts: QoS 1, BENCH_INFLIGHT in flight per connection). A
// broker acknowledges a device at once and the service commits after, so the figure is what the store gained in the
// window, counted in device_messages, not the devices' PUBACKs; the backlog Mosquitto held at the end is printed,
// and the commit rate while the service drains it after the devices stopped.
//
// Env: DATABASE_URL (required), BENCH_SECONDS (30), BENCH_DEVICES (500), BENCH_INFLIGHT (4).
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openInfra } from '../bin/context.js'
import type { Db } from '../core/ports/store.js'
import { devicesInput, runDevices } from './lib/device-process.js'
import { benchConfig } from './lib/service.js'
import { createScratchDatabase } from './lib/postgres.js'
import { seedSystems } from './lib/seed-systems.js'
import { table } from './lib/table.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const DEVICES = Number(process.env.BENCH_DEVICES ?? 500)
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 4)
const WARMUP = 5
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const PASSWORD = 'bench-cluster-password'
const FLEET = fileURLToPath(new URL('../bin/fleet.mjs', import.meta.url))

async function freePort (): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1')
  await once(s, 'listening')
  const a = s.address()
  s.close()
  return typeof a === 'object' && a !== null ? a.port : 0
}

async function waitLine (child: ChildProcess, re: RegExp, what: string): Promise<void> {
  let seen = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (b: Buffer): void => { seen += b.toString('utf8'); if (re.test(seen)) resolve() }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => { reject(new Error(`${what} exited (${String(code)}) before starting:\n${seen.slice(-2000)}`)) })
  })
}

async function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

/**
 * A Mosquitto of the bench's own: anonymous, sessions with room for any backlog, and no cap of its own on the
 * messages in flight to a client (default 20), so that the service's Receive Maximum is what applies.
 */
async function startMosquitto (dir: string): Promise<{ url: string, child: ChildProcess }> {
  const port = await freePort()
  const conf = join(dir, 'mosquitto.conf')
  await writeFile(conf, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'max_queued_messages 0', 'max_inflight_messages 0',
    `user ${userInfo().username}`, ''].join('\n'))
  const child = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' })
  for (let tries = 0; ; tries++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => { s.destroy(); resolve(true) })
      s.once('error', () => { resolve(false) })
    })
    if (ok) break
    if (tries > 100 || child.exitCode !== null) throw new Error('mosquitto did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url: `mqtt://127.0.0.1:${port}`, child }
}

async function serve (env: Record<string, string>, roles: string | undefined): Promise<ChildProcess> {
  const args = roles === undefined ? ['serve'] : ['serve', '--roles', roles]
  const child = spawn(process.execPath, [FLEET, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  await waitLine(child, /fleet service started/, `fleet ${args.join(' ')}`)
  return child
}

async function committed (db: Db): Promise<number> {
  return Number((await db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM device_messages')).rows[0]?.n ?? 0)
}

interface Figure { name: string, committedPerS: number, ackedPerS: number, backlog: number, drainPerS: number }

// After the devices stop, what the broker still holds is committed with the cores to the service and the store alone
// (the devices' process and the broker's routing of their publishes no longer compete): measured this long.
const DRAIN_SECONDS = Math.min(SECONDS, 15)

/** The device process on one target; the store's messages counted over the same window as its PUBACKs. */
async function measure (name: string, url: string, db: Db): Promise<Figure> {
  const start = await committed(db)
  const devices = runDevices(devicesInput([{ name, url }], { devices: DEVICES, password: PASSWORD, seconds: SECONDS, warmupSeconds: WARMUP, inflight: INFLIGHT }))
  // The devices connect, warm up, then publish for SECONDS: the store is counted over that window.
  let from = 0
  let to = 0
  const windowDone = (async () => {
    await new Promise((resolve) => setTimeout(resolve, 3000 + WARMUP * 1000))
    from = await committed(db)
    const t0 = performance.now()
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000))
    to = await committed(db)
    return (performance.now() - t0) / 1000
  })()
  const [result] = await devices
  const seconds = await windowDone
  if (result === undefined) throw new Error('the device process answered nothing')
  // Acknowledged to the devices and not committed when they stopped: what the broker still held for the service.
  const atStop = await committed(db)
  const backlog = Math.max(0, result.ackedTotal - (atStop - start))
  let drainPerS = Number.NaN
  if (backlog > 0) {
    const t0 = performance.now()
    await new Promise((resolve) => setTimeout(resolve, DRAIN_SECONDS * 1000))
    drainPerS = ((await committed(db)) - atStop) / ((performance.now() - t0) / 1000)
  }
  return { name, committedPerS: (to - from) / seconds, ackedPerS: result.acked / result.seconds, backlog, drainPerS }
}

if (SERVER_URL === undefined) {
  console.error('bench cluster needs DATABASE_URL (a PostgreSQL server): a cluster shares one store')
  process.exit(2)
}
const scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_cluster')
const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-cluster-'))
const children: ChildProcess[] = []
try {
  const base = { DATABASE_URL: scratch.url, DATA_DIR: dir, HTTP_HOST: '127.0.0.1', M3DA_PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_PER_S: '1000000000', FLEET_ADMIN_PASSWORD: 'bench-password', FLEET_CLIENT_SECRET: 'bench-secret' }
  const figures: Figure[] = []
  console.log(`\n== ${DEVICES} devices, ${SECONDS} s per target, ${INFLIGHT} messages in flight per device`)

  // The embedded service first: it migrates the store and makes the company the systems are seeded in.
  const mqttPort = await freePort()
  const embedded = await serve({ ...base, HTTP_PORT: String(await freePort()), MQTT_PORT: String(mqttPort) }, undefined)
  children.push(embedded)
  const infra = await openInfra(benchConfig(dir, scratch.url))
  const db = infra.db
  const company = (await db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
  await seedSystems(db, company, DEVICES, Date.now())
  await db.query('UPDATE systems SET communication = $1::jsonb', [JSON.stringify({ mqtt: { password: PASSWORD } })])
  await db.query(`INSERT INTO comm_identifiers (identifier, system_uid)
    SELECT g.serial_number, s.uid FROM systems s JOIN gateways g ON g.uid = s.gateway_uid`)
  await db.exec('VACUUM ANALYZE')
  figures.push(await measure('embedded broker, 1 process', `mqtt://127.0.0.1:${mqttPort}`, db))
  console.log(figures.at(-1))
  await stop(embedded)

  for (const n of [1, 2]) {
    const broker = await startMosquitto(dir)
    children.push(broker.child)
    const ingest: ChildProcess[] = []
    for (let i = 0; i < n; i++) {
      const p = await serve({ ...base, HTTP_PORT: String(await freePort()), MQTT_URL: broker.url, MQTT_DYNSEC: 'false', FLEET_NODE_ID: `bench-ingest-${n}-${i}` }, 'ingest')
      children.push(p)
      ingest.push(p)
    }
    figures.push(await measure(`Mosquitto, ${n} ingest process${n > 1 ? 'es' : ''}`, broker.url, db))
    console.log(figures.at(-1))
    for (const p of ingest) await stop(p)
    await stop(broker.child)
  }
  await infra.queue.close()
  await db.close()

  const one = figures[1]?.committedPerS ?? Number.NaN
  console.log(`\nCluster ingest on PostgreSQL (${DEVICES} QoS 1 devices, ${SECONDS} s each)\n`)
  console.log(table(['target', 'committed msg/s', 'device PUBACKs/s', 'left in the broker', `draining msg/s (${DRAIN_SECONDS} s)`, 'ratio to 1 ingest process', 'ratio to embedded'],
    figures.map((f) => [f.name, f.committedPerS, f.ackedPerS, f.backlog, f.drainPerS, f.committedPerS / one, f.committedPerS / (figures[0]?.committedPerS ?? Number.NaN)])))
  console.log(`\nThe broker acknowledges the devices at once, so they publish faster than the service commits and their process
and the broker's routing take cores from the ingest; "draining" is the commit rate once they stopped, on what the broker
held (${DRAIN_SECONDS} s, or until it is empty).`)
} finally {
  for (const c of children) await stop(c).catch(() => {})
  await rm(dir, { recursive: true, force: true })
  await scratch.drop()
}
