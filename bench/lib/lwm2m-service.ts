// bench lwm2m's service in a child process of its own (bench/lib/lwm2m-service-main.ts), so that its CPU and memory
// are measured apart from the devices': the store made and seeded by one process, then served by another. What the
// benchmark reads of it: its RSS and CPU (Linux /proc), the store (through the process: PGlite cannot be opened
// twice), its /metrics, the LwM2M endpoints' CoAP counters, and the datagrams the kernel dropped at its LwM2M sockets.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CoapCounters } from '../../protocols/coap/index.js'
import { forkRpc, type ChildEvent, type RpcChild } from './ipc-rpc.js'
import type { Lwm2mServiceInput } from './lwm2m-service-main.js'
import { processCpuSeconds } from './process-cpu.js'
import { procRss } from './service-process.js'

const MAIN = fileURLToPath(new URL('./lwm2m-service-main.ts', import.meta.url))
const EXEC_ARGV = ['--max-semi-space-size=64', '--import', 'tsx']
// BENCH_CPU_PROF=<dir>: V8's CPU profile of the serving process, written to <dir> when it ends (the whole run).
const PROFILE = process.env.BENCH_CPU_PROF === undefined || process.env.BENCH_CPU_PROF === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]

export interface Lwm2mCoap { udp?: CoapCounters, dtls?: CoapCounters, registrations: number }

export interface Lwm2mService {
  pid: number
  origin: string
  /** coap://127.0.0.1:<LWM2M port> and coaps://127.0.0.1:<LWM2MS port>. */
  coapUrl: string
  coapsUrl: string
  seedSeconds: number
  rss: () => Promise<number>
  /** Seconds of CPU the service's process has used so far (NaN without /proc). */
  cpuSeconds: () => Promise<number>
  query: <T>(sql: string, params?: unknown[]) => Promise<T[]>
  /** Device messages of protocol LWM2M committed so far (fleet_ingest_messages_accepted_total). */
  stored: () => Promise<number>
  /** LWM2M payloads refused before storage so far, by reason (fleet_ingest_messages_refused_total). */
  refused: () => Promise<Record<string, number>>
  /** Messages waiting for their commit now (fleet_ingest_buffer_depth, every protocol). */
  buffered: () => Promise<number>
  coap: () => Promise<Lwm2mCoap>
  /** Datagrams the kernel dropped at the LwM2M sockets (their receive buffers full), from /proc/net/udp. */
  udpDrops: () => Promise<number>
  close: () => Promise<void>
}

/** Resolves with the first event of that name the child sends; rejects if it exits first. */
function eventOf (name: string): { on: (e: ChildEvent) => void, until: (c: RpcChild) => Promise<ChildEvent> } {
  let got: (e: ChildEvent) => void = () => {}
  const seen = new Promise<ChildEvent>((resolve) => { got = resolve })
  return {
    on: (e) => { if (e.event === name) got(e) },
    until: async (c) => await Promise.race([seen, c.exited.then((code) => { throw new Error(`the service process exited with ${String(code)} before "${name}"`) })])
  }
}

// The ingest's counts come from the service's /metrics, which answers from its memory: a count in the store would
// wait behind the commits of a backlog (PGlite runs one statement at a time) and measure that wait instead.
async function metricsOf (origin: string): Promise<string> { return await (await fetch(`${origin}/metrics`)).text() }

/** The values of one metric whose labels hold `protocol="LWM2M"` (or every one with `any`), by their `reason` label. */
function lwm2mValues (text: string, name: string, any = false): Record<string, number> {
  const out: Record<string, number> = {}
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) {
    const labels = m[1] ?? ''
    if (!any && !labels.includes('protocol="LWM2M"')) continue
    const key = /reason="([^"]*)"/.exec(labels)?.[1] ?? ''
    out[key] = (out[key] ?? 0) + Number(m[2])
  }
  return out
}

async function udpDropsAt (ports: number[]): Promise<number> {
  let text: string
  try { text = await readFile('/proc/net/udp', 'utf8') } catch { return Number.NaN }
  const hex = new Set(ports.map((p) => p.toString(16).toUpperCase().padStart(4, '0')))
  let drops = 0
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (hex.has(f[1]?.split(':')[1] ?? '')) drops += Number(f[f.length - 1])
  }
  return drops
}

/** Seeds `devices` LwM2M systems in a process of its own, then starts the service on that store. */
export async function startLwm2mService (o: { databaseUrl: string | undefined, devices: number, env: Record<string, string> }): Promise<Lwm2mService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-lwm2m-'))
  const input = (phase: Lwm2mServiceInput['phase']): string => JSON.stringify({ phase, dataDir, databaseUrl: o.databaseUrl, env: o.env, devices: o.devices } satisfies Lwm2mServiceInput)
  try {
    const seeded = eventOf('seeded')
    const seeder = forkRpc(MAIN, [input('seed')], EXEC_ARGV, seeded.on)
    const seedSeconds = Number((await seeded.until(seeder)).seconds)
    await seeder.exited
    const listening = eventOf('listening')
    const child = forkRpc(MAIN, [input('serve')], [...PROFILE, ...EXEC_ARGV], listening.on)
    const ready = await listening.until(child).catch(async (err: unknown) => { process.kill(child.pid, 'SIGKILL'); throw err })
    const ports = ready.ports as Record<string, number>
    const origin = `http://127.0.0.1:${Number(ready.httpPort)}`
    const lwm2mPorts = [ports.lwm2m ?? 0, ports.lwm2ms ?? 0]
    return {
      pid: child.pid,
      origin,
      coapUrl: `coap://127.0.0.1:${lwm2mPorts[0] ?? 0}`,
      coapsUrl: `coaps://127.0.0.1:${lwm2mPorts[1] ?? 0}`,
      seedSeconds,
      rss: async () => await procRss(child.pid) ?? Number.NaN,
      cpuSeconds: async () => await processCpuSeconds(child.pid) ?? Number.NaN,
      query: async <T>(sql: string, params?: unknown[]) => await child.call<T[]>('query', { sql, params }),
      stored: async () => lwm2mValues(await metricsOf(origin), 'fleet_ingest_messages_accepted_total')[''] ?? 0,
      refused: async () => lwm2mValues(await metricsOf(origin), 'fleet_ingest_messages_refused_total'),
      buffered: async () => lwm2mValues(await metricsOf(origin), 'fleet_ingest_buffer_depth', true)[''] ?? 0,
      coap: async () => await child.call<Lwm2mCoap>('coap'),
      udpDrops: async () => await udpDropsAt(lwm2mPorts),
      async close () {
        await child.call('close').catch(() => {})
        await child.exited
        await rm(dataDir, { recursive: true, force: true })
      }
    }
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true })
    throw err
  }
}
