// Alert rules: ingest with 1,000 pinned rules beside none (committed msg/s, ratio), and point → hook latency p50/p99.
//
// One service per store in this process (PGlite in a temporary DATA_DIR; with DATABASE_URL also PostgreSQL, on a
// scratch database dropped after), as bench ingest runs it, with CALLBACK_ALLOW_PRIVATE=true (the hooks' receiver is
// on 127.0.0.1) and CALLBACK_SECRET set (hooks signed as in production). Two parts:
// a) Ingest: bench ingest's devices (bench/ingest-devices.ts, their own process), BENCH_DEVICES connections publishing
//    QoS 1 messages of 3 points (machine.temperature, _RSSI, sim.seq), BENCH_INFLIGHT in flight each, first with no
//    alert rule, then with one rule per device created through the API (bench/lib/alert-rules-bench.ts): pinned by
//    `system.id EQUALS <uid>` with `DATA.machine.temperature GT <threshold>`, so every message has a candidate rule and
//    is evaluated in its commit. The temperature climbs 20.0 → 29.9 by 0.1 a message and starts again; one device in
//    ten has the threshold 29.5 (an alert raised and closed every 100 of its messages), the others 35 (never true).
//    The rules are then deleted and the devices measured with none again: the store grows through the run, and a
//    group measured later commits less with or without rules (PGlite, 30 s groups: 11,668 msg/s first, 9,663 after
//    the rules' group, which made 9,893), so the rules' group is compared with the mean of the groups before and
//    after it. Committed msg/s of each, the ratio (target ≥ 0.9), the alerts raised and notified meanwhile.
// b) Hooks: a rule `DATA.bench.alarm GT 0.5` with a hook to a local HTTP receiver (this process), BENCH_HOOK_ALERTS
//    alerts raised at BENCH_HOOK_RATE a second by BENCH_HOOK_DEVICES devices taking turns (bench/lib/hook-latency.ts):
//    p50/p99 from the point's PUBLISH, and from the alert's date (taken in the transaction that commits the point), to
//    the signed hook's arrival (target p99 < 1 s).
// The load average is printed with each part: the service, the devices and the store share the machine's cores.
//
// Env: BENCH_PARTS (ingest,hooks), BENCH_STORES (pglite,postgres), DATABASE_URL, BENCH_SECONDS (60 per ingest group),
// BENCH_DEVICES (1000), BENCH_INFLIGHT (4), BENCH_HOOK_ALERTS (300), BENCH_HOOK_RATE (10), BENCH_HOOK_DEVICES (50).
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import type { Db } from '../core/ports/store.js'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { addHook, alertCounts, createPinnedRules, createRule, deleteRules, type AlertCounts, type ApiAccess } from './lib/alert-rules-bench.js'
import { measureHookLatency, type HookFigures } from './lib/hook-latency.js'
import { measureIngest, type IngestFigures, type IngestRun } from './lib/measure-ingest.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedDevices } from './lib/seed-devices.js'
import { benchConfig, passwordToken } from './lib/service.js'
import { table } from './lib/table.js'

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback)
const PARTS = (process.env.BENCH_PARTS ?? 'ingest,hooks').split(',').map((s) => s.trim())
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((s) => s.trim())
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const SECONDS = env('BENCH_SECONDS', 60)
const WARMUP = Math.min(5, Math.max(1, SECONDS / 6))
const DEVICES = env('BENCH_DEVICES', 1000)
const INFLIGHT = env('BENCH_INFLIGHT', 4)
const HOOK_ALERTS = env('BENCH_HOOK_ALERTS', 300)
const HOOK_RATE = env('BENCH_HOOK_RATE', 10)
const HOOK_DEVICES = Math.min(env('BENCH_HOOK_DEVICES', 50), DEVICES)
const PASSWORD = 'bench-mqtt-password'
const SECRET = 'bench-callback-secret'
const ADMIN = { password: 'bench-password', secret: 'bench-secret' }
const TARGET_RATIO = 0.9
const TARGET_P99_MS = 1000

type Store = 'pglite' | 'postgres'

interface StoreFigures {
  store: Store
  ingest: IngestFigures[]
  rulesSeconds: number
  alerts: AlertCounts | undefined
  hooks: HookFigures | undefined
  load: Record<string, string>
}

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ')

/** Part a: the devices with no rule, with one pinned rule each, then with none again. */
async function ingestPart (f: StoreFigures, api: ApiAccess, db: Db, mqttUrl: string): Promise<void> {
  const run: IngestRun = { devices: DEVICES, inflight: INFLIGHT, password: PASSWORD, seconds: SECONDS, warmupSeconds: WARMUP }
  f.load['ingest, before'] = load()
  f.ingest.push(await measureIngest(db, 'no rules', mqttUrl, run))
  const t0 = performance.now()
  const rules = await createPinnedRules(api, DEVICES)
  f.rulesSeconds = (performance.now() - t0) / 1000
  console.log(`   ${rules.length} rules created through the API in ${f.rulesSeconds.toFixed(1)} s`)
  f.ingest.push(await measureIngest(db, `${DEVICES} rules`, mqttUrl, run))
  f.alerts = await alertCounts(db, rules)
  await deleteRules(api, rules)
  f.ingest.push(await measureIngest(db, 'no rules, again', mqttUrl, run))
  f.load['ingest, after'] = load()
  console.log(`   alerts: ${f.alerts.raised} raised (${f.alerts.open} open), ${f.alerts.notified} notified by the end of the run`)
}

/** Part b: one rule with a hook to the local receiver, alerts raised one after another. */
async function hooksPart (f: StoreFigures, api: ApiAccess, mqttUrl: string): Promise<void> {
  console.log(`   hooks: ${HOOK_ALERTS} alerts, ${HOOK_RATE} a second, ${HOOK_DEVICES} devices taking turns`)
  const dataId = 'bench.alarm'
  const ruleUid = await createRule(api, { name: 'Alarm', conditions: [{ operator: 'GT', operands: [{ attributeId: { name: `DATA.${dataId}` } }, { valueNum: 0.5 }] }] })
  f.load['hooks, before'] = load()
  const run = { mqttUrl, devices: HOOK_DEVICES, password: PASSWORD, alerts: HOOK_ALERTS, perSecond: HOOK_RATE, dataId, secret: SECRET }
  f.hooks = await measureHookLatency({ ...run, addHook: async (url) => { await addHook(api, ruleUid, url) } })
  f.load['hooks, after'] = load()
  console.log(`   hooks: ${f.hooks.delivered} of ${f.hooks.alerts} delivered, p99 from the commit ${f.hooks.fromCommit.p99.toFixed(0)} ms`)
}

async function benchOn (store: Store): Promise<StoreFigures> {
  const f: StoreFigures = { store, ingest: [], rulesSeconds: Number.NaN, alerts: undefined, hooks: undefined, load: {} }
  const scratch: ScratchDatabase | undefined = store === 'postgres' && SERVER_URL !== undefined ? await createScratchDatabase(SERVER_URL, 'fleet_bench_alerts') : undefined
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-alerts-'))
  try {
    console.log(`\n== ${store}: starting the service (this process) and registering ${DEVICES} systems`)
    const config = benchConfig(dataDir, scratch?.url, {
      FLEET_ADMIN_PASSWORD: ADMIN.password,
      FLEET_CLIENT_SECRET: ADMIN.secret,
      CALLBACK_ALLOW_PRIVATE: 'true',
      CALLBACK_SECRET: SECRET,
      // A rule per device, and part b's one more.
      ALERT_RULES_PER_COMPANY: String(DEVICES + 1)
    })
    const infra = await openInfra(config)
    const service = await assembleService(config, pino({ level: 'silent' }), infra)
    try {
      const { httpPort, ports } = await service.listen({ anyPort: true, host: '127.0.0.1' })
      const origin = `http://127.0.0.1:${httpPort ?? 0}`
      const token = await passwordToken(origin, { username: config.FLEET_ADMIN_EMAIL, password: ADMIN.password, clientId: config.FLEET_CLIENT_ID, clientSecret: ADMIN.secret })
      const companyUid = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
      await seedDevices(infra.db, companyUid, DEVICES, { password: PASSWORD, applicationType: 'generic.mqtt', label: 'bench-alerts' })
      const mqttUrl = `mqtt://127.0.0.1:${ports.mqtt ?? 0}`
      const api: ApiAccess = { origin, token }
      if (PARTS.includes('ingest')) await ingestPart(f, api, infra.db, mqttUrl)
      if (PARTS.includes('hooks')) await hooksPart(f, api, mqttUrl)
    } finally {
      await service.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
  return f
}

function print (f: StoreFigures): void {
  console.log(`\n== ${f.store}`)
  const [none, rules, again] = f.ingest
  if (none !== undefined && rules !== undefined && again !== undefined) {
    console.log(`\ningest, ${DEVICES} devices, ${INFLIGHT} in flight each, ${SECONDS} s a group\n`)
    console.log(table(['alert rules', 'committed msg/s', 'acked msg/s', 'ack p50 ms', 'ack p99 ms', 'service µs/msg', 'unacked'],
      f.ingest.map((g) => [g.name, g.committedPerS, g.result.acked / g.result.seconds, g.result.latencies.p50, g.result.latencies.p99, g.serviceUsPerMessage, g.result.errors])))
    const ratio = rules.committedPerS / ((none.committedPerS + again.committedPerS) / 2)
    console.log(`   with rules ÷ without (the mean of the groups before and after) = ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'missed'})`)
    console.log(`   without, after ÷ before = ${(again.committedPerS / none.committedPerS).toFixed(3)} (the store's growth through the run)`)
    if (f.alerts !== undefined) console.log(`   alerts raised meanwhile: ${f.alerts.raised} (${f.alerts.open} still open, ${f.alerts.notified} notified by the end)`)
  }
  if (f.hooks !== undefined) {
    const h = f.hooks
    console.log(`\npoint → hook, ${h.alerts} alerts over ${h.seconds.toFixed(0)} s: ${h.delivered} delivered, ${h.badSignatures} with a bad signature\n`)
    console.log(table(['from', 'p50 ms', 'p99 ms', 'max ms'], [
      ['the point\'s PUBLISH', h.fromPublish.p50, h.fromPublish.p99, h.fromPublish.max],
      ['the alert\'s date (in the commit)', h.fromCommit.p50, h.fromCommit.p99, h.fromCommit.max]
    ]))
    console.log(`   p99 from the commit < ${TARGET_P99_MS} ms: ${h.fromCommit.p99 < TARGET_P99_MS && h.delivered === h.alerts ? 'met' : 'missed'}`)
  }
  console.log('\nload average (1, 5, 15 min):')
  for (const [when, l] of Object.entries(f.load)) console.log(`   ${when}: ${l}`)
}

const results: StoreFigures[] = []
for (const store of STORES) {
  if (store !== 'pglite' && store !== 'postgres') continue
  if (store === 'postgres' && SERVER_URL === undefined) { console.log('\n(DATABASE_URL not set: PostgreSQL skipped)'); continue }
  results.push(await benchOn(store))
}
for (const f of results) print(f)
