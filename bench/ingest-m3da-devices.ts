// The M3DA device side of `npm run bench -- ingest --protocol m3da` (run by bench/ingest.ts, not on its own): one TCP
// connection per device, each sending envelopes of one data message (3 points, the MQTT bench's) as fast as the
// replies come. M3DA allows one package in flight per peer (protocols.md §2.5), so each connection waits for its
// reply before it sends again.
//
// Lean agents, as the MQTT bench's clients are (net + mqtt-packet): callbacks on the socket rather than the
// simulator's promise per exchange and reply timer, so that the service, not the agents, is what is measured; the
// agents share the machine's two cores with it. What they send is still built by our codecs and, secured, sealed and
// checked by the device side of protocols/m3da/security: a fresh nonce announced in every envelope, the payload
// encrypted, every reply's MAC verified and its payload decrypted, a 401/407 challenge answered once (§2.8.3, §2.8.4).
//
// Input: one JSON argument {target: {name, url, security, deviceIds, password}, seconds, warmupSeconds}.
// Output: one JSON line on stdout, the TargetResult of bench/ingest-devices.ts.
import { connect, type Socket } from 'node:net'
import { EnvelopeReader, encodeEnvelope, encodePayload, type Envelope } from '../protocols/m3da/index.js'
import { deriveKeys, openServerEnvelope, sealDeviceEnvelope, newNonce, type SessionKeys } from '../protocols/m3da/security/index.js'
import { messagesOf } from '../simulator/transports/m3da-objects.js'
import { DEFAULT_SERVER_ID, type M3daSecurity } from '../simulator/transports/m3da-options.js'
import type { TargetResult } from './ingest-devices.js'
import { percentile } from './lib/stats.js'

export interface M3daDevicesInput {
  target: { name: string, url: string, security: M3daSecurity, deviceIds: string[], password: string }
  seconds: number
  warmupSeconds: number
}

interface Agent {
  id: string
  socket: Socket
  reader: EnvelopeReader
  /** Secured agents: the keys of the password, the nonce to sign with, the one the request in flight announced. */
  keys: SessionKeys | undefined
  nonce: Buffer
  announced: Buffer | undefined
  /** The payload in flight (sent again after a challenge) and when it was first sent. */
  payload: Buffer
  sentAt: number
  challenged: boolean
  seq: number
  done: boolean
}

/** The device's next envelope payload: the same three points as the MQTT bench's messages. */
function nextPayload (a: Agent, ts: number): Buffer {
  a.seq++
  return encodePayload(messagesOf([
    { dataId: 'machine.temperature', ts, value: 20 + (a.seq % 100) / 10 },
    { dataId: '_RSSI', ts, value: -70 - (a.seq % 20) },
    { dataId: 'sim.seq', ts, value: a.seq }
  ]))
}

function open (url: URL, id: string, keys: SessionKeys | undefined): Promise<Agent> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    socket.setNoDelay(true)
    // No nonce from the service yet: a random one, so the first signed request is challenged and learns one (§2.8.3).
    const a: Agent = { id, socket, reader: new EnvelopeReader(), keys, nonce: newNonce(), announced: undefined, payload: Buffer.alloc(0), sentAt: 0, challenged: false, seq: 0, done: false }
    socket.once('error', reject)
    socket.once('connect', () => { socket.removeListener('error', reject); resolve(a) })
  })
}

async function connectAll (url: URL, t: M3daDevicesInput['target']): Promise<Agent[]> {
  const out: Agent[] = []
  const batch = 100
  for (let i = 0; i < t.deviceIds.length; i += batch) {
    out.push(...await Promise.all(t.deviceIds.slice(i, i + batch).map(async (id) =>
      await open(url, id, t.security.mode === 'none' ? undefined : deriveKeys(t.password, id, DEFAULT_SERVER_ID)))))
  }
  return out
}

async function runTarget (input: M3daDevicesInput): Promise<TargetResult> {
  const t = input.target
  const security = t.security
  const agents = await connectAll(new URL(t.url), t)
  const cpu0 = process.cpuUsage() // after the process's start and the connections: the exchanges' own CPU
  const latencies: number[] = []
  let acked = 0
  let ackedTotal = 0
  let errors = 0
  let lastFailure: string | undefined
  const start = performance.now()
  const windowStart = start + input.warmupSeconds * 1000
  const end = windowStart + input.seconds * 1000
  let open = agents.length
  let settled: () => void = () => {}
  const allSettled = new Promise<void>((resolve) => { settled = resolve })
  const finish = (a: Agent): void => {
    if (a.done) return
    a.done = true
    a.socket.destroy()
    if (--open === 0) settled()
  }

  /** Writes the payload in flight: plain, or sealed with the current nonce (the same announced one after a challenge). */
  const write = (a: Agent): void => {
    if (a.keys === undefined || security.mode === 'none') {
      a.socket.write(encodeEnvelope({ header: { id: a.id }, payload: a.payload }))
      return
    }
    const sealed = sealDeviceEnvelope({ payload: a.payload }, {
      deviceId: a.id, keys: a.keys, nonce: a.nonce, ...(a.announced === undefined ? {} : { nextNonce: a.announced }), algorithm: security.mac, cipher: security.cipher
    })
    a.announced = sealed.nextNonce
    a.socket.write(sealed.bytes)
  }
  const send = (a: Agent): void => {
    if (performance.now() >= end) { finish(a); return }
    a.payload = nextPayload(a, Date.now())
    a.announced = undefined
    a.challenged = false
    a.sentAt = performance.now()
    write(a)
  }
  const failed = (a: Agent, why: string): void => {
    // Refused (a 503 when the store is behind): the agent sends again a moment later, as the service asks; the
    // errors column counts them.
    errors++
    lastFailure = why
    setTimeout(() => { if (!a.done) send(a) }, 200)
  }
  const answered = (a: Agent): void => {
    const now = performance.now()
    ackedTotal++
    if (a.sentAt >= windowStart && now <= end) { acked++; latencies.push(now - a.sentAt) }
    send(a)
  }

  /** One reply: the status of the request in flight (§2.4), inside the sealed inner envelope when secured. */
  const reply = (a: Agent, e: Envelope): void => {
    if (a.keys === undefined || security.mode === 'none') {
      if (e.header.status === 200) answered(a); else failed(a, `status ${String(e.header.status)}`)
      return
    }
    const opened = openServerEnvelope(e, { keys: a.keys, nonce: a.announced ?? a.nonce, cipher: security.cipher })
    switch (opened.kind) {
      case 'open':
        a.nonce = opened.nextNonce
        if (opened.inner.header.status === 200) answered(a); else failed(a, `status ${String(opened.inner.header.status)}`)
        return
      case 'challenge':
        // Signed again once with the challenge's nonce (a second challenge means a wrong password: §2.8.4).
        if (a.challenged) { failed(a, `challenged twice (status ${String(opened.status)})`); return }
        a.challenged = true
        a.nonce = opened.nonce
        write(a)
        return
      default:
        failed(a, opened.kind === 'error' ? `status ${opened.status}` : opened.reason)
    }
  }

  for (const a of agents) {
    a.socket.on('data', (chunk: Buffer) => {
      a.reader.push(chunk)
      for (;;) {
        const next = a.reader.next()
        if (next === 'more') return
        if (!next.ok) { failed(a, `reply unreadable: ${next.reason}`); a.socket.destroy(); return }
        reply(a, next.envelope)
      }
    })
    a.socket.on('error', (err) => { lastFailure = err.message })
    a.socket.on('close', () => {
      if (performance.now() < end) { errors++; lastFailure ??= 'connection closed by the service' }
      finish(a)
    })
    send(a)
  }
  await allSettled

  // The agents' own CPU (building, sealing, checking), which bench/ingest.ts prints per message beside the service's.
  const cpu = process.cpuUsage(cpu0)
  if (lastFailure !== undefined) process.stderr.write(`   ${t.name}: ${errors} envelopes not answered 200 (last: ${lastFailure})\n`)
  latencies.sort((a, b) => a - b)
  return {
    name: t.name,
    connected: agents.length,
    acked,
    seconds: input.seconds,
    ackedTotal,
    errors,
    latencies: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? Number.NaN },
    cpuUs: cpu.user + cpu.system
  }
}

const arg = process.argv[2]
if (arg === undefined) {
  console.error('bench/ingest-m3da-devices.ts is the device process of `npm run bench -- ingest --protocol m3da`; run that instead.')
  process.exit(2)
}
process.stdout.write(JSON.stringify(await runTarget(JSON.parse(arg) as M3daDevicesInput)) + '\n')
