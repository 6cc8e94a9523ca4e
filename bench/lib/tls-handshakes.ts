// Part 1 of `npm run bench -- tls`: full logins per second (TCP connect, TLS handshake, CONNECT, CONNACK) against
// the service's MQTTS listener, per server key kind, one-way (a password) and mutual (a certificate pinned on its
// system, or named by its CN under a CA the company registered), beside plain MQTT logins of the same clients in
// the same run. The clients run in a process of their own (bench/lib/handshake-clients.ts); the service is the
// caller's, in this process, so that process.cpuUsage() is the service's CPU per login.
import { fileURLToPath } from 'node:url'
import { startBareTls } from './bare-tls.js'
import type { HandshakeInput, HandshakeLogin, HandshakeResult, HandshakeTarget } from './handshake-clients.js'
import { runJsonLinesChild } from './json-lines-child.js'
import { row } from './seed-systems.js'
import { deviceCerts, pinCertificates, registerCa, type ServerFiles, type ServerPki } from './tls-pki.js'

const CLIENTS_SCRIPT = fileURLToPath(new URL('./handshake-clients.ts', import.meta.url))

export interface HandshakeSetup {
  origin: string
  token: string
  companyUid: string
  mqttUrl: string
  mqttsUrl: string
  /** The service's TLS context: reloaded after each new server certificate is written. */
  reload: () => Promise<boolean>
  fingerprint: () => string
  files: ServerFiles
  /** Clients at once. */
  clients: number
  /**
   * Systems 1..pool of bench/lib/seed-systems.ts log in with their MQTT password `password`, each seldom enough that
   * the devices service's short memory of good logins rarely answers; certificates log in systems 1..clients (a
   * certificate login reads the store every time).
   */
  pool: number
  password: string
  seconds: number
  warmupSeconds: number
}

export interface HandshakeRow {
  /** The server key kind, or '-' for plain MQTT. */
  key: string
  mode: string
  result: HandshakeResult
  /** The server's CPU per login in the whole run, warm-up included (µs): the service's, or the bare server's. */
  serviceUsPerLogin: number
}

/** The service's certificate is `pki`'s once this answers. */
async function useServerKey (s: HandshakeSetup, pki: ServerPki): Promise<void> {
  await s.files.write(pki)
  if (!await s.reload() || s.fingerprint() !== pki.server.fingerprint) throw new Error(`the service did not take the ${pki.kind} certificate`)
}

/**
 * The targets of one server key: plain MQTT first (the baseline), a bare node:tls server's one-way logins (what Node
 * and OpenSSL alone spend), then the service's one-way, mutual under a CA, and pinned.
 */
async function targetsOf (s: HandshakeSetup, pki: ServerPki, bareUrl: string): Promise<Array<{ mode: string, target: HandshakeTarget }>> {
  const ids = Array.from({ length: s.clients }, (_, i) => i + 1)
  const serials = ids.map(row.serialNumber)
  const withPassword: HandshakeLogin[] = Array.from({ length: s.pool }, (_, i) => ({ username: row.serialNumber(i + 1), password: s.password }))
  const underCa = await deviceCerts(pki.ca, serials, pki.kind)
  const pinned = await deviceCerts(undefined, serials, pki.kind)
  await registerCa(s.origin, s.token, s.companyUid, pki.ca)
  await pinCertificates(s.origin, s.token, ids.map(row.uid), pinned)
  const withCert = (certs: typeof pinned): HandshakeLogin[] => certs.map((c, i) => ({ username: serials[i] ?? '', cert: c.cert, key: c.key }))
  const tls = (mode: string, logins: HandshakeLogin[]): { mode: string, target: HandshakeTarget } =>
    ({ mode, target: { name: `${pki.kind} ${mode}`, url: s.mqttsUrl, ca: pki.ca.cert, clients: s.clients, logins } })
  return [
    { mode: 'plain MQTT', target: { name: `plain MQTT (${pki.kind} run)`, url: s.mqttUrl, clients: s.clients, logins: withPassword } },
    { mode: 'bare node:tls, one-way', target: { name: `${pki.kind} bare node:tls server, one-way`, url: bareUrl, ca: pki.ca.cert, clients: s.clients, logins: withPassword } },
    tls('one-way, password', withPassword),
    tls('mutual, CA-named', withCert(underCa)),
    tls('mutual, pinned', withCert(pinned))
  ]
}

async function runTarget (s: HandshakeSetup, key: string, mode: string, target: HandshakeTarget): Promise<HandshakeRow> {
  const input: HandshakeInput = { targets: [target], seconds: s.seconds, warmupSeconds: s.warmupSeconds }
  const cpu0 = process.cpuUsage()
  const [result] = await runJsonLinesChild<HandshakeResult>(CLIENTS_SCRIPT, input)
  const cpu = process.cpuUsage(cpu0)
  if (result === undefined) throw new Error(`${target.name}: the client process answered nothing`)
  for (const k of ['p50', 'p99', 'max'] as const) result.latencies[k] ??= Number.NaN // JSON has no NaN
  const row: HandshakeRow = { key, mode, result, serviceUsPerLogin: (cpu.user + cpu.system) / Math.max(1, result.completedTotal) }
  console.log(`   ${target.name}: ${(result.completed / result.seconds).toFixed(0)} logins/s, p50 ${result.latencies.p50.toFixed(1)} ms, ` +
    `p99 ${result.latencies.p99.toFixed(1)} ms, service ${row.serviceUsPerLogin.toFixed(0)} µs CPU a login` +
    `${result.protocol === undefined ? '' : `, ${result.protocol} ${result.cipher ?? ''}`}` +
    `${result.errors > 0 ? `; ${result.errors} errors (last: ${result.lastError ?? '?'})` : ''}`)
  return row
}

/** Every server key in turn, its four targets each: one row per target. */
export async function measureHandshakes (s: HandshakeSetup, pkis: readonly ServerPki[]): Promise<HandshakeRow[]> {
  const rows: HandshakeRow[] = []
  for (const pki of pkis) {
    await useServerKey(s, pki)
    console.log(`   server key ${pki.kind}: ${s.clients} clients at once, ${s.warmupSeconds} s warm-up + ${s.seconds} s per target`)
    const bare = await startBareTls(pki)
    try {
      for (const { mode, target } of await targetsOf(s, pki, bare.url)) {
        rows.push(await runTarget(s, target.ca === undefined ? '-' : pki.kind, mode, target))
      }
    } finally {
      await bare.close()
    }
  }
  return rows
}
