// Part 3 of `npm run bench -- tls`: what an idle device connection costs the service's memory, plain MQTT beside
// MQTT over TLS. For each kind, a fresh service in a process of its own (bench/lib/service-process.ts, started with
// --expose-gc) with N systems seeded, its RSS (and V8 heap) after a full garbage collection, then N simulated devices of another
// process (bench/lib/devices-process.ts, the lean link), each logged in and subscribed to its tasks and then silent,
// and the RSS again: (after − before) ÷ N is a connection's share.
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { startDevicesProcess, type DevicesTls } from './devices-process.js'
import { mqttDisconnect, mqttLogin } from './mqtt-connect.js'
import { createScratchDatabase } from './postgres.js'
import { row } from './seed-systems.js'
import { startServiceProcess, type ServiceProcess, type SettledMemory } from './service-process.js'
import { deviceCerts, registerCa, serverFiles, type ServerPki } from './tls-pki.js'

export type IdleKind = 'plain MQTT' | 'MQTTS one-way' | 'MQTTS mutual'

export interface IdleRow {
  kind: IdleKind
  devices: number
  connected: number
  connectSeconds: number
  before: SettledMemory
  after: SettledMemory
  /**
   * (after − before) ÷ connected, KiB: of the RSS, of the main thread's V8 heap in use, and of the memory its
   * JavaScript objects hold outside it (buffers). PGlite's WebAssembly memory, in a worker thread of the process
   * (docs/decisions/0011-pglite-in-a-worker-thread.md), is in the RSS only.
   */
  kibPerConnection: number
  heapKibPerConnection: number
  externalKibPerConnection: number
  /** The device process's RSS with its connections. */
  devicesRss: number
}

export interface IdleSetup {
  store: 'pglite' | 'postgres'
  serverUrl: string | undefined
  devices: number
  /** Devices connected a second (and at most as many waiting for their CONNACK); a fifth of it for mutual TLS. */
  connectRate: number
  password: string
  admin: { email: string, password: string, client: string, secret: string }
  pki: ServerPki
}

/** The soft limit of open files of this process (its children inherit it); undefined without /proc. */
export function openFilesLimit (): number | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return m?.[1] === undefined ? undefined : m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1])
  } catch { return undefined }
}

async function token (origin: string, admin: IdleSetup['admin']): Promise<string> {
  const qs = new URLSearchParams({ grant_type: 'password', username: admin.email, password: admin.password, client_id: admin.client, client_secret: admin.secret })
  const res = await fetch(`${origin}/api/oauth/token?${qs.toString()}`)
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { access_token: string }).access_token
}

/** Mutual TLS: the CA registered, a certificate per device, and one login to see the listener trusts the CA. */
async function mutualTls (s: IdleSetup, origin: string, companyUid: string, mqttsUrl: string): Promise<DevicesTls> {
  await registerCa(origin, await token(origin, s.admin), companyUid, s.pki.ca)
  const t0 = performance.now()
  const certs = await deviceCerts(s.pki.ca, Array.from({ length: s.devices }, (_, i) => row.serialNumber(i + 1)), s.pki.kind)
  console.log(`   ${s.devices} device certificates (${s.pki.kind}) issued in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  const first = certs[0]
  if (first === undefined) throw new Error('no device')
  for (let attempt = 1; ; attempt++) {
    try {
      await mqttDisconnect(await mqttLogin(new URL(mqttsUrl), { clientId: row.serialNumber(1) }, { ca: s.pki.ca.cert, cert: first.cert, key: first.key }, 10_000))
      break
    } catch (err) {
      if (attempt >= 50) throw err
      await sleep(200)
    }
  }
  return { ca: s.pki.ca.cert, certs: certs.map((c) => ({ cert: c.cert, key: c.key })) }
}

/**
 * The service's RSS once it stops moving: collected and read every second until the last ten readings are within
 * 2 MiB of each other (at most 90 s). Some seconds after the start and the seed, or after the last logins, the
 * process still gives back memory (about 150 MiB 7 to 11 s after a start, seen on PGlite).
 */
async function steadyMemory (svc: ServiceProcess): Promise<SettledMemory> {
  const readings: SettledMemory[] = []
  for (let i = 0; i < 90; i++) {
    readings.push(await svc.settledMemory())
    const last = readings.slice(-10).map((m) => m.rss)
    if (last.length === 10 && Math.max(...last) - Math.min(...last) < 2 * 2 ** 20) break
    await sleep(1000)
  }
  const last = readings[readings.length - 1]
  if (last === undefined) throw new Error('no memory reading')
  return last
}

/** What the devices of a kind are given: nothing (plain MQTT), the service's CA (one-way), their certificates (mutual). */
async function devicesTls (s: IdleSetup, kind: IdleKind, origin: string, companyUid: string, mqttsUrl: string): Promise<DevicesTls | undefined> {
  if (kind === 'plain MQTT') return undefined
  if (kind === 'MQTTS one-way') return { ca: s.pki.ca.cert }
  return await mutualTls(s, origin, companyUid, mqttsUrl)
}

/** One kind on a fresh service: its RSS before and with the idle connections. */
export async function measureIdle (s: IdleSetup, kind: IdleKind): Promise<IdleRow> {
  const scratch = s.store === 'postgres' && s.serverUrl !== undefined ? await createScratchDatabase(s.serverUrl, 'fleet_bench_tls_idle') : undefined
  const files = await serverFiles()
  await files.write(s.pki)
  const svc = await startServiceProcess({
    databaseUrl: scratch?.url,
    env: { ...files.env, FLEET_ADMIN_EMAIL: s.admin.email, FLEET_ADMIN_PASSWORD: s.admin.password, FLEET_CLIENT_ID: s.admin.client, FLEET_CLIENT_SECRET: s.admin.secret },
    devices: s.devices,
    seed: { password: s.password, applicationType: 'generic.mqtt', label: 'bench-tls' },
    gc: true
  })
  let devices: ReturnType<typeof startDevicesProcess> | undefined
  try {
    if (svc.mqttsUrl === undefined) throw new Error('the service has no MQTTS listener')
    const tls = await devicesTls(s, kind, svc.origin, svc.companyUid, svc.mqttsUrl)
    const before = await steadyMemory(svc)
    // A certificate login costs the service several times a password login's CPU: fewer waiting at once keeps them
    // inside the service's CONNACK deadline (MQTT_CONNECT_TIMEOUT_MS) rather than closed and tried again.
    const rate = kind === 'MQTTS mutual' ? Math.max(1, Math.round(s.connectRate / 5)) : s.connectRate
    console.log(`   ${kind}: service seeded ${s.devices} systems in ${svc.seedSeconds.toFixed(1)} s, RSS ${(before.rss / 2 ** 20).toFixed(0)} MiB; connecting ${s.devices} devices, ${rate} a second`)
    devices = startDevicesProcess({ mqttUrl: tls === undefined ? svc.mqttUrl : svc.mqttsUrl, devices: s.devices, password: s.password, perSecond: rate, rebootMs: 1000, client: 'lean', ...(tls === undefined ? {} : { tls }) })
    const ready = await devices.ready
    if (ready.failed > 0) console.log(`   ${ready.failed} devices could not connect (last: ${ready.lastError ?? '?'})`)
    const after = await steadyMemory(svc)
    const stats = await devices.stats()
    const row: IdleRow = {
      kind,
      devices: s.devices,
      connected: stats.connected,
      connectSeconds: ready.seconds,
      before,
      after,
      kibPerConnection: (after.rss - before.rss) / 1024 / Math.max(1, stats.connected),
      heapKibPerConnection: (after.heapUsed - before.heapUsed) / 1024 / Math.max(1, stats.connected),
      externalKibPerConnection: (after.external - before.external) / 1024 / Math.max(1, stats.connected),
      devicesRss: stats.rss
    }
    console.log(`   ${kind}: ${stats.connected} connected in ${ready.seconds.toFixed(1)} s; service RSS ${(after.rss / 2 ** 20).toFixed(0)} MiB, ${row.kibPerConnection.toFixed(1)} KiB a connection (V8 heap ${row.heapKibPerConnection.toFixed(1)}, external ${row.externalKibPerConnection.toFixed(1)})`)
    return row
  } finally {
    await devices?.close()
    await svc.close()
    await files.remove()
    await scratch?.drop()
  }
}
