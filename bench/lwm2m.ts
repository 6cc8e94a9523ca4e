// LwM2M: NoSec devices registering and notifying, 1,000 DTLS-PSK handshakes, a reboot of queue-mode devices, the CoAP layer alone.
//
// The service runs in a child process of its own (bench/lib/lwm2m-service.ts), every listener on an ephemeral port
// of loopback, on PGlite in a temporary DATA_DIR and, with DATABASE_URL, on PostgreSQL in a scratch database dropped
// after; its systems are seeded by a process of their own first (bench/lib/lwm2m-seed.ts: one application speaking
// LWM2M that admits NoSec devices, a PSK per system). The devices are the simulator's LwM2M devices
// (simulator/transports/lwm2m.ts as simulated devices with their model), in one or more processes of their own
// (bench/lib/lwm2m-fleet.ts), each with its own UDP socket: at most BENCH_DEVICES_PER_PROCESS a process, under the
// open-files limit. The CPU of the service, of the devices and of a local PostgreSQL is read apart (Linux /proc),
// and the load average is printed beside each figure: the machine's other work shares its cores. Parts:
//
//   coap      the CoAP layer alone (protocols/coap), in this process: CON GETs in memory and over UDP loopback
//   register  BENCH_DEVICES NoSec devices, lifetime BENCH_LIFETIME s: registrations/s, the time until the service
//             observed every one, then BENCH_SECONDS of data messages: notifications committed/s; the service's RSS
//   dtls      BENCH_DTLS_DEVICES devices: NoSec registrations (the baseline), DTLS handshakes against a bare server
//             and against the service, then DTLS handshake + Register: each per second and its server CPU
//   reboot    BENCH_DEVICES queue-mode devices updating every BENCH_UPDATE_S s, one reboot of all by label: the time
//             to the last SUCCESS, how many; target: all within two update periods
//
// Env: BENCH_PARTS (coap,register,dtls,reboot), BENCH_STORES (pglite,postgres), DATABASE_URL (a PostgreSQL server),
// BENCH_DEVICES (5000: a run of the defaults takes 6 to 12 minutes a store on a shared 2-core machine;
// BENCH_DEVICES=10000, the fleet of docs/benchmarks.md's figures, about 15 on PGlite and 10 on PostgreSQL),
// BENCH_LIFETIME (60), BENCH_SECONDS (60), BENCH_RATE (data messages a second per device, 0.1; 0: each sends its
// next once the last one's notifications are acknowledged, which the service does before it commits them, so that
// the devices then offer more than the store takes), BENCH_CONCURRENCY (100 registrations in flight),
// BENCH_DTLS_DEVICES (1000), BENCH_DTLS_CONCURRENCY (50), BENCH_UPDATE_S (60), BENCH_QUEUE_AWAKE_MS (the
// simulator's default, 5000), BENCH_REBOOT_MS (1000, off during a reboot), BENCH_REBOOT_MAX_S (3 update periods +
// 60), BENCH_DEVICES_PER_PROCESS (10000), BENCH_COAP_REQUESTS (50000), BENCH_SERVICE_CODE (build|source),
// BENCH_LOG_LEVEL (the service's log on stderr), BENCH_CPU_PROF (a directory: the serving process's CPU profile).
import { cpus, totalmem } from 'node:os'
import { coapBare } from './lib/lwm2m-coap-bare.js'
import { loadNow, type Lwm2mBenchConfig, type PartContext } from './lib/lwm2m-bench.js'
import { dtlsPart } from './lib/lwm2m-dtls-part.js'
import { devicesPerProcess, openFilesLimit } from './lib/lwm2m-fleet.js'
import { rebootPart } from './lib/lwm2m-reboot-part.js'
import { registerPart } from './lib/lwm2m-register-part.js'
import { printCoap, printSummary, type StoreFigures } from './lib/lwm2m-report.js'
import { startLwm2mService } from './lib/lwm2m-service.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { isLocalServer } from './lib/server-cpu.js'

const env = process.env
const num = (name: string, fallback: number): number => {
  const v = env[name] === undefined || env[name] === '' ? fallback : Number(env[name])
  if (!Number.isFinite(v) || v < 0) { console.error(`${name} takes a number, got ${env[name] ?? ''}`); process.exit(2) }
  return v
}
const list = (name: string, fallback: string): string[] => (env[name] ?? fallback).split(',').map((s) => s.trim()).filter((s) => s !== '')
const PARTS = list('BENCH_PARTS', 'coap,register,dtls,reboot')
const STORES = list('BENCH_STORES', 'pglite,postgres')
const SERVER_URL = env.DATABASE_URL === '' ? undefined : env.DATABASE_URL
const UPDATE_S = num('BENCH_UPDATE_S', 60)
const ADMIN = { email: 'lwm2m@fleet.local', password: 'lwm2m-bench-password', clientId: 'lwm2m-bench', clientSecret: 'lwm2m-bench-secret' }

const cfg: Lwm2mBenchConfig = {
  devices: num('BENCH_DEVICES', 5000),
  dtlsDevices: num('BENCH_DTLS_DEVICES', 1000),
  seconds: num('BENCH_SECONDS', 60),
  lifetime: num('BENCH_LIFETIME', 60),
  rate: num('BENCH_RATE', 0.1),
  concurrency: num('BENCH_CONCURRENCY', 100),
  dtlsConcurrency: num('BENCH_DTLS_CONCURRENCY', 50),
  updateS: UPDATE_S,
  queueAwakeMs: env.BENCH_QUEUE_AWAKE_MS === undefined ? undefined : num('BENCH_QUEUE_AWAKE_MS', 5000),
  rebootMs: num('BENCH_REBOOT_MS', 1000),
  rebootMaxS: num('BENCH_REBOOT_MAX_S', 3 * UPDATE_S + 60),
  perProcess: devicesPerProcess(num('BENCH_DEVICES_PER_PROCESS', 10_000)),
  storeCpu: isLocalServer(SERVER_URL),
  admin: ADMIN
}

async function benchOn (store: 'pglite' | 'postgres'): Promise<StoreFigures> {
  let scratch: ScratchDatabase | undefined
  if (store === 'postgres' && SERVER_URL !== undefined) scratch = await createScratchDatabase(SERVER_URL, 'fleet_bench_lwm2m')
  try {
    const seeded = Math.max(PARTS.includes('dtls') ? cfg.dtlsDevices : 0, PARTS.includes('register') || PARTS.includes('reboot') ? cfg.devices : 0)
    console.log(`\n== ${store}: seeding ${seeded} systems (a process of their own), then starting the service`)
    const svc = await startLwm2mService({
      databaseUrl: scratch?.url,
      devices: seeded,
      env: {
        FLEET_ADMIN_EMAIL: ADMIN.email,
        FLEET_ADMIN_PASSWORD: ADMIN.password,
        FLEET_CLIENT_ID: ADMIN.clientId,
        FLEET_CLIENT_SECRET: ADMIN.clientSecret,
        // Every device handshakes from 127.0.0.1: the per-address budget would measure itself (docs/protocols/lwm2m.md,
        // Handshakes per address: 0 for a simulator of many devices on one machine).
        LWM2MS_HANDSHAKES_PER_S: '0'
      }
    })
    console.log(`   seeded in ${svc.seedSeconds.toFixed(1)} s; service pid ${svc.pid}, LwM2M on ${svc.coapUrl} and ${svc.coapsUrl}`)
    const c: PartContext = { store, svc, cfg }
    const out: StoreFigures = { store }
    try {
      if (PARTS.includes('register')) out.register = await registerPart(c)
      if (PARTS.includes('dtls')) out.dtls = await dtlsPart(c)
      if (PARTS.includes('reboot')) out.reboot = await rebootPart(c)
    } finally {
      await svc.close()
    }
    return out
  } finally {
    await scratch?.drop()
  }
}

console.log(`bench lwm2m: parts ${PARTS.join(',')}; ${cfg.devices} devices (${cfg.perProcess} a process at most; open-files limit ${openFilesLimit() ?? '?'}), ` +
  `${cfg.dtlsDevices} over DTLS; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.versions.node}; load ${loadNow().toFixed(2)}`)
if (PARTS.includes('coap')) {
  const load0 = loadNow()
  const figures = await coapBare(num('BENCH_COAP_REQUESTS', 50_000))
  printCoap(figures, [load0, loadNow()])
}
const results: StoreFigures[] = []
if (PARTS.some((p) => p !== 'coap')) {
  for (const store of STORES) {
    if (store !== 'pglite' && store !== 'postgres') continue
    if (store === 'postgres' && SERVER_URL === undefined) { console.log('\n(DATABASE_URL not set: PostgreSQL skipped)'); continue }
    results.push(await benchOn(store))
  }
}
printSummary(results)
