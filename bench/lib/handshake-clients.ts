// The client process of `npm run bench -- tls` (run by bench/tls.ts, not on its own): N clients at once, each
// logging in again and again (connect, TLS handshake on mqtts://, CONNECT, CONNACK, DISCONNECT, the service closes),
// so that a target's rate is full logins per second, each a new TCP connection and, over TLS, a full handshake (no
// session is resumed: Node's client resumes only a session it is handed). Client k logs in as logins k, k + N,
// k + 2N... in turn: given many more logins than clients, the same device comes back seldom, as in a fleet
// reconnecting, rather than one device logging in many times a second.
//
// Input: one JSON document on stdin, HandshakeInput. Output: one JSON line per target on stdout, HandshakeResult.
import type { TLSSocket } from 'node:tls'
import { setTimeout as sleep } from 'node:timers/promises'
import { mqttDisconnect, mqttLogin, type MqttLogin } from './mqtt-connect.js'
import { answerTargets } from './json-lines-child.js'
import { percentile } from './stats.js'

export interface HandshakeLogin { username: string, password?: string, cert?: string, key?: string }

export interface HandshakeTarget {
  name: string
  /** mqtt:// or mqtts:// */
  url: string
  /** PEM of the CA of the service's certificate (mqtts://). */
  ca?: string
  /** Clients at once (at most one per login). */
  clients: number
  /** The devices the clients log in as, in turn. */
  logins: HandshakeLogin[]
}

export interface HandshakeInput { targets: HandshakeTarget[], seconds: number, warmupSeconds: number }

export interface HandshakeResult {
  name: string
  clients: number
  /** Logins (CONNACK 0) inside the measured window, and its length. */
  completed: number
  seconds: number
  /** Logins in the whole run, warm-up included (the probe's not). */
  completedTotal: number
  errors: number
  lastError: string | undefined
  /** From the TCP connect to the CONNACK, ms, inside the window. */
  latencies: { p50: number, p99: number, max: number }
  /** CPU this process spent on the target (µs, user + system). */
  cpuUs: number
  /** What the TLS handshakes agreed (mqtts:// only). */
  protocol: string | undefined
  cipher: string | undefined
}

/** The CONNECT of a login: its username as client id; with a certificate the service reads neither. */
const mqttLoginOf = (login: HandshakeLogin): MqttLogin =>
  ({ clientId: login.username, username: login.username, ...(login.password === undefined ? {} : { password: login.password }) })

const tlsOf = (target: HandshakeTarget, login: HandshakeLogin): Parameters<typeof mqttLogin>[2] =>
  target.ca === undefined ? undefined : { ca: target.ca, ...(login.cert === undefined ? {} : { cert: login.cert, key: login.key }) }

/** A target's first login, tried until it passes: the service may still be taking in a CA just registered. */
async function probe (url: URL, target: HandshakeTarget): Promise<{ protocol?: string, cipher?: string }> {
  const login = target.logins[0]
  if (login === undefined) throw new Error(`${target.name}: no client`)
  const t0 = performance.now()
  for (;;) {
    try {
      const c = await mqttLogin(url, mqttLoginOf(login), tlsOf(target, login), 10_000)
      const tls = url.protocol === 'mqtts:' ? c.socket as TLSSocket : undefined
      const agreed = { protocol: tls?.getProtocol() ?? undefined, cipher: tls?.getCipher().name }
      await mqttDisconnect(c)
      return agreed
    } catch (err) {
      if (performance.now() - t0 > 20_000) throw new Error(`${target.name}: no login in 20 s: ${(err as Error).message}`)
      await sleep(200)
    }
  }
}

async function runTarget (target: HandshakeTarget, input: HandshakeInput): Promise<HandshakeResult> {
  const url = new URL(target.url)
  const agreed = await probe(url, target)
  const cpu0 = process.cpuUsage()
  const start = performance.now()
  const windowStart = start + input.warmupSeconds * 1000
  const end = windowStart + input.seconds * 1000
  const latencies: number[] = []
  const clients = Math.min(target.clients, target.logins.length)
  // A whole number of rounds, so that two clients never log in as one device at once.
  const span = clients * Math.floor(target.logins.length / clients)
  let errors = 0
  let total = 0
  let lastError: string | undefined
  const client = async (k: number): Promise<void> => {
    for (let j = k; performance.now() < end; j = (j + clients) % span) {
      const login = target.logins[j]
      if (login === undefined) return
      const tls = tlsOf(target, login)
      const t0 = performance.now()
      try {
        const c = await mqttLogin(url, mqttLoginOf(login), tls, 10_000)
        const t1 = performance.now()
        total++
        if (t0 >= windowStart && t1 <= end) latencies.push(t1 - t0)
        await mqttDisconnect(c)
      } catch (err) {
        errors++
        lastError = (err as Error).message
        await sleep(100) // not a tight loop of refusals
      }
    }
  }
  await Promise.all(Array.from({ length: clients }, async (_, k) => { await client(k) }))
  const cpu = process.cpuUsage(cpu0)
  latencies.sort((a, b) => a - b)
  return {
    name: target.name,
    clients,
    completed: latencies.length,
    seconds: input.seconds,
    completedTotal: total,
    errors,
    lastError,
    latencies: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? Number.NaN },
    cpuUs: cpu.user + cpu.system,
    protocol: agreed.protocol,
    cipher: agreed.cipher
  }
}

await answerTargets<HandshakeInput, unknown>('bench/lib/handshake-clients.ts is the client process of `npm run bench -- tls`; run that instead.', runTarget)
