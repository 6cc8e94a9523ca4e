// MQTT over TLS: logins/s (P-256 and RSA-2048 keys, one-way and mutual) and ingest beside plain MQTT; RSS per idle connection.
//
// Three parts, in one run per store (PGlite in a temporary DATA_DIR; with DATABASE_URL also PostgreSQL, on scratch
// databases dropped after), each with its plain MQTT baseline measured in the same run:
// 1. Handshakes: the service in this process with TLS_CERT_FILE and TLS_KEY_FILE (a bench CA's certificate for
//    localhost, bench/lib/tls-pki.ts), BENCH_CLIENTS clients of another process logging in again and again (connect,
//    handshake, CONNECT, CONNACK, DISCONNECT; bench/lib/tls-handshakes.ts): plain MQTT, then MQTTS one-way (the
//    password), mutual with a certificate named by its CN under a CA the company registered, mutual with a
//    self-signed certificate pinned on its system, beside a bare node:tls server's one-way logins (what Node and
//    OpenSSL alone spend); for an ECDSA P-256 server key, then RSA-2048 (the certificate rewritten and reloaded; the
//    devices' certificates of the same kind). Password logins take turns over BENCH_LOGIN_POOL devices, so that one
//    comes back seldom and the service's few seconds' memory of good logins rarely answers (a fleet reconnecting);
//    certificate logins read the store each time. Logins/s, connect-to-CONNACK p50/p99, the server's CPU per login.
// 2. Ingest: bench ingest's devices (bench/ingest-devices.ts), BENCH_DEVICES connections publishing QoS 1 messages of
//    3 points, BENCH_INFLIGHT in flight each, over plain MQTT and then over MQTTS one-way (P-256) on the same service:
//    committed messages/s of each, MQTTS ÷ MQTT (target 0.8), CPU per message of the service and the devices.
// 3. Idle connections: a fresh service in a child process per kind (bench/lib/tls-idle.ts), BENCH_IDLE_DEVICES
//    devices logged in and subscribed, then silent: plain MQTT, MQTTS one-way, MQTTS mutual (CA-named); the
//    service's RSS before and with them after a full garbage collection, KiB per connection.
// The load average is printed with each part: the service, the clients and the store share the machine's cores.
//
// Env: BENCH_PARTS (handshakes,ingest,idle), BENCH_STORES (pglite,postgres), DATABASE_URL, BENCH_HANDSHAKE_SECONDS
// (10 per target), BENCH_CLIENTS (50), BENCH_LOGIN_POOL (20000), BENCH_SECONDS (60 per ingest target), BENCH_DEVICES (1000), BENCH_INFLIGHT
// (4), BENCH_IDLE_DEVICES (10000, capped by the open-files limit), BENCH_CONNECT_RATE (500 idle devices a second).
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { openInfra } from '../bin/context.js'
import { assembleService } from '../bin/serve.js'
import { measureIngest, type IngestFigures, type IngestRun } from './lib/measure-ingest.js'
import { createScratchDatabase, type ScratchDatabase } from './lib/postgres.js'
import { seedDevices } from './lib/seed-devices.js'
import { benchConfig, passwordToken } from './lib/service.js'
import { table } from './lib/table.js'
import { measureHandshakes, type HandshakeRow } from './lib/tls-handshakes.js'
import { measureIdle, openFilesLimit, type IdleKind, type IdleRow } from './lib/tls-idle.js'
import { serverFiles, serverPki, type ServerPki } from './lib/tls-pki.js'

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback)
const PARTS = (process.env.BENCH_PARTS ?? 'handshakes,ingest,idle').split(',').map((s) => s.trim())
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').map((s) => s.trim())
const SERVER_URL = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL
const HANDSHAKE_SECONDS = env('BENCH_HANDSHAKE_SECONDS', 10)
const CLIENTS = env('BENCH_CLIENTS', 50)
const POOL = Math.max(env('BENCH_LOGIN_POOL', 20_000), CLIENTS)
const SECONDS = env('BENCH_SECONDS', 60)
const WARMUP = Math.min(5, Math.max(1, SECONDS / 6))
const DEVICES = env('BENCH_DEVICES', 1000)
const INFLIGHT = env('BENCH_INFLIGHT', 4)
const CONNECT_RATE = env('BENCH_CONNECT_RATE', 500)
// Each idle connection is a descriptor in the service's process and one in the devices' (both inherit this limit),
// beside the store's files and the service's other sockets.
const FILES = openFilesLimit() ?? Number.POSITIVE_INFINITY
const IDLE = Math.min(env('BENCH_IDLE_DEVICES', 10_000), FILES - 1000)
// The handshakes' password logins need the pool, the ingest its devices.
const SEEDED = Math.max(DEVICES, PARTS.includes('handshakes') ? POOL : 0)
const PASSWORD = 'bench-mqtt-password'
const ADMIN = { email: 'tls@fleet.local', password: 'tls-bench-password', client: 'tls-bench', secret: 'tls-bench-secret' }
const TARGET_RATIO = 0.8

type Store = 'pglite' | 'postgres'

interface StoreFigures { store: Store, handshakes: HandshakeRow[], ingest: IngestFigures[], idle: IdleRow[], load: Record<string, string> }

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ')

/** Parts 1 and 2 on one service in this process. */
async function inProcess (store: Store, figures: StoreFigures, pkis: ServerPki[]): Promise<void> {
  const scratch: ScratchDatabase | undefined = store === 'postgres' && SERVER_URL !== undefined ? await createScratchDatabase(SERVER_URL, 'fleet_bench_tls') : undefined
  const dataDir = await mkdtemp(join(tmpdir(), 'fleet-bench-tls-'))
  const files = await serverFiles()
  const [ecdsa] = pkis
  if (ecdsa === undefined) throw new Error('no server key')
  await files.write(ecdsa)
  try {
    console.log(`\n== ${store}: starting the service (this process) with MQTTS and seeding ${SEEDED} systems`)
    const config = benchConfig(dataDir, scratch?.url, {
      ...files.env,
      FLEET_ADMIN_EMAIL: ADMIN.email,
      FLEET_ADMIN_PASSWORD: ADMIN.password,
      FLEET_CLIENT_ID: ADMIN.client,
      FLEET_CLIENT_SECRET: ADMIN.secret
    })
    const infra = await openInfra(config)
    const service = await assembleService(config, pino({ level: 'silent' }), infra)
    try {
      const { httpPort, ports } = await service.listen({ anyPort: true, host: '127.0.0.1' })
      const tls = service.tls
      if (tls === undefined || ports.mqtts === undefined) throw new Error('the service has no MQTTS listener')
      const origin = `http://127.0.0.1:${httpPort ?? 0}`
      const token = await passwordToken(origin, { username: ADMIN.email, password: ADMIN.password, clientId: ADMIN.client, clientSecret: ADMIN.secret })
      const companyUid = (await infra.db.query<{ uid: string }>('SELECT uid FROM companies LIMIT 1')).rows[0]?.uid ?? ''
      await seedDevices(infra.db, companyUid, SEEDED, { password: PASSWORD, applicationType: 'generic.mqtt', label: 'bench-tls' })
      const mqttUrl = `mqtt://127.0.0.1:${ports.mqtt ?? 0}`
      const mqttsUrl = `mqtts://127.0.0.1:${ports.mqtts}`
      if (PARTS.includes('handshakes')) {
        figures.load['handshakes, before'] = load()
        const reload = async (): Promise<boolean> => await tls.reload('bench')
        const timing = { clients: CLIENTS, pool: POOL, password: PASSWORD, seconds: HANDSHAKE_SECONDS, warmupSeconds: Math.min(2, HANDSHAKE_SECONDS / 5) }
        figures.handshakes = await measureHandshakes({ origin, token, companyUid, mqttUrl, mqttsUrl, files, reload, fingerprint: tls.fingerprint, ...timing }, pkis)
        figures.load['handshakes, after'] = load()
      }
      if (PARTS.includes('ingest')) {
        await files.write(ecdsa)
        if (!await tls.reload('bench') || tls.fingerprint() !== ecdsa.server.fingerprint) throw new Error('the service did not take the P-256 certificate back')
        figures.load['ingest, before'] = load()
        const run: IngestRun = { devices: DEVICES, inflight: INFLIGHT, password: PASSWORD, seconds: SECONDS, warmupSeconds: WARMUP }
        figures.ingest = [
          await measureIngest(infra.db, 'plain MQTT', mqttUrl, run),
          await measureIngest(infra.db, 'MQTTS one-way (P-256)', mqttsUrl, run, { ca: ecdsa.ca.cert })
        ]
        figures.load['ingest, after'] = load()
      }
    } finally {
      await service.close()
    }
  } finally {
    await files.remove()
    await rm(dataDir, { recursive: true, force: true })
    await scratch?.drop()
  }
}

async function benchOn (store: Store, pkis: ServerPki[]): Promise<StoreFigures> {
  const figures: StoreFigures = { store, handshakes: [], ingest: [], idle: [], load: {} }
  if (PARTS.includes('handshakes') || PARTS.includes('ingest')) await inProcess(store, figures, pkis)
  if (PARTS.includes('idle') && pkis[0] !== undefined) {
    if (IDLE < env('BENCH_IDLE_DEVICES', 10_000)) console.log(`\n   (open files limited to ${FILES} here: ${IDLE} idle devices instead of ${env('BENCH_IDLE_DEVICES', 10_000)})`)
    console.log(`\n== ${store}: ${IDLE} idle connections, a fresh service (its own process) for each kind`)
    figures.load['idle, before'] = load()
    for (const kind of ['plain MQTT', 'MQTTS one-way', 'MQTTS mutual'] satisfies IdleKind[]) {
      figures.idle.push(await measureIdle({ store, serverUrl: SERVER_URL, devices: IDLE, connectRate: CONNECT_RATE, password: PASSWORD, admin: ADMIN, pki: pkis[0] }, kind))
    }
    figures.load['idle, after'] = load()
  }
  return figures
}

function print (f: StoreFigures): void {
  console.log(`\n== ${f.store}`)
  if (f.handshakes.length > 0) {
    const plain = (key: string): number => {
      const i = f.handshakes.findIndex((r) => r.key === key)
      const r = f.handshakes.slice(0, i).reverse().find((x) => x.key === '-')
      return r === undefined ? Number.NaN : r.result.completed / r.result.seconds
    }
    console.log(`\nlogins/s, ${CLIENTS} clients at once, each a new connection (TLS: a full handshake)\n`)
    // A core's worth of the server's CPU per login: what one core of its own would serve, whatever else ran here.
    console.log(table(['server key', 'login', 'logins/s', '÷ plain', 'p50 ms', 'p99 ms', 'server µs CPU', 'per server core/s', 'client µs CPU', 'errors', 'TLS'],
      f.handshakes.map((r, i) => {
        const rate = r.result.completed / r.result.seconds
        const base = r.key === '-' ? rate : plain(r.key) // the plain run just before this key's rows
        return [r.key === '-' ? `- (${f.handshakes[i + 1]?.key ?? ''} run)` : r.key, r.mode, rate, rate / base, r.result.latencies.p50, r.result.latencies.p99,
          r.serviceUsPerLogin, 1e6 / r.serviceUsPerLogin, r.result.cpuUs / Math.max(1, r.result.completedTotal), r.result.errors, r.result.protocol ?? '-']
      })))
  }
  if (f.ingest.length > 0) {
    const [plain, tls] = f.ingest
    console.log(`\ningest, ${DEVICES} devices, ${INFLIGHT} in flight each, ${SECONDS} s\n`)
    console.log(table(['connections', 'committed msg/s', 'acked msg/s', 'ack p50 ms', 'ack p99 ms', 'service µs/msg', 'devices µs/msg', 'unacked'],
      f.ingest.map((g) => [g.name, g.committedPerS, g.result.acked / g.result.seconds, g.result.latencies.p50, g.result.latencies.p99, g.serviceUsPerMessage, g.devicesUsPerMessage, g.result.errors])))
    if (plain !== undefined && tls !== undefined) {
      const ratio = tls.committedPerS / plain.committedPerS
      console.log(`   MQTTS ÷ MQTT committed = ${ratio.toFixed(3)} (target ≥ ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'missed'})`)
    }
  }
  if (f.idle.length > 0) {
    console.log('\nidle connections, service RSS after a full garbage collection\n')
    const mib = (b: number): number => b / 2 ** 20
    console.log(table(['connections', 'devices', 'connected', 'connect s', 'RSS before MiB', 'RSS with them MiB', 'KiB a connection', 'of it V8 heap', 'external', 'devices RSS MiB'],
      f.idle.map((r) => [r.kind, r.devices, r.connected, r.connectSeconds, mib(r.before.rss), mib(r.after.rss), r.kibPerConnection, r.heapKibPerConnection,
        r.externalKibPerConnection, mib(r.devicesRss)])))
  }
  console.log('\nload average (1, 5, 15 min):')
  for (const [when, l] of Object.entries(f.load)) console.log(`   ${when}: ${l}`)
}

console.log(`issuing the bench's CAs and server certificates (P-256, RSA-2048); load average ${load()}`)
const pkis = [await serverPki('P-256'), await serverPki('RSA-2048')]
const results: StoreFigures[] = []
for (const store of STORES) {
  if (store !== 'pglite' && store !== 'postgres') continue
  if (store === 'postgres' && SERVER_URL === undefined) { console.log('\n(DATABASE_URL not set: PostgreSQL skipped)'); continue }
  results.push(await benchOn(store, pkis))
}
for (const f of results) print(f)
