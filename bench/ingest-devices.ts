// The device side of `npm run bench -- ingest` (run by bench/ingest.ts, not on its own): many MQTT 3.1.1
// connections publishing QoS 1 messages of 3 data points as fast as the PUBACKs allow, a bounded number in flight
// per connection, over TCP or TLS (bench tls). Lean clients (net or tls + mqtt-packet) so that the broker, not the
// client, is what is measured.
//
// Input: one JSON document on stdin {targets: [{name, url}], usernames: string[], password, seconds, warmupSeconds, inflight,
// tls} (tls: the CA of the service's certificate, for mqtts:// targets).
// Output: one JSON line per target on stdout: {name, connected, acked, seconds, latencies: {p50, p99, max}}.
import type { Socket } from 'node:net'
import mqtt, { type Packet } from 'mqtt-packet'
import { encodeData } from '../protocols/airvantage/index.js'
import { answerTargets } from './lib/json-lines-child.js'
import { type BenchTls, mqttLogin } from './lib/mqtt-connect.js'
import { percentile } from './lib/stats.js'

export interface DevicesInput {
  targets: Array<{ name: string, url: string }>
  usernames: string[]
  password: string
  seconds: number
  warmupSeconds: number
  inflight: number
  /** mqtts:// targets: the CA of the service's certificate (one-way TLS, the password still logs in). */
  tls?: BenchTls
}

export interface TargetResult {
  name: string
  connected: number
  /** PUBACKs received inside the measured window, and its length. */
  acked: number
  seconds: number
  /** PUBACKs received in the whole run (warm-up included). */
  ackedTotal: number
  errors: number
  latencies: { p50: number, p99: number, max: number }
  /** CPU the device process spent on this target once its connections were open (µs, user + system). */
  cpuUs: number
}

const OPTS = { protocolVersion: 4 }

interface Connection {
  socket: Socket
  parser: ReturnType<typeof mqtt.parser>
  username: string
  next: number
  sentAt: Map<number, number>
  seq: number
}

async function open (url: URL, username: string, input: DevicesInput): Promise<Connection> {
  const { socket, parser } = await mqttLogin(url, { clientId: username, username, password: input.password }, input.tls)
  return { socket, parser, username, next: 1, sentAt: new Map(), seq: 0 }
}

async function connectAll (url: URL, input: DevicesInput): Promise<Connection[]> {
  const out: Connection[] = []
  const batch = 100
  for (let i = 0; i < input.usernames.length; i += batch) {
    out.push(...await Promise.all(input.usernames.slice(i, i + batch).map(async (u) => await open(url, u, input))))
  }
  return out
}

function payload (c: Connection, ts: number): Buffer {
  c.seq++
  return Buffer.from(encodeData([
    { dataId: 'machine.temperature', ts, value: 20 + (c.seq % 100) / 10 },
    { dataId: '_RSSI', ts, value: -70 - (c.seq % 20) },
    { dataId: 'sim.seq', ts, value: c.seq }
  ]))
}

async function runTarget (target: { name: string, url: string }, input: DevicesInput): Promise<TargetResult> {
  const url = new URL(target.url)
  const conns = await connectAll(url, input)
  const cpu0 = process.cpuUsage()
  const latencies: number[] = []
  let acked = 0
  let ackedTotal = 0
  let errors = 0
  let publishing = true
  const start = performance.now()
  const windowStart = start + input.warmupSeconds * 1000
  const end = windowStart + input.seconds * 1000
  let settled: () => void = () => {}
  const allSettled = new Promise<void>((resolve) => { settled = resolve })
  let open = conns.length

  const send = (c: Connection): void => {
    const messageId = c.next
    c.next = c.next === 65535 ? 1 : c.next + 1
    c.sentAt.set(messageId, performance.now())
    c.socket.write(mqtt.generate({ cmd: 'publish', topic: `${c.username}/messages/json`, payload: payload(c, Date.now()), qos: 1, retain: false, dup: false, messageId }, OPTS))
  }
  const done = new Set<Connection>()
  const settle = (c: Connection): void => {
    if (done.has(c)) return
    done.add(c)
    if (--open === 0) settled()
  }
  const finish = (c: Connection): void => {
    if (c.sentAt.size > 0) return
    c.socket.end()
    settle(c)
  }

  for (const c of conns) {
    c.parser.removeAllListeners('packet')
    c.parser.on('packet', (p: Packet) => {
      if (p.cmd !== 'puback' || p.messageId === undefined) return
      const at = c.sentAt.get(p.messageId)
      if (at === undefined) return
      c.sentAt.delete(p.messageId)
      const now = performance.now()
      ackedTotal++
      if (at >= windowStart && now <= end) { acked++; latencies.push(now - at) }
      if (publishing && now < end) send(c)
      else finish(c)
    })
    c.socket.on('close', () => {
      errors += c.sentAt.size // never acknowledged
      c.sentAt.clear()
      settle(c)
    })
    for (let i = 0; i < input.inflight; i++) send(c)
  }
  await new Promise((resolve) => setTimeout(resolve, end - performance.now()))
  publishing = false
  for (const c of conns) finish(c)
  await allSettled
  const cpu = process.cpuUsage(cpu0)
  latencies.sort((a, b) => a - b)
  return {
    name: target.name,
    connected: conns.length,
    acked,
    seconds: input.seconds,
    ackedTotal,
    errors,
    latencies: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? Number.NaN },
    cpuUs: cpu.user + cpu.system
  }
}

await answerTargets<DevicesInput, unknown>('bench/ingest-devices.ts is the device process of `npm run bench -- ingest`; run that instead.', runTarget)
