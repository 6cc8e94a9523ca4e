// The service in a child process of its own (bench/lib/service-main.ts), so that a benchmark measures the service's
// memory apart from its clients: RSS read from /proc/<pid>/status (Linux), or from the service's own /metrics
// (fleet_process_resident_memory_bytes, prom-client's default metrics) elsewhere.
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { DeviceSeed } from './seed-devices.js'

export interface ServiceProcessInput {
  dataDir: string
  /** PostgreSQL; undefined: PGlite in dataDir. */
  databaseUrl: string | undefined
  /** Variables of the service's configuration beyond benchConfig's. */
  env: Record<string, string>
  devices: number
  seed: DeviceSeed
  /** Start the service with --expose-gc, so that settledRss() collects its garbage first. */
  gc?: boolean
  /**
   * `apart`: the store is created, migrated and seeded by a process of its own before the service starts on it, so
   * that the service's memory is what serving needs (on PGlite, creating a store and a bulk seed leave some 600 MiB
   * of WebAssembly memory behind that a service restarted on its DATA_DIR does not have). Default: in the service.
   */
  seedIn?: 'service' | 'apart'
  /** Set by startServiceProcess: the part of the work this process does. */
  phase?: 'seed' | 'serve'
}

export type ServiceProcessMessage =
  | { type: 'seeded', companyUid: string, seedSeconds: number }
  | { type: 'listening', httpPort: number, mqttPort: number, mqttsPort: number | undefined, companyUid: string, seedSeconds: number }
  | { type: 'profiled', file: string | null }
  | { type: 'collected', heapUsed: number, external: number }

export interface ServiceProcess {
  pid: number
  origin: string
  mqttUrl: string
  /** MQTT over TLS, when the service was given TLS_CERT_FILE and TLS_KEY_FILE. */
  mqttsUrl: string | undefined
  companyUid: string
  /** Seconds the devices took to seed. */
  seedSeconds: number
  /** The service's resident memory now, bytes. */
  rss (): Promise<number>
  /**
   * After a full garbage collection of the service (with `gc`; without it, none): its RSS, and the V8 heap in use and
   * the memory outside it that JavaScript objects hold (buffers, the store's WebAssembly memory), bytes.
   */
  settledMemory (): Promise<SettledMemory>
  /**
   * With BENCH_CPU_PROF=<dir>: starts a V8 CPU profile of the service (a no-op without it), written by
   * profileStop() to <dir>/<name>.cpuprofile, so that a profile holds the part of a run that is measured.
   */
  profileStart (): Promise<void>
  /** Answers the profile's file, or null without BENCH_CPU_PROF. */
  profileStop (name: string): Promise<string | null>
  close (): Promise<void>
}

export interface SettledMemory { rss: number, heapUsed: number, external: number }

const MAIN = fileURLToPath(new URL('./service-main.ts', import.meta.url))

export async function procRss (pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]
    return kb === undefined ? undefined : Number(kb) * 1024
  } catch {
    return undefined
  }
}

async function metricsRss (origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text()
  const v = /^fleet_process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]
  return v === undefined ? Number.NaN : Number(v)
}

/** Seeds the store in a process of its own (ServiceProcessInput.seedIn `apart`); answers the seconds it took. */
async function seedApart (input: ServiceProcessInput, execArgv: string[]): Promise<number> {
  const child = fork(MAIN, [JSON.stringify({ ...input, phase: 'seed' })], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const seeded = new Promise<number>((resolve, reject) => {
    child.on('message', (m: ServiceProcessMessage) => { if (m.type === 'seeded') resolve(m.seedSeconds) })
    child.once('exit', (code) => { reject(new Error(`the seeding process exited with ${code} before seeding`)) })
  })
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve() }) })
  const seconds = await seeded
  await exited
  return seconds
}

/** Starts the service with `devices` seeded (bench/lib/seed-devices.ts); resolves once it listens. */
export async function startServiceProcess (opts: Omit<ServiceProcessInput, 'dataDir'>): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-svc-'))
  const execArgv = ['--max-semi-space-size=64', ...(opts.gc === true ? ['--expose-gc'] : []), '--import', 'tsx']
  const apart = opts.seedIn === 'apart' ? await seedApart({ ...opts, dataDir }, execArgv).catch(async (err: unknown) => { await rm(dataDir, { recursive: true, force: true }); throw err }) : undefined
  const input: ServiceProcessInput = { ...opts, dataDir, ...(apart === undefined ? {} : { phase: 'serve' as const }) }
  const prof = process.env.BENCH_CPU_PROF === '' ? undefined : process.env.BENCH_CPU_PROF
  const child: ChildProcess = fork(MAIN, [JSON.stringify(input)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise<number | null>((resolve) => { child.once('exit', (code) => { resolve(code) }) })
  try {
    const ready = await new Promise<Extract<ServiceProcessMessage, { type: 'listening' }>>((resolve, reject) => {
      child.once('message', (m: ServiceProcessMessage) => { if (m.type === 'listening') resolve(m) })
      exited.then((code) => { reject(new Error(`the service process exited with ${code} before listening`)) }, reject)
    })
    const origin = `http://127.0.0.1:${ready.httpPort}`
    const pid = child.pid ?? 0
    const rss = async (): Promise<number> => await procRss(pid) ?? await metricsRss(origin)
    return {
      pid,
      origin,
      mqttUrl: `mqtt://127.0.0.1:${ready.mqttPort}`,
      mqttsUrl: ready.mqttsPort === undefined ? undefined : `mqtts://127.0.0.1:${ready.mqttsPort}`,
      companyUid: ready.companyUid,
      seedSeconds: apart ?? ready.seedSeconds,
      rss,
      async settledMemory () {
        const heap = await new Promise<{ heapUsed: number, external: number }>((resolve) => {
          const on = (m: ServiceProcessMessage): void => { if (m.type === 'collected') { child.off('message', on); resolve(m) } }
          child.on('message', on)
          child.send({ type: 'gc' })
        })
        return { rss: await rss(), heapUsed: heap.heapUsed, external: heap.external }
      },
      async profileStart () {
        if (prof !== undefined) child.send({ type: 'profile-start' })
      },
      async profileStop (name) {
        if (prof === undefined) return null
        const done = new Promise<string | null>((resolve) => {
          const on = (m: ServiceProcessMessage): void => { if (m.type === 'profiled') { child.off('message', on); resolve(m.file) } }
          child.on('message', on)
        })
        child.send({ type: 'profile-stop', file: join(prof, `${name}.cpuprofile`) })
        return await done
      },
      async close () {
        if (child.exitCode === null) {
          child.send({ type: 'close' })
          const code = await exited
          if (code !== 0) console.error(`   the service process exited with ${code}`)
        }
        await rm(dataDir, { recursive: true, force: true })
      }
    }
  } catch (err) {
    child.kill('SIGKILL')
    await rm(dataDir, { recursive: true, force: true })
    throw err
  }
}
