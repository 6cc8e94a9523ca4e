// Entry of the service process of bench/lib/service-process.ts (not run on its own): the service as bin/serve.ts
// assembles it (engine workers, MQTT, API), on ephemeral ports of loopback, with devices seeded before it listens.
// Talks to its parent over the IPC channel: sends `listening` once ready, closes the service on `close`, answers
// `gc` with `collected` and its heap once it has collected its garbage (when started with --expose-gc).
import { mkdir, writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector'
import { dirname } from 'node:path'
import { pino } from 'pino'
import { fileURLToPath } from 'node:url'
import { buildState } from '../../bin/launch.mjs'
import { seedDevices } from './seed-devices.js'
import type { ServiceProcessInput, ServiceProcessMessage } from './service-process.js'
import { benchConfig } from './service.js'

const send = (m: ServiceProcessMessage): void => { process.send?.(m) }
if (process.send === undefined) {
  console.error('bench/lib/service-main.ts is started by bench/lib/service-process.ts; run a benchmark instead.')
  process.exit(2)
}

const input = JSON.parse(process.argv[2] ?? '{}') as ServiceProcessInput
// The service's code as `npm start` runs it: the build (dist/) when it is current. Through tsx the same service on the
// same store sat idle at 594 to 626 MiB of RSS against 420 to 469 built (two threads with tsx's loader, the store's
// one of them), which a benchmark of its memory would count as the service's.
const root = fileURLToPath(new URL('../../', import.meta.url))
const state = buildState(root)
// BENCH_SERVICE_CODE=build or source chooses instead (build: even a stale one).
const choice = process.env.BENCH_SERVICE_CODE
const built = choice === 'build' || (choice !== 'source' && state.build === 'current')
const why = state.build === 'current' ? '' : ` (${state.why})`
if (input.phase !== 'seed') console.error(`   service code: ${built ? `the build, dist/${why}` : `TypeScript through tsx${why}; npm run build`}`)
const { openInfra } = await import(built ? `${root}dist/bin/context.js` : '../../bin/context.js') as typeof import('../../bin/context.js')
const { assembleService } = await import(built ? `${root}dist/bin/serve.js` : '../../bin/serve.js') as typeof import('../../bin/serve.js')
const config = benchConfig(input.dataDir, input.databaseUrl, input.env)
// BENCH_LOG_LEVEL (silent): the service's log on stderr, e.g. warn to see what went wrong during a run.
const log = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }, pino.destination(2))
const infra = await openInfra(config, log)
const service = await assembleService(config, log, infra)
const companyUid = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
const t0 = performance.now()
if (input.phase !== 'serve') await seedDevices(infra.db, companyUid, input.devices, input.seed)
const seedSeconds = (performance.now() - t0) / 1000
if (input.phase === 'seed') {
  // The store made and seeded in a process of its own, which ends here: the service then starts on it as on a
  // DATA_DIR it was restarted on, without what creating the store and a bulk seed left in its memory.
  await service.close()
  process.send?.({ type: 'seeded', companyUid, seedSeconds } satisfies ServiceProcessMessage, () => { process.exit(0) })
  await new Promise(() => {})
}
// BENCH_MEMORY_LOG=<seconds>: the service thread's memory on stderr at that period (the store's own thread is not in
// it: on PGlite, RSS less these is mostly its WebAssembly memory).
const memoryPeriod = Number(process.env.BENCH_MEMORY_LOG ?? 0)
if (memoryPeriod > 0) {
  setInterval(() => {
    const m = process.memoryUsage()
    const mib = (n: number): string => (n / 1048576).toFixed(0)
    console.error(`memory: rss ${mib(m.rss)} heapTotal ${mib(m.heapTotal)} heapUsed ${mib(m.heapUsed)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} MiB`)
  }, memoryPeriod * 1000).unref()
}
const { httpPort, ports } = await service.listen({ anyPort: true, host: '127.0.0.1' })

// BENCH_CPU_PROF (bench/lib/service-process.ts): a CPU profile of the window the benchmark asks for.
const inspector = new Session()
inspector.connect()
const post = async (method: string): Promise<unknown> => await new Promise((resolve, reject) => {
  inspector.post(method, (err, result) => { if (err != null) reject(err); else resolve(result) })
})
async function profile (m: { type: string, file?: string }): Promise<void> {
  if (m.type === 'profile-start') { await post('Profiler.enable'); await post('Profiler.start'); return }
  const { profile } = await post('Profiler.stop') as { profile: unknown }
  if (m.file === undefined) return
  await mkdir(dirname(m.file), { recursive: true })
  await writeFile(m.file, JSON.stringify(profile))
  process.send?.({ type: 'profiled', file: m.file })
}

let closing = false
process.on('message', (m: { type: string, file?: string }) => {
  if (m.type === 'gc') {
    // Twice: the first collection's finalizers free more. Started without --expose-gc, there is nothing to call.
    globalThis.gc?.(); globalThis.gc?.()
    const { heapUsed, external } = process.memoryUsage()
    send({ type: 'collected', heapUsed, external })
    return
  }
  if (m.type === 'profile-start' || m.type === 'profile-stop') {
    profile(m).catch((err: unknown) => { console.error('profile:', err); process.send?.({ type: 'profiled', file: null }) })
    return
  }
  if (m.type !== 'close' || closing) return
  closing = true
  service.close().then(() => { process.exit(0) }, (err: unknown) => {
    console.error('service close:', err)
    process.exit(1)
  })
})
// The parent gone (killed, crashed): nothing is left listening behind it.
process.on('disconnect', () => { if (!closing) process.exit(1) })
send({ type: 'listening', httpPort: httpPort ?? 0, mqttPort: ports.mqtt ?? 0, mqttsPort: ports.mqtts, companyUid, seedSeconds })
