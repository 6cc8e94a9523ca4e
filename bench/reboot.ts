// Device operations: 10,000 simulated MQTT devices, one reboot of all, then one apply-settings of all; time to FINISHED, tasks/s, service RSS.
//
// Per store (PostgreSQL when DATABASE_URL is set, on a scratch database dropped after; then PGlite in a temporary
// DATA_DIR): the service runs in a child process of its own (bench/lib/service-process.ts), with N systems seeded
// through the Db port (bench/lib/seed-devices.ts: the public generic MQTT firmware application, an MQTT password,
// one label). A second child process (bench/lib/devices-process.ts) runs N of the simulator's MQTT devices, one
// connection each, connected at a steady pace and subscribed to their tasks. Then, through HTTP, selected by that
// label (a uid list is capped at 100, docs/api.md): a reboot operation (each device goes off for --reboot-ms,
// `_NUMBER_OF_RESETS` + 1, comes back, reports, acks), then an apply-settings operation with `reboot: false`
// (each device applies the write and acks). For each: request → FINISHED with every task SUCCESS, tasks/s, and
// the service's RSS with the N connections before, at most while it ran (sampled at each poll) and at the end.
// What the devices report is checked: one restart each, the setting written on each.
//
// Target (docs/benchmarks.md), printed beside the figures and not asserted: on PostgreSQL every device rebooted and
// acknowledged in under 10 s, the service under 1 GiB RSS.
//
// Flags: --devices N (10000), --connect-rate R (devices connected per second, 500), --reboot-ms MS (1000),
// --stores postgres,pglite (both), --max-seconds S (an operation not FINISHED by then is reported as such, 300),
// --client lean|mqtt.js (the devices' MQTT link: bench/lib/lean-mqtt-device.ts, or the simulator's mqtt.js one,
// about ten times the memory per device).
// Env: DATABASE_URL (a PostgreSQL server), WORKER_CONCURRENCY (reaches the service).
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js'
import { startDevicesProcess, type DevicesClient, type DevicesProcess, type DevicesStats } from './lib/devices-process.js'
import { table, type Cell } from './lib/table.js'

const { values: flags } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    'connect-rate': { type: 'string', default: '500' },
    'reboot-ms': { type: 'string', default: '1000' },
    stores: { type: 'string', default: 'postgres,pglite' },
    client: { type: 'string', default: 'lean' },
    'max-seconds': { type: 'string', default: '300' }
  }
})
const positive = (name: string, v: string): number => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) { console.error(`--${name} takes a positive integer, got ${v}`); process.exit(2) }
  return n
}
const DEVICES = positive('devices', flags.devices)
const CONNECT_RATE = positive('connect-rate', flags['connect-rate'])
const REBOOT_MS = positive('reboot-ms', flags['reboot-ms'])
const MAX_SECONDS = positive('max-seconds', flags['max-seconds'])
const STORES = flags.stores.split(',').map((s) => s.trim()).filter((s): s is Store => s === 'postgres' || s === 'pglite')
if (flags.client !== 'lean' && flags.client !== 'mqtt.js') { console.error(`--client takes lean or mqtt.js, got ${flags.client}`); process.exit(2) }
const CLIENT: DevicesClient = flags.client
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const SERVICE_ENV = Object.fromEntries(['WORKER_CONCURRENCY'].flatMap((k) => process.env[k] === undefined ? [] : [[k, process.env[k] ?? '']]))

const LABEL = 'bench-reboot'
const MQTT_PASSWORD = 'bench-mqtt-password'
const ADMIN = { email: 'reboot@fleet.local', password: 'reboot-bench-password', client: 'reboot-bench', secret: 'reboot-bench-secret' }
const SETTING = { key: 'config.reportPeriodS', value: 120 }
const POLL_MS = 100
const MIB = 1024 * 1024
const mib = (b: number): number => Math.round(b / MIB)
// docs/benchmarks.md: on PostgreSQL.
const TARGET = { seconds: 10, rssBytes: 1024 * MIB }

type Store = 'postgres' | 'pglite'
interface Op { state: string, total: number, counters: Array<{ state: string, count: number }> }

interface Run {
  store: Store
  operation: string
  tasks: number
  success: number
  finished: boolean
  /** POST answered (selection resolved, operation and tasks written). */
  requestMs: number
  /** Request sent → FINISHED seen, or every task of a connected device ended (some never connected), or given up. */
  toFinishedS: number
  /** Tasks ended (SUCCESS or FAILURE) per second of toFinishedS. */
  tasksPerS: number
  /** Acks the devices had sent and seen acknowledged, and errors they met, during this operation. */
  deviceAcks: number
  deviceErrors: number
  /** What the devices show: restarts (reboot), devices holding the value written (settings). */
  check: string
  rssBefore: number
  rssMax: number
  rssEnd: number
}

interface StoreResult { store: Store, connectS: number, seedS: number, devicesRss: number, runs: Run[] }

async function token (origin: string): Promise<string> {
  const qs = new URLSearchParams({ grant_type: 'password', username: ADMIN.email, password: ADMIN.password, client_id: ADMIN.client, client_secret: ADMIN.secret })
  const res = await fetch(`${origin}/api/oauth/token?${qs.toString()}`)
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

const count = (op: Op, state: string): number => op.counters.find((c) => c.state === state)?.count ?? 0
const open = (op: Op): string => op.counters.filter((c) => c.state !== 'SUCCESS' && c.count > 0).map((c) => `${c.count} ${c.state}`).join(', ')

/** POSTs the operation, asked again while the service sheds it; its uid, or undefined when the kind is unknown (404). */
async function postOperation (svc: ServiceProcess, headers: Record<string, string>, operation: string, path: string, body: unknown): Promise<string | undefined> {
  let res: Response
  // 503: the service shed the request (event loop or in-flight limits, docs/monitoring.md),
  // before creating anything; it is asked again a moment later, as a client would.
  for (;;) {
    res = await fetch(`${svc.origin}/api/v1/operations/systems/${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    if (res.status !== 503) break
    await res.text()
    await sleep(POLL_MS)
  }
  if (res.status === 404) {
    // A service without this operation kind yet: the rest of the run still says something.
    console.log(`   ${operation}: POST /api/v1/operations/systems/${path} answers 404 (${await res.text()}): not measured`)
    return undefined
  }
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${await res.text()}`)
  return (await res.json() as { operation: string }).operation
}

/** What polling the operation until it ended saw. */
interface Polled { op: Op, rssMax: number, shed: number, reachable: number }

/**
 * Polls the operation until FINISHED, MAX_SECONDS, or every device still reachable answered. Devices that never
 * connected, or gave up reconnecting after a reboot, keep their tasks open until the operation's timeout: the run
 * ends once every other device has answered.
 */
async function pollOperation (svc: ServiceProcess, devices: DevicesProcess, headers: Record<string, string>, uid: string, t0: number, reachable0: number, rss0: number): Promise<Polled> {
  let reachable = reachable0
  let rssMax = rss0
  let shown = t0
  let shed = 0
  for (;;) {
    const r = await fetch(`${svc.origin}/api/v1/operations/${uid}`, { headers })
    if (r.status === 503) {
      shed++
      await r.text()
      await sleep(POLL_MS)
      continue
    }
    if (r.status !== 200) throw new Error(`GET operation: ${r.status} ${await r.text()}`)
    const op = await r.json() as Op
    rssMax = Math.max(rssMax, await svc.rss())
    const elapsed = (performance.now() - t0) / 1000
    if (performance.now() - shown >= 1000) {
      const now = await devices.stats()
      reachable = now.devices - now.gone
    }
    const ended = count(op, 'SUCCESS') + count(op, 'FAILURE')
    if (op.state === 'FINISHED' || elapsed > MAX_SECONDS || (reachable < op.total && ended >= reachable)) return { op, rssMax, shed, reachable }
    if (performance.now() - shown >= 1000) {
      shown = performance.now()
      console.log(`   ${elapsed.toFixed(1).padStart(5)} s  ${count(op, 'SUCCESS')} of ${op.total} SUCCESS${open(op) === '' ? '' : `; ${open(op)}`}`)
    }
    await sleep(POLL_MS)
  }
}

async function measure (store: Store, svc: ServiceProcess, devices: DevicesProcess, headers: Record<string, string>,
  operation: string, path: string, body: unknown, check: (before: DevicesStats, after: DevicesStats) => string): Promise<Run | undefined> {
  const before = await devices.stats()
  const rssBefore = await svc.rss()
  await svc.profileStart()
  const t0 = performance.now()
  const uid = await postOperation(svc, headers, operation, path, body)
  if (uid === undefined) return undefined
  const requestMs = performance.now() - t0
  const { op, rssMax, shed, reachable } = await pollOperation(svc, devices, headers, uid, t0, before.devices - before.gone, rssBefore)
  const toFinishedS = (performance.now() - t0) / 1000
  const profiled = await svc.profileStop(`${store}-${operation.replace(/\s+/g, '-')}`)
  if (profiled !== null) console.log(`   CPU profile of the service during ${operation}: ${profiled}`)
  const rssEnd = await svc.rss()
  // The devices' last acks are acknowledged by the service before the operation can finish; a moment for their
  // own counters to follow.
  await sleep(200)
  const after = await devices.stats(SETTING)
  const success = count(op, 'SUCCESS')
  const ended = success + count(op, 'FAILURE')
  const finished = op.state === 'FINISHED'
  const run: Run = {
    store,
    operation,
    tasks: op.total,
    success,
    finished,
    requestMs,
    toFinishedS,
    tasksPerS: ended / toFinishedS,
    deviceAcks: after.answered - before.answered,
    deviceErrors: after.errors - before.errors,
    check: check(before, after),
    rssBefore,
    rssMax: Math.max(rssMax, rssEnd),
    rssEnd
  }
  const state = finished ? 'FINISHED' : ended >= reachable ? `every device still there answered (${op.total - reachable} never connected or gave up reconnecting)` : `not FINISHED after ${MAX_SECONDS} s`
  console.log(`   ${operation}: ${state} in ${toFinishedS.toFixed(2)} s, ` +
    `${success} of ${op.total} SUCCESS${open(op) === '' ? '' : ` (${open(op)})`}, ${run.tasksPerS.toFixed(0)} tasks/s; service RSS ` +
    `${mib(rssBefore)} MiB before, ${mib(run.rssMax)} at most, ${mib(rssEnd)} after${shed > 0 ? `; ${shed} polls shed (503)` : ''}; devices: ${run.check}` +
    `${run.deviceErrors > 0 ? `, ${run.deviceErrors} errors (last: ${after.lastError ?? '?'})` : ''}`)
  return run
}

async function benchOn (store: Store): Promise<StoreResult> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_reboot')
  let svc: ServiceProcess | undefined
  let devices: DevicesProcess | undefined
  try {
    console.log(`\n== ${store}: starting the service (its own process) and seeding ${DEVICES} systems`)
    svc = await startServiceProcess({
      databaseUrl: scratch?.url,
      env: {
        ...SERVICE_ENV,
        FLEET_ADMIN_EMAIL: ADMIN.email,
        FLEET_ADMIN_PASSWORD: ADMIN.password,
        FLEET_CLIENT_ID: ADMIN.client,
        FLEET_CLIENT_SECRET: ADMIN.secret
      },
      devices: DEVICES,
      seed: { password: MQTT_PASSWORD, applicationType: 'generic.mqtt', label: LABEL }
    })
    console.log(`   seeded in ${svc.seedSeconds.toFixed(1)} s; service pid ${svc.pid}, RSS ${((await svc.rss()) / MIB).toFixed(0)} MiB`)
    console.log(`   connecting ${DEVICES} MQTT devices from their own process, ${CONNECT_RATE} a second`)
    await svc.profileStart()
    let lastShown = 0
    devices = startDevicesProcess({ mqttUrl: svc.mqttUrl, devices: DEVICES, password: MQTT_PASSWORD, perSecond: CONNECT_RATE, rebootMs: REBOOT_MS, client: CLIENT },
      (connected, failed) => {
        if (connected - lastShown < DEVICES / 10 && connected < DEVICES) return
        lastShown = connected
        console.log(`   ${connected} connected${failed > 0 ? `, ${failed} given up` : ''}`)
      })
    const ready = await devices.ready
    const connectProfile = await svc.profileStop(`${store}-connect`)
    if (connectProfile !== null) console.log(`   CPU profile of the service while the devices connected: ${connectProfile}`)
    console.log(`   ${ready.connected} devices connected and subscribed in ${ready.seconds.toFixed(1)} s` +
      `${ready.failed > 0 ? `; ${ready.failed} could not connect (${ready.lastError ?? '?'})` : ''}`)
    if (ready.connected === 0) throw new Error('no device connected')
    const headers = { authorization: `Bearer ${await token(svc.origin)}`, 'content-type': 'application/json' }

    const reboot = await measure(store, svc, devices, headers, 'reboot', 'reboot', { systems: { label: LABEL } },
      (b, a) => `${a.resets - b.resets} restarts of ${a.devices} devices, ${a.connected} connected after`)
    const settings = await measure(store, svc, devices, headers, 'apply settings', 'settings',
      { systems: { label: LABEL }, settings: [SETTING], reboot: false },
      (b, a) => `${a.withSetting} of ${a.devices} hold ${SETTING.key} = ${SETTING.value}, ${a.resets - b.resets} restarts`)
    const devicesRss = (await devices.stats()).rss
    return { store, connectS: ready.seconds, seedS: svc.seedSeconds, devicesRss, runs: [reboot, settings].filter((x) => x !== undefined) }
  } finally {
    await devices?.close()
    await svc?.close()
    await scratch?.drop()
  }
}

const results: StoreResult[] = []
for (const store of STORES) {
  if (store === 'postgres' && SERVER_URL === undefined) { console.log('\n(DATABASE_URL not set: PostgreSQL skipped)'); continue }
  results.push(await benchOn(store))
}

console.log(`\n${DEVICES} simulated MQTT devices (one process), reboot off ${REBOOT_MS} ms, connected ${CONNECT_RATE}/s; poll every ${POLL_MS} ms`)
for (const r of results) {
  console.log(`\n== ${r.store} (seed ${r.seedS.toFixed(1)} s, connect ${r.connectS.toFixed(1)} s, device process RSS ${mib(r.devicesRss)} MiB)\n`)
  const rows: Cell[][] = r.runs.map((x) => [x.operation, x.tasks, x.success, x.finished ? 'yes' : 'no', x.requestMs, x.toFinishedS, x.tasksPerS, x.deviceAcks, mib(x.rssBefore), mib(x.rssMax), mib(x.rssEnd)])
  console.log(table(['operation', 'tasks', 'SUCCESS', 'FINISHED', 'request ms', 'to FINISHED s', 'tasks/s', 'device acks', 'RSS before MiB', 'RSS max MiB', 'RSS end MiB'], rows))
  for (const x of r.runs) console.log(`   ${x.operation}: ${x.check}`)
  if (r.store === 'postgres') {
    const reboot = r.runs.find((x) => x.operation === 'reboot')
    if (reboot !== undefined) {
      const allOk = reboot.finished && reboot.success === reboot.tasks && reboot.tasks === DEVICES
      const fast = allOk && reboot.toFinishedS < TARGET.seconds
      const small = Math.max(...r.runs.map((x) => x.rssMax)) < TARGET.rssBytes
      console.log(`   target (issue 9): every device rebooted and acknowledged in < ${TARGET.seconds} s: ${reboot.toFinishedS.toFixed(2)} s, ` +
        `${reboot.success}/${DEVICES} SUCCESS (${fast ? 'met' : 'missed'}); service RSS < ${mib(TARGET.rssBytes)} MiB: ` +
        `${mib(Math.max(...r.runs.map((x) => x.rssMax)))} MiB at most (${small ? 'met' : 'missed'})`)
    }
  }
}

const pg = results.find((r) => r.store === 'postgres')
const lite = results.find((r) => r.store === 'pglite')
if (pg !== undefined && lite !== undefined) {
  console.log('\n== PGlite ÷ PostgreSQL (same run)\n')
  const rows: Cell[][] = pg.runs.map((p) => {
    const l = lite.runs.find((x) => x.operation === p.operation)
    return l === undefined ? [p.operation, Number.NaN, Number.NaN, Number.NaN] : [p.operation, l.toFinishedS / p.toFinishedS, l.tasksPerS / p.tasksPerS, l.rssMax / p.rssMax]
  })
  console.log(table(['operation', 'to FINISHED', 'tasks/s', 'RSS max'], rows))
}
