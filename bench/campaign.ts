// Install campaigns: simulated MQTT devices install a released package (full fleet, no rollout: time, MB/s, RSS, beside a reboot), at rollout.maxPerMinute, and stopped by waves and an abort threshold.
//
// Per store (PostgreSQL when DATABASE_URL is set, on a scratch database dropped after; then PGlite in a temporary
// DATA_DIR) and per scenario, a fresh fleet (bench/lib/campaign-fleet.ts): the service in a child process of its own,
// N systems seeded with the generic MQTT firmware, and N of the simulator's MQTT devices in another process, which
// carry out `swinstall` tasks as `fleet simulate` does (docs/simulator.md: download with resume, SHA-256 check against
// the link's ETag, then the answer). The package is a ZIP of one MQTT_SW model and one binary, released and published
// through the API (docs/packages.md); the install selects the systems by label. Scenarios (bench/lib/campaign-scenarios.ts):
// - full (--devices, 10,000): a reboot of the fleet (the baseline of a plain task), then an install of a 1 MiB
//   package, no rollout: request → FINISHED (target < 60 s), download MB/s from the bytes the links served
//   (fleet_package_download_bytes_total), the CPU the service, the devices and a local PostgreSQL had meanwhile (on
//   shared cores, whether the service waited or worked), the service's RSS sampled every 250 ms (target < 1 GiB);
// - rate (--rate-devices, 1,000): `rollout.maxPerMinute: 600`; the most tasks started in any 60 s, read from the
//   tasks' start dates (target 600 within 5 %, never over);
// - abort (--abort-devices, 1,000): 30 % of the devices fail their installs, `waves: [5, 20, 100]`, `abort:
//   {failurePercent: 20, minFinished: 20}`: aborted in the first wave, no task started past it.
// Targets (docs/benchmarks.md) are printed beside the figures and not asserted; so is the load average, since the
// devices, the service and the store share the machine.
//
// Flags: --scenarios full,rate,abort (all), --devices N (10000), --rate-devices N (1000), --abort-devices N (1000),
// --package-kib K (1024), --connect-rate R (500), --download-concurrency C (the device process's downloads at once,
// 32 as `fleet simulate`), --stores postgres,pglite (both), --max-seconds S (600).
// Env: DATABASE_URL (a PostgreSQL server), WORKER_CONCURRENCY (reaches the service).
import { parseArgs } from 'node:util'
import { cpus } from 'node:os'
import { startCampaignFleet, type Store } from './lib/campaign-fleet.js'
import { abortCampaign, fullCampaign, rateCampaign, type Figure } from './lib/campaign-scenarios.js'
import { DEFAULT_DOWNLOADS } from '../simulator/devices/limiter.js'
import { table } from './lib/table.js'

const { values: flags } = parseArgs({
  options: {
    scenarios: { type: 'string', default: 'full,rate,abort' },
    devices: { type: 'string', default: '10000' },
    'rate-devices': { type: 'string', default: '1000' },
    'abort-devices': { type: 'string', default: '1000' },
    'package-kib': { type: 'string', default: '1024' },
    'connect-rate': { type: 'string', default: '500' },
    'download-concurrency': { type: 'string', default: String(DEFAULT_DOWNLOADS) },
    stores: { type: 'string', default: 'postgres,pglite' },
    'max-seconds': { type: 'string', default: '600' }
  }
})
const positive = (name: keyof typeof flags): number => {
  const v = String(flags[name])
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1) { console.error(`--${name} takes a positive integer, got ${v}`); process.exit(2) }
  return n
}
type Scenario = 'full' | 'rate' | 'abort'
const SCENARIOS = flags.scenarios.split(',').map((s) => s.trim())
const unknown = SCENARIOS.filter((s) => s !== 'full' && s !== 'rate' && s !== 'abort')
if (unknown.length > 0) { console.error(`--scenarios takes full, rate, abort; got ${unknown.join(', ')}`); process.exit(2) }
const DEVICES: Record<Scenario, number> = { full: positive('devices'), rate: positive('rate-devices'), abort: positive('abort-devices') }
const BYTES = positive('package-kib') * 1024
const CONNECT_RATE = positive('connect-rate')
const CONCURRENCY = positive('download-concurrency')
const MAX_SECONDS = positive('max-seconds')
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const STORES = flags.stores.split(',').map((s) => s.trim())
  .filter((s): s is Store => s === 'pglite' || (s === 'postgres' && SERVER_URL !== undefined))
const SERVICE_ENV = Object.fromEntries(['WORKER_CONCURRENCY'].flatMap((k) => process.env[k] === undefined ? [] : [[k, process.env[k] ?? '']]))
// docs/benchmarks.md "Campaign".
const TARGET = { seconds: 60, rss: 1024 * 1024 * 1024, perMinute: 600 }
const FAILURE_RATE: Record<Scenario, number> = { full: 0, rate: 0, abort: 0.3 }

async function run (store: Store, scenario: Scenario): Promise<Figure[]> {
  console.log(`\n== ${store}, ${scenario}: the service (its own process), ${DEVICES[scenario]} systems and devices`)
  const fleet = await startCampaignFleet({
    store,
    serverUrl: SERVER_URL,
    devices: DEVICES[scenario],
    connectRate: CONNECT_RATE,
    software: { updateFailureRate: FAILURE_RATE[scenario], downloadConcurrency: CONCURRENCY },
    env: SERVICE_ENV
  })
  try {
    if (scenario === 'full') return await fullCampaign(fleet, { bytes: BYTES, maxSeconds: MAX_SECONDS, targetSeconds: TARGET.seconds, targetRss: TARGET.rss })
    if (scenario === 'rate') return await rateCampaign(fleet, { bytes: BYTES, perMinute: TARGET.perMinute, maxSeconds: MAX_SECONDS })
    return await abortCampaign(fleet, { bytes: BYTES, waves: [5, 20, 100], failurePercent: 20, minFinished: 20, maxSeconds: MAX_SECONDS })
  } finally {
    await fleet.close()
  }
}

console.log(`campaign bench: ${cpus().length} cores, stores ${STORES.join(', ')}${SERVER_URL === undefined ? ' (DATABASE_URL unset: PGlite only)' : ''}, ` +
  `scenarios ${SCENARIOS.join(', ')}, package ${BYTES / 1024} KiB, downloads in flight at most ${CONCURRENCY}`)
const rows: string[][] = []
for (const store of STORES) {
  for (const scenario of SCENARIOS as Scenario[]) {
    let figures: Figure[]
    try {
      figures = await run(store, scenario)
    } catch (err) {
      console.error(`   ${store} ${scenario} failed:`, err)
      figures = [{ name: 'failed', value: (err as Error).message }]
    }
    for (const f of figures) {
      rows.push([store, `${scenario} (${DEVICES[scenario]})`, f.name, f.value, f.target === undefined ? '' : `${f.target}: ${f.met === true ? 'met' : 'missed'}`])
    }
  }
}
console.log(`\n== Figures\n\n${table(['store', 'scenario (devices)', 'figure', 'value', 'target'], rows)}`)
