// bench lwm2m's devices, in one or more processes of their own (bench/lib/lwm2m-devices-main.ts), so that their CPU
// is not the service's. A device holds one UDP socket, so one file descriptor: a process takes at most
// BENCH_DEVICES_PER_PROCESS devices (10,000) and never more than its open-files limit (`ulimit -n`, read from
// /proc/self/limits) less some room for its own files; past that the devices are spread over more processes.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { forkRpc, type RpcChild } from './ipc-rpc.js'
import type { DevicesStats, DriveResult, RegisterRequest } from './lwm2m-devices-main.js'
import { mergeSteps, type StepRun } from './lwm2m-runs.js'

const MAIN = fileURLToPath(new URL('./lwm2m-devices-main.ts', import.meta.url))
/** Descriptors a device process needs besides its devices' sockets (stdio, IPC, tsx, timers' and DNS's). */
const OWN_FILES = 200

/** The soft open-files limit of this process (its children inherit it); undefined where /proc is not. */
export function openFilesLimit (): number | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return m?.[1] === undefined ? undefined : m[1] === 'unlimited' ? Infinity : Number(m[1])
  } catch { return undefined }
}

/** Devices per process: the asked number, under the open-files limit. @throws Error when the limit leaves no room */
export function devicesPerProcess (asked: number): number {
  const limit = openFilesLimit() ?? 1024
  const n = Math.min(asked, limit - OWN_FILES)
  if (n < 100) throw new Error(`the open-files limit (${limit}) leaves room for ${n} devices a process: raise it (ulimit -n)`)
  return n
}

export interface Lwm2mFleet {
  readonly processes: number
  /** Every device registered (a step: its DTLS handshake too over coaps://); `concurrency` over the fleet. */
  register: (r: Omit<RegisterRequest, 'from' | 'count'>) => Promise<StepRun>
  drive: (o: { seconds: number, rate: number }) => Promise<DriveResult>
  /** Queue mode: each device updates every periodMs (its "poll"), phases spread over the first period. */
  poll: (periodMs: number) => Promise<void>
  /** DTLS handshakes alone to `url`, one per device. */
  handshakes: (url: string, concurrency: number) => Promise<StepRun>
  stats: () => Promise<DevicesStats>
  /** De-registers every device and ends the processes. */
  close: () => Promise<{ seconds: number }>
}

const sum = <T>(xs: readonly T[], f: (x: T) => number): number => xs.reduce((n, x) => n + f(x), 0)

/** Devices 1..devices over processes of at most perProcess each; `onProgress` with the registered so far. */
export function startLwm2mFleet (devices: number, perProcess: number, onProgress: (done: number) => void = () => {}): Lwm2mFleet {
  const ranges = Array.from({ length: Math.ceil(devices / perProcess) }, (_, k) => ({ from: 1 + k * perProcess, count: Math.min(perProcess, devices - k * perProcess) }))
  const done = ranges.map(() => 0)
  const children: RpcChild[] = ranges.map((_, k) => forkRpc(MAIN, [], ['--max-semi-space-size=64', '--import', 'tsx'], (e) => {
    if (e.event !== 'progress') return
    done[k] = Number(e.done)
    onProgress(sum(done, (n) => n))
  }))
  const each = async <T>(f: (c: RpcChild, k: number) => Promise<T>): Promise<T[]> => await Promise.all(children.map(f))
  const share = (n: number): number => Math.max(1, Math.ceil(n / children.length))
  return {
    processes: children.length,
    register: async (r) => mergeSteps(await each(async (c, k) => await c.call<StepRun>('register', { ...r, ...ranges[k], concurrency: share(r.concurrency) }))),
    async drive (o) {
      const rs = await each(async (c) => await c.call<DriveResult>('drive', o))
      return { published: sum(rs, (r) => r.published), errors: sum(rs, (r) => r.errors), seconds: Math.max(...rs.map((r) => r.seconds)), lastError: rs.map((r) => r.lastError).find((e) => e !== undefined) }
    },
    async poll (periodMs) { await each(async (c) => await c.call('poll', { periodMs })) },
    handshakes: async (url, concurrency) => mergeSteps(await each(async (c, k) => await c.call<StepRun>('handshakes', { url, ...ranges[k], concurrency: share(concurrency) }))),
    async stats () {
      const rs = await each(async (c) => await c.call<DevicesStats>('stats'))
      const total = (k: keyof DevicesStats): number => sum(rs, (r) => Number(r[k]))
      return {
        devices: total('devices'),
        registrations: total('registrations'),
        updates: total('updates'),
        resets: total('resets'),
        restarted: total('restarted'),
        restartedAgain: total('restartedAgain'),
        observations: total('observations'),
        errors: total('errors'),
        lastError: rs.map((r) => r.lastError).find((e) => e !== undefined),
        rss: total('rss'),
        cpuS: total('cpuS')
      }
    },
    async close () {
      const rs = await each(async (c) => await c.call<{ seconds: number }>('close', { concurrency: 200 }).catch(() => ({ seconds: Number.NaN })))
      await each(async (c) => await c.exited)
      return { seconds: Math.max(...rs.map((r) => r.seconds)) }
    }
  }
}
