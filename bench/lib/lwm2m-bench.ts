// What the parts of bench lwm2m share: the run's settings (bench/lwm2m.ts reads them from the environment), and the
// readings taken around each figure: the machine's load average (other work shares its two cores), the CPU the
// service, the devices and a local PostgreSQL server used meanwhile, and the service's RSS sampled while it ran.
import { loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Lwm2mFleet } from './lwm2m-fleet.js'
import type { Lwm2mService } from './lwm2m-service.js'
import { postgresCpuSeconds } from './server-cpu.js'

export interface Lwm2mBenchConfig {
  /** Devices of the parts `register` and `reboot`, and of `dtls`. */
  devices: number
  dtlsDevices: number
  /** The notifications' window (s), the NoSec devices' lifetime (s), data messages a second per device (0: closed loop). */
  seconds: number
  lifetime: number
  rate: number
  /** Registrations (and handshakes) in flight over the fleet. */
  concurrency: number
  dtlsConcurrency: number
  /** Queue mode: the update period (s), how long a device stays awake after an exchange (undefined: the simulator's). */
  updateS: number
  queueAwakeMs: number | undefined
  rebootMs: number
  /** The reboot part gives up after this long (s). */
  rebootMaxS: number
  perProcess: number
  /** The PostgreSQL server is on this machine: its CPU is read from /proc. */
  storeCpu: boolean
  admin: { email: string, password: string, clientId: string, clientSecret: string }
}

/** What a part runs against: the service of one store, and the settings. */
export interface PartContext { store: 'pglite' | 'postgres', svc: Lwm2mService, cfg: Lwm2mBenchConfig }

/** The 1-minute load average now. */
export const loadNow = (): number => loadavg()[0] ?? Number.NaN

/** CPU seconds used so far by the service, the devices' processes and a local PostgreSQL (NaN when unknown). */
export interface Cpu { service: number, devices: number, store: number }

export async function cpuNow (c: PartContext, fleet: Lwm2mFleet | undefined): Promise<Cpu> {
  return {
    service: await c.svc.cpuSeconds(),
    devices: fleet === undefined ? Number.NaN : (await fleet.stats()).cpuS,
    store: c.store === 'postgres' && c.cfg.storeCpu ? postgresCpuSeconds() ?? Number.NaN : Number.NaN
  }
}

/** µs of CPU per unit of work between two readings. */
export function cpuPer (before: Cpu, after: Cpu, n: number): Cpu {
  const per = (k: keyof Cpu): number => n > 0 ? (after[k] - before[k]) * 1e6 / n : Number.NaN
  return { service: per('service'), devices: per('devices'), store: per('store') }
}

/** The service's RSS sampled every second until stop(), which answers the largest. */
export function sampleRss (svc: Lwm2mService): { stop: () => Promise<number> } {
  let max = 0
  const state = { on: true }
  const loop = (async () => {
    while (state.on) {
      max = Math.max(max, await svc.rss())
      await sleep(1000)
    }
  })()
  return { stop: async () => { state.on = false; await loop; return Math.max(max, await svc.rss()) } }
}

/** Polls `done` every `everyMs` until true or `timeoutMs`; answers whether it came true. */
export async function waitFor (done: () => Promise<boolean>, timeoutMs: number, everyMs = 500): Promise<boolean> {
  const end = performance.now() + timeoutMs
  for (;;) {
    if (await done()) return true
    if (performance.now() > end) return false
    await sleep(everyMs)
  }
}

export const MIB = 1024 * 1024
export const mib = (b: number): number => Math.round(b / MIB)
export const fixed = (n: number, digits = 1): string => Number.isFinite(n) ? n.toFixed(digits) : '-'
/** "load 2.4 → 3.1", as printed beside each figure. */
export const loadText = (from: number, to: number): string => `load ${fixed(from, 2)} → ${fixed(to, 2)}`
