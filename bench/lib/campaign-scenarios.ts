// The three scenarios of `npm run bench -- campaign` (bench/campaign.ts), each on a fleet of campaign-fleet.ts:
// - full: every device installs a package with no rollout; request → FINISHED, download throughput, the service's
//   RSS at most, beside a reboot of the same fleet in the same run (a plain task: the cost of downloading and
//   installing against it);
// - rate: `rollout.maxPerMinute`: tasks started per 60 s, read from the tasks' start dates;
// - abort: waves and `rollout.abort` on a fleet whose share fails its installs: the rollout stops in its first wave
//   and no task starts past it.
// The contract is docs/operations.md "Safe rollouts" and docs/packages.md "Installs".
import { loadavg } from 'node:os'
import { allTasks, bytesServed, count, followOperation, postOperation, sampleMax, type Operation } from './campaign-api.js'
import { LABEL, type CampaignFleet } from './campaign-fleet.js'
import { releasePackage } from './campaign-package.js'
import { processCpuSeconds } from './process-cpu.js'
import { isLocalServer, postgresCpuSeconds } from './server-cpu.js'

/** One figure of a scenario: its value as printed, and its target and verdict when it has one. */
export interface Figure { name: string, value: string, target?: string, met?: boolean }

const MIB = 1024 * 1024
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ')
/** CPU seconds so far of the service, the device process and (local server) PostgreSQL; NaN where unknown. */
async function cpu (f: CampaignFleet): Promise<{ service: number, devices: number, postgres: number }> {
  const pg = f.store === 'postgres' && isLocalServer(process.env.DATABASE_URL) ? postgresCpuSeconds() : undefined
  return { service: await processCpuSeconds(f.svc.pid) ?? Number.NaN, devices: (await f.devices.stats()).cpuS, postgres: pg ?? Number.NaN }
}

/** What share of the wall time each process had the CPU: on 2 shared cores, whether the service waited or worked. */
function cpuShare (before: { service: number, devices: number, postgres: number }, after: typeof before, seconds: number): string {
  const part = (name: string, s: number): string => Number.isNaN(s) ? '' : `${name} ${s.toFixed(1)} s (${(100 * s / seconds).toFixed(0)} %)`
  return [part('service', after.service - before.service), part('devices', after.devices - before.devices), part('PostgreSQL', after.postgres - before.postgres)]
    .filter((x) => x !== '').join(', ') + ` of ${seconds.toFixed(0)} s`
}

const counters = (op: Operation): string => op.counters.filter((c) => c.count > 0).map((c) => `${c.count} ${c.state}`).join(', ')

/** Follows an operation, a progress line every 5 s, the service's RSS sampled throughout; seconds from `t0`. */
async function watch (f: CampaignFleet, uid: string, t0: number, maxSeconds: number): Promise<{ op: Operation, seconds: number, rssMax: number }> {
  const rss = sampleMax(async () => await f.svc.rss())
  let shown = 0
  try {
    const op = await followOperation(f.api, uid, maxSeconds, async (o, elapsed) => {
      if (elapsed - shown < 5) return
      shown = elapsed
      const d = await f.devices.stats()
      console.log(`   ${elapsed.toFixed(0).padStart(4)} s  ${counters(o)}; devices: ${d.connected} connected, ${d.gone} gone, ${d.errors} errors` +
        `${d.lastError === undefined ? '' : ` (last: ${d.lastError})`}; load ${load()}`)
    })
    const seconds = (performance.now() - t0) / 1000
    return { op, seconds, rssMax: await rss.stop() }
  } finally {
    // A failed poll stops the sampling too: its loop would keep the benchmark's process alive once the run is over.
    await rss.stop()
  }
}

export interface FullOptions { bytes: number, maxSeconds: number, targetSeconds: number, targetRss: number }

/** Scenario a: a reboot of the fleet (the baseline), then an install of a package of `bytes` on every device. */
export async function fullCampaign (f: CampaignFleet, o: FullOptions): Promise<Figure[]> {
  const systems = { label: LABEL }
  console.log(`   baseline: reboot of the ${f.connected} devices (load ${load()})`)
  let t0 = performance.now()
  const reboot = await watch(f, await postOperation(f.api, 'reboot', { systems }), t0, o.maxSeconds)
  console.log(`   reboot: ${reboot.op.state} in ${reboot.seconds.toFixed(1)} s (${counters(reboot.op)}), RSS at most ${Math.round(reboot.rssMax / MIB)} MiB`)
  const app = await releasePackage(f.api, 'com.bench.campaign', '1.0.0', o.bytes)
  const before = await bytesServed(f.svc.origin)
  const answeredBefore = await f.devices.stats()
  const loadBefore = load()
  const cpu0 = await cpu(f)
  console.log(`   install of a ${(o.bytes / MIB).toFixed(1)} MiB package on the ${f.connected} devices, no rollout (load ${loadBefore})`)
  t0 = performance.now()
  const install = await watch(f, await postOperation(f.api, 'applications/install', { application: app, systems }), t0, o.maxSeconds)
  const served = await bytesServed(f.svc.origin) - before
  const cpuUsed = cpuShare(cpu0, await cpu(f), install.seconds)
  const stats = await f.devices.stats()
  const mbps = served / 1e6 / install.seconds
  const ok = install.op.state === 'FINISHED' && count(install.op, 'SUCCESS') === install.op.total
  console.log(`   install: ${install.op.state} in ${install.seconds.toFixed(1)} s (${counters(install.op)}); ${(served / MIB).toFixed(0)} MiB served, ` +
    `${mbps.toFixed(1)} MB/s; RSS at most ${Math.round(install.rssMax / MIB)} MiB; devices answered ${stats.answered - answeredBefore.answered} tasks (${stats.failed - answeredBefore.failed} ERROR, ` +
    `${stats.errors - answeredBefore.errors} errors${stats.lastError === undefined ? '' : `, last: ${stats.lastError}`}); load ${load()}`)
  return [
    { name: 'devices connected', value: String(f.connected) },
    { name: 'reboot (baseline) → FINISHED', value: `${reboot.seconds.toFixed(1)} s (${counters(reboot.op)})` },
    { name: 'install → FINISHED', value: `${install.seconds.toFixed(1)} s (${counters(install.op)})`, target: `< ${o.targetSeconds} s, all SUCCESS`, met: ok && install.seconds < o.targetSeconds },
    { name: 'install ÷ reboot', value: `${(install.seconds / reboot.seconds).toFixed(2)}×` },
    { name: 'download throughput', value: `${mbps.toFixed(1)} MB/s (${(served / MIB).toFixed(0)} MiB served)` },
    { name: 'CPU during the install', value: cpuUsed },
    { name: 'service RSS at most', value: `${Math.round(Math.max(install.rssMax, reboot.rssMax) / MIB)} MiB (reboot ${Math.round(reboot.rssMax / MIB)}, install ${Math.round(install.rssMax / MIB)})`, target: `< ${Math.round(o.targetRss / MIB)} MiB`, met: Math.max(install.rssMax, reboot.rssMax) < o.targetRss },
    { name: 'load average (1, 5, 15 min)', value: `${loadBefore} before, ${load()} after` }
  ]
}

/** The most start dates within any `windowMs`, and the count in each consecutive window from the first. */
export function startRate (starts: number[], windowMs = 60_000): { most: number, perWindow: number[] } {
  const s = [...starts].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; j < s.length; j++) {
    while ((s[j] ?? 0) - (s[i] ?? 0) >= windowMs) i++
    most = Math.max(most, j - i + 1)
  }
  const perWindow: number[] = []
  for (const t of s) {
    const k = Math.floor((t - (s[0] ?? 0)) / windowMs)
    perWindow[k] = (perWindow[k] ?? 0) + 1
  }
  return { most, perWindow: Array.from(perWindow, (n) => n ?? 0) }
}

/** Scenario b: an install with `rollout.maxPerMinute`; the start rate read from the tasks' start dates. */
export async function rateCampaign (f: CampaignFleet, o: { bytes: number, perMinute: number, maxSeconds: number }): Promise<Figure[]> {
  const app = await releasePackage(f.api, 'com.bench.rate', '1.0.0', o.bytes)
  const loadBefore = load()
  console.log(`   install on ${f.connected} devices with rollout.maxPerMinute ${o.perMinute} (load ${loadBefore})`)
  const t0 = performance.now()
  const { op, seconds } = await watch(f, await postOperation(f.api, 'applications/install', { application: app, systems: { label: LABEL }, rollout: { maxPerMinute: o.perMinute } }), t0, o.maxSeconds)
  const starts = (await allTasks(f.api, op.uid)).flatMap((t) => t.startDate === null ? [] : [t.startDate])
  const { most, perWindow } = startRate(starts)
  const span = (Math.max(...starts) - Math.min(...starts)) / 1000
  const off = (most - o.perMinute) / o.perMinute
  console.log(`   ${op.state} in ${seconds.toFixed(1)} s (${counters(op)}); ${starts.length} started over ${span.toFixed(1)} s; most in any 60 s: ${most}; ` +
    `per minute from the first start: ${perWindow.join(', ')}; load ${load()}`)
  return [
    { name: 'install → FINISHED', value: `${seconds.toFixed(1)} s (${counters(op)})` },
    { name: 'tasks started', value: `${starts.length} over ${span.toFixed(1)} s (first to last start date)` },
    { name: 'per minute from the first start', value: perWindow.join(', ') },
    { name: 'most started in any 60 s', value: `${most} (${off >= 0 ? '+' : ''}${(off * 100).toFixed(1)} % of ${o.perMinute})`, target: `${o.perMinute} ± 5 %, never over`, met: Math.abs(off) <= 0.05 && most <= o.perMinute },
    { name: 'load average (1, 5, 15 min)', value: `${loadBefore} before, ${load()} after` }
  ]
}

export interface AbortOptions { bytes: number, waves: number[], failurePercent: number, minFinished: number, maxSeconds: number }

/** Scenario c: waves and an abort threshold on a fleet whose failing share fails its installs. */
export async function abortCampaign (f: CampaignFleet, o: AbortOptions): Promise<Figure[]> {
  const app = await releasePackage(f.api, 'com.bench.abort', '1.0.0', o.bytes)
  const loadBefore = load()
  const rollout = { waves: o.waves, abort: { failurePercent: o.failurePercent, minFinished: o.minFinished } }
  console.log(`   install on ${f.connected} devices, rollout ${JSON.stringify(rollout)} (load ${loadBefore})`)
  const t0 = performance.now()
  const { op, seconds } = await watch(f, await postOperation(f.api, 'applications/install', { application: app, systems: { label: LABEL }, rollout }), t0, o.maxSeconds)
  const tasks = await allTasks(f.api, op.uid)
  const started = tasks.filter((t) => t.startDate !== null).length
  const firstWave = Math.max(1, Math.ceil(op.total * (o.waves[0] ?? 100) / 100))
  const ended = count(op, 'SUCCESS') + count(op, 'FAILURE')
  const aborted = op.abortReason !== null && op.rollout?.wave === 1
  console.log(`   ${op.state} in ${seconds.toFixed(1)} s (${counters(op)}); abortReason ${op.abortReason ?? 'null'} in wave ${op.rollout?.wave ?? '?'}; ` +
    `${started} tasks with a start date (first wave: ${firstWave}); load ${load()}`)
  return [
    { name: 'operation', value: `${op.state} in ${seconds.toFixed(1)} s (${counters(op)})` },
    { name: 'stopped', value: `${op.abortReason ?? 'not aborted'} in wave ${op.rollout?.wave ?? '?'}, ${ended} finished, ${count(op, 'FAILURE')} failed`, target: 'aborted in wave 1', met: aborted },
    { name: 'tasks with a start date', value: `${started} of ${op.total}`, target: `≤ ${firstWave} (the first wave)`, met: started <= firstWave },
    { name: 'load average (1, 5, 15 min)', value: `${loadBefore} before, ${load()} after` }
  ]
}
