// bench lwm2m's part `register`: N NoSec devices (BENCH_DEVICES, 10,000) with a lifetime of BENCH_LIFETIME seconds
// (60: each updates every 45 s) register, `concurrency` in flight; the service then observes /3/0, /4/0 and /6/0 of
// each (docs/protocols/lwm2m.md#data) and stores the first answers. Then for BENCH_SECONDS every device sends
// BENCH_RATE data messages a second (each moves its position, often its RSSI, now and then its battery: one CON
// notification per observed instance that changed), and the notifications the store committed are counted. The service acknowledges a
// notification when it arrives, before its commit (ingest/lwm2m/reporting.ts): the committed count, not the devices'
// acknowledged messages, is the figure, and the refusals (a full ingest buffer) are printed beside it.
import type { Lwm2mCoap } from './lwm2m-service.js'
import { cpuNow, cpuPer, fixed, loadNow, loadText, mib, sampleRss, waitFor, type Cpu, type PartContext } from './lwm2m-bench.js'
import { startLwm2mFleet, type Lwm2mFleet } from './lwm2m-fleet.js'
import { stepFigures, type StepRun } from './lwm2m-runs.js'

/** Observed instances a simulated device announces and the service observes by default: /3/0, /4/0, /6/0. */
const FIRST_VALUES = 3
const DRAIN_MS = 120_000

export interface RegisterFigures {
  devices: number
  processes: number
  register: StepRun
  registerCpu: Cpu
  registerLoad: [number, number]
  /** From the first Register until every device's first values were stored (NaN: not within 2 minutes). */
  servedS: number
  firstValues: number
  notify: NotifyFigures
  rss: { idle: number, registered: number, max: number, deregistered: number }
  deregisterS: number
  devicesRss: number
}

export interface NotifyFigures {
  seconds: number
  /** Data messages the devices saw acknowledged (their notifications ACKed), and the notifications committed. */
  published: number
  committed: number
  /** Committed after the window while the ingest buffer emptied, and how long that took (s, at most 2 minutes). */
  after: number
  drainS: number
  /** Still waiting for their commit after those 2 minutes. */
  waiting: number
  refused: Record<string, number>
  cpu: Cpu
  load: [number, number]
  updates: number
  observations: [number, number]
  udpDrops: number
  serverCoap: { duplicates: number, retransmissions: number }
  errors: number
  lastError: string | undefined
}

const delta = (a: Record<string, number>, b: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v - (a[k] ?? 0)]).filter(([, v]) => v !== 0))

async function notifications (c: PartContext, fleet: Lwm2mFleet): Promise<NotifyFigures & { rssMax: number }> {
  const { svc, cfg } = c
  console.log(`   notifications: ${cfg.rate > 0 ? `${cfg.rate} data messages a second per device` : 'each device sends its next data message once the last one\'s notifications are acknowledged'}, ${cfg.seconds} s`)
  const before = { stored: await svc.stored(), refused: await svc.refused(), drops: await svc.udpDrops(), coap: await svc.coap(), stats: await fleet.stats(), cpu: await cpuNow(c, fleet), load: loadNow() }
  const rss = sampleRss(svc)
  const drove = await fleet.drive({ seconds: cfg.seconds, rate: cfg.rate })
  const stored = await svc.stored()
  const cpu = await cpuNow(c, fleet)
  const load = loadNow()
  const rssMax = await rss.stop()
  // What the ingest buffer still holds is committed before the next figure (a backlog would slow it).
  const t = performance.now()
  await waitFor(async () => await svc.buffered() === 0, DRAIN_MS, 1000)
  const drainS = (performance.now() - t) / 1000
  const waiting = await svc.buffered()
  const after = { stored: await svc.stored(), refused: await svc.refused(), drops: await svc.udpDrops(), coap: await svc.coap(), stats: await fleet.stats() }
  const udp = (x: Lwm2mCoap): { duplicates: number, retransmissions: number } => ({ duplicates: x.udp?.duplicates ?? 0, retransmissions: x.udp?.retransmissions ?? 0 })
  const committed = stored - before.stored
  return {
    seconds: drove.seconds,
    published: drove.published,
    committed,
    after: after.stored - stored,
    drainS,
    waiting,
    refused: delta(before.refused, after.refused),
    cpu: cpuPer(before.cpu, cpu, committed),
    load: [before.load, load],
    updates: after.stats.updates - before.stats.updates,
    observations: [before.stats.observations, after.stats.observations],
    udpDrops: after.drops - before.drops,
    serverCoap: { duplicates: udp(after.coap).duplicates - udp(before.coap).duplicates, retransmissions: udp(after.coap).retransmissions - udp(before.coap).retransmissions },
    errors: drove.errors,
    lastError: drove.lastError,
    rssMax
  }
}

async function registerAll (c: PartContext, fleet: Lwm2mFleet): Promise<{ reg: StepRun, cpu: Cpu, load: [number, number], servedS: number, firstValues: number }> {
  const { svc, cfg } = c
  const stored0 = await svc.stored()
  const cpu0 = await cpuNow(c, fleet)
  const load0 = loadNow()
  const t0 = performance.now()
  const reg = await fleet.register({ url: svc.coapUrl, concurrency: cfg.concurrency, lifetime: cfg.lifetime, queue: false, rebootMs: cfg.rebootMs })
  const cpu = cpuPer(cpu0, await cpuNow(c, fleet), reg.ok)
  const load: [number, number] = [load0, loadNow()]
  const f = stepFigures(reg)
  console.log(`   registered ${reg.ok} of ${cfg.devices} in ${fixed(reg.seconds)} s: ${fixed(f.perS, 0)}/s, p50 ${fixed(f.p50, 0)} ms, p99 ${fixed(f.p99, 0)} ms` +
    `${reg.failed > 0 ? `; ${reg.failed} failed (${reg.lastError ?? '?'})` : ''} (${loadText(...load)})`)
  const served = await waitFor(async () => await svc.stored() - stored0 >= FIRST_VALUES * reg.ok, 120_000)
  const servedS = served ? (performance.now() - t0) / 1000 : Number.NaN
  const firstValues = await svc.stored() - stored0
  console.log(`   first values stored: ${firstValues} of ${FIRST_VALUES * reg.ok}${served ? `, all ${fixed(servedS)} s after the first Register` : ' (not all within 2 minutes)'}`)
  return { reg, cpu, load, servedS, firstValues }
}

export async function registerPart (c: PartContext): Promise<RegisterFigures> {
  const { svc, cfg } = c
  const rssIdle = await svc.rss()
  let shown = 0
  const fleet = startLwm2mFleet(cfg.devices, cfg.perProcess, (done) => {
    if (done - shown < cfg.devices / 10) return
    shown = done
    console.log(`   ${done} registered`)
  })
  console.log(`\n-- register: ${cfg.devices} NoSec devices (${fleet.processes} process${fleet.processes === 1 ? '' : 'es'}), lifetime ${cfg.lifetime} s, ${cfg.concurrency} registrations in flight`)
  try {
    const r = await registerAll(c, fleet)
    const rssRegistered = await svc.rss()
    const n = await notifications(c, fleet)
    const devicesRss = (await fleet.stats()).rss
    const closed = await fleet.close()
    const rssDeregistered = await svc.rss()
    const { rssMax, ...notify } = n
    console.log(`   committed ${notify.committed} notifications in ${fixed(notify.seconds)} s: ${fixed(notify.committed / notify.seconds, 0)}/s (${loadText(...notify.load)}); ` +
      `service RSS ${mib(rssIdle)} MiB idle, ${mib(rssRegistered)} registered, ${mib(rssMax)} at most; de-registered in ${fixed(closed.seconds)} s`)
    return {
      devices: cfg.devices,
      processes: fleet.processes,
      register: r.reg,
      registerCpu: r.cpu,
      registerLoad: r.load,
      servedS: r.servedS,
      firstValues: r.firstValues,
      notify,
      rss: { idle: rssIdle, registered: rssRegistered, max: Math.max(rssMax, rssRegistered), deregistered: rssDeregistered },
      deregisterS: closed.seconds,
      devicesRss
    }
  } catch (err) {
    await fleet.close()
    throw err
  }
}
