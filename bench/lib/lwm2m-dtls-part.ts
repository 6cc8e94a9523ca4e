// bench lwm2m's part `dtls`: M devices (BENCH_DTLS_DEVICES, 1,000), BENCH_DTLS_CONCURRENCY (50) at a time, in one
// run: their NoSec registrations first (the baseline: what a registration costs without DTLS); then DTLS 1.2 PSK
// handshakes alone (TLS_PSK_WITH_AES_128_CCM_8; each session closed at once) against a bare protocols/dtls server in
// the benchmark's own process whose key lookup is a map (what the DTLS layer alone costs), then against the service
// (its key looked up in the store for each identity); then the devices over DTLS: handshake and Register.
import { createDtlsServer } from '../../protocols/dtls/index.js'
import { cpuNow, cpuPer, fixed, loadNow, loadText, type Cpu, type PartContext } from './lwm2m-bench.js'
import { startLwm2mFleet, type Lwm2mFleet } from './lwm2m-fleet.js'
import { stepFigures, type StepRun } from './lwm2m-runs.js'
import { lwm2mEndpoint, lwm2mPskHex } from './lwm2m-seed.js'

export interface DtlsStep { name: string, run: StepRun, cpu: Cpu, load: [number, number], refused: Record<string, number> }

/** The server of a step: its CPU seconds so far, and its refusals so far by reason. */
interface Server { cpu: () => Promise<number>, refused: () => Promise<Record<string, number>> }
export interface DtlsFigures { devices: number, steps: DtlsStep[] }

/** A lifetime long enough that no update falls in the part. */
const LIFETIME_S = 300

function printStep (s: DtlsStep): void {
  const f = stepFigures(s.run)
  console.log(`   ${s.name}: ${s.run.ok} in ${fixed(s.run.seconds, 2)} s, ${fixed(f.perS, 0)}/s, p50 ${fixed(f.p50, 0)} ms, p99 ${fixed(f.p99, 0)} ms` +
    `${s.run.failed > 0 ? `, ${s.run.failed} failed (${s.run.lastError ?? '?'})` : ''}; server CPU ${fixed(s.cpu.service, 0)} µs each (${loadText(...s.load)})` +
    `${Object.keys(s.refused).length > 0 ? `; refused: ${Object.entries(s.refused).map(([k, v]) => `${v} ${k}`).join(', ')}` : ''}`)
}

/** One timed step; its server is the service, or the bare one of this process. */
async function step (c: PartContext, fleet: Lwm2mFleet, name: string, server: Server, run: () => Promise<StepRun>): Promise<DtlsStep> {
  const before = { ...await cpuNow(c, fleet), service: await server.cpu() }
  const refused0 = await server.refused()
  const load0 = loadNow()
  const r = await run()
  const after = { ...await cpuNow(c, fleet), service: await server.cpu() }
  const refused = Object.fromEntries(Object.entries(await server.refused()).map(([k, v]) => [k, v - (refused0[k] ?? 0)]).filter(([, v]) => v !== 0))
  const s: DtlsStep = { name, run: r, cpu: cpuPer(before, after, r.ok), load: [load0, loadNow()], refused }
  printStep(s)
  return s
}

const ownCpu = async (): Promise<number> => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
const serviceOf = (c: PartContext): Server => ({ cpu: c.svc.cpuSeconds, refused: c.svc.refused })

/** Handshakes alone against a bare DTLS server of this process. */
async function bareHandshakes (c: PartContext, fleet: Lwm2mFleet): Promise<DtlsStep> {
  const keys = new Map(Array.from({ length: c.cfg.dtlsDevices }, (_, k) => [lwm2mEndpoint(k + 1), Buffer.from(lwm2mPskHex(k + 1), 'hex')]))
  // No budget per address: every device comes from 127.0.0.1, as with the service's LWM2MS_HANDSHAKES_PER_S=0.
  const server = createDtlsServer({ pskFor: async (identity) => keys.get(identity), handshakesPerS: 0 })
  server.on('error', () => {}) // one datagram's send failure; the handshake retransmits
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 })
  try {
    const refused = async (): Promise<Record<string, number>> => Object.fromEntries(Object.entries(server.counters).map(([k, v]) => [`dtls.${k}`, v]))
    return await step(c, fleet, 'DTLS handshakes, bare protocols/dtls server', { cpu: ownCpu, refused }, async () => await fleet.handshakes(`coaps://127.0.0.1:${port}`, c.cfg.dtlsConcurrency))
  } finally {
    await server.close()
  }
}

export async function dtlsPart (c: PartContext): Promise<DtlsFigures> {
  const { svc, cfg } = c
  const m = cfg.dtlsDevices
  console.log(`\n-- dtls: ${m} devices, ${cfg.dtlsConcurrency} at a time`)
  const steps: DtlsStep[] = []
  const register = { concurrency: cfg.dtlsConcurrency, lifetime: LIFETIME_S, queue: false, rebootMs: cfg.rebootMs }
  const plain = startLwm2mFleet(m, cfg.perProcess)
  try {
    steps.push(await step(c, plain, 'NoSec registrations (baseline)', serviceOf(c), async () => await plain.register({ url: svc.coapUrl, ...register })))
  } finally {
    await plain.close()
  }
  const fleet = startLwm2mFleet(m, cfg.perProcess)
  try {
    steps.push(await bareHandshakes(c, fleet))
    steps.push(await step(c, fleet, 'DTLS handshakes, the service', serviceOf(c), async () => await fleet.handshakes(svc.coapsUrl, cfg.dtlsConcurrency)))
    steps.push(await step(c, fleet, 'DTLS handshake + Register', serviceOf(c), async () => await fleet.register({ url: svc.coapsUrl, ...register })))
  } finally {
    await fleet.close()
  }
  return { devices: m, steps }
}
