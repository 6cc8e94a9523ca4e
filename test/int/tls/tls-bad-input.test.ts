// What the TLS ports must survive (docs/security.md#tls): garbage, a plain MQTT CONNECT, a handshake left half open
// (closed by the MQTT connect deadline, which counts from the TCP connection), and a thousand handshakes at once from
// one address while another device goes on publishing: beyond the cap of connections not logged in per address they
// are closed before any handshake, the process stays up and answers, and the other device's messages are stored.
import { randomBytes } from 'node:crypto'
import { connect as tcpConnect, type Socket } from 'node:net'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, eventually, messagesOf, publish, type Device } from '../../helpers/devices.js'
import { connectBytes, metricValue } from '../../helpers/raw-mqtt.js'
import { makeCa, makeServerCert, pemDir, tlsEnv, type Issued, type PemDir } from '../../helpers/pki.js'
import { run } from '../../helpers/tls-clients.js'

const CAP = 50
const DEADLINE_MS = 1000

let dir: PemDir
let ca: Issued
let stack: Stack
let device: Device

/** A service with TLS listeners and this connect deadline, and a device of it. */
async function start (deadlineMs: number): Promise<void> {
  stack = await startStack({
    listen: true,
    env: { ...tlsEnv(dir, await makeServerCert(ca)), MQTT_CONNECT_TIMEOUT_MS: String(deadlineMs), UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: String(CAP) }
  })
  device = await createDevice(stack)
}

beforeAll(async () => {
  dir = pemDir()
  ca = await makeCa()
})
afterAll(() => { dir.remove() })

const port = (): number => stack.ports.mqtts ?? 0
const closedBeforeLogin = async (reason: string): Promise<number> =>
  await metricValue(stack, 'fleet_device_connections_closed_before_login_total', { transport: 'mqtt', reason })

/** A TCP connection to the MQTTS port that writes `bytes` (if any) and resolves with what came back when it closes. */
async function rawTcp (bytes?: Buffer): Promise<{ socket: Socket, closed: Promise<{ received: number, ms: number }> }> {
  const started = Date.now()
  const socket = tcpConnect(port(), '127.0.0.1')
  let received = 0
  socket.on('data', (c: Buffer) => { received += c.length })
  socket.on('error', () => {})
  const closed = new Promise<{ received: number, ms: number }>((resolve) => { socket.once('close', () => { resolve({ received, ms: Date.now() - started }) }) })
  await new Promise((resolve) => socket.once('connect', resolve))
  if (bytes !== undefined) socket.write(bytes)
  return { socket, closed }
}

/** A TLS client from 127.0.0.2: an address that is not the device's, as a host of its own would be. */
function fromOtherHost (): TLSSocket {
  const tcp = tcpConnect({ host: '127.0.0.1', port: port(), localAddress: '127.0.0.2' })
  tcp.on('error', () => {})
  return tlsConnect({ socket: tcp, servername: 'localhost', ca: ca.cert })
}

/** The service still serves: a new device connects over TLS and publishes, HTTPS answers. */
async function stillServing (): Promise<void> {
  const client = await connectDevice(`mqtts://localhost:${port()}`, device.serial, device.mqttPassword ?? '', { ca: ca.cert })
  expect(await publish(client, `${device.serial}/messages/json`, '{"still": 1}')).toBe(0)
  await endAll(client)
  const health = await run('curl', ['-sS', '--cacert', dir.write('ca.pem', ca.cert), '-w', ' %{http_code}', `${stack.httpsUrl.replace('127.0.0.1', 'localhost')}/health`])
  expect(health.stdout).toBe('{"status":"ok"} 200')
}

describe('bad input on the MQTTS port', () => {
  beforeAll(async () => { await start(DEADLINE_MS) })
  afterAll(async () => { await stack.close() })

  it('closes a connection that sends garbage, and one that sends a plain MQTT CONNECT, storing nothing', async () => {
    const before = (await messagesOf(stack, device.uid)).length
    for (const bytes of [randomBytes(4096), Buffer.concat([connectBytes(4, { clientId: 'plain', username: device.serial, password: device.mqttPassword ?? '' }),
      Buffer.from([0x30, 0x0a, 0x00, 0x03, 0x61, 0x2f, 0x62, 0x7b, 0x7d, 0x7b, 0x7d, 0x7b])])]) {
      const peer = await rawTcp(bytes)
      const { ms } = await peer.closed
      expect(ms).toBeLessThan(DEADLINE_MS)
    }
    expect((await messagesOf(stack, device.uid)).length).toBe(before)
    await stillServing()
  })

  it('closes a handshake left half open at the connect deadline, counted from the TCP connection', async () => {
    const timedOut = await closedBeforeLogin('login_timeout')
    // A TLS record header announcing a ClientHello of 512 bytes, and 10 of them.
    const peer = await rawTcp(Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]), randomBytes(10)]))
    const silent = await rawTcp()
    for (const p of [peer, silent]) {
      const { received, ms } = await p.closed
      expect(received).toBe(0)
      expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50)
      expect(ms).toBeLessThan(DEADLINE_MS + 3000)
    }
    expect(await closedBeforeLogin('login_timeout')).toBe(timedOut + 2)
  })
})

describe('a flood of handshakes', () => {
  // A deadline longer than the flood lasts: the cap alone bounds what the address holds.
  beforeAll(async () => { await start(30_000) })
  afterAll(async () => { await stack.close() })

  it('holds a thousand handshakes at once from one address to its cap while another device keeps publishing', async () => {
    const client = await connectDevice(`mqtts://localhost:${port()}`, device.serial, device.mqttPassword ?? '', { ca: ca.cert })
    const capped = await closedBeforeLogin('per_address_cap')
    const before = (await messagesOf(stack, device.uid)).length
    const sockets: Socket[] = []
    const flood = Array.from({ length: 1000 }, async () => await new Promise<'secure' | 'closed'>((resolve) => {
      const s = fromOtherHost()
      sockets.push(s)
      s.once('secureConnect', () => { resolve('secure') })
      s.once('error', () => { resolve('closed') })
      s.once('close', () => { resolve('closed') })
    }))
    const codes: Array<number | 'closed'> = []
    for (let i = 0; i < 20; i++) codes.push(await publish(client, `${device.serial}/messages/json`, JSON.stringify({ during: i })))
    const outcomes = await Promise.all(flood)
    expect(codes).toEqual(Array(20).fill(0))
    expect(outcomes.filter((o) => o === 'secure').length).toBeLessThanOrEqual(CAP)
    expect(await closedBeforeLogin('per_address_cap')).toBeGreaterThanOrEqual(capped + 1000 - CAP)
    expect((await messagesOf(stack, device.uid)).length).toBe(before + 20)
    await endAll(client)
    await stillServing()
    // The held connections leave their places when they go.
    for (const s of sockets) s.destroy()
    const next = await eventually(async () => {
      const o = await new Promise<'secure' | 'closed'>((resolve) => {
        const s = fromOtherHost()
        s.once('secureConnect', () => { s.destroy(); resolve('secure') })
        s.once('close', () => { resolve('closed') })
        s.once('error', () => {})
      })
      return o === 'secure'
    }, 10_000, 'a place for the address again')
    expect(next).toBe(true)
  }, 60_000)
})
