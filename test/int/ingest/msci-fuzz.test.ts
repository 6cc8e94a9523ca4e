// Gateways that answer garbage ("a gateway that answers garbage is counted and never crashes the poller").
// SNMP: a UDP relay in front of a simulated agent mutates its real answers (bit flips, cuts, insertions, random
// bytes); AceManager: an HTTP endpoint answers generated statuses and bodies. The access functions only ever answer
// values of the ids asked for or an MsciError. Then, in the service, gateways answering garbage next to a sound one:
// the sound one is polled, the others are counted (msci.garbage) and marked WARNING, and nothing crashes.
import dgram from 'node:dgram'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAirlinkGateway } from '../../../simulator/airlink/gateway.js'
import { startSnmpAgent, type SimulatedSnmpAgent } from '../../../simulator/airlink/snmp-agent.js'
import { snmpAccess } from '../../../ingest/msci/snmp-access.js'
import { acemanagerAccess } from '../../../ingest/msci/acemanager-access.js'
import { MsciError } from '../../../ingest/msci/access.js'
import type { AccessParams } from '../../../ingest/msci/params.js'
import { POLLED_IDS } from '../../../protocols/msci/ids.js'
import { formatValues } from '../../../protocols/msci/acemanager.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createSystem, type Json } from '../../helpers/systems.js'
import { uniq } from '../../helpers/factories.js'
import { until } from '../../helpers/operations.js'
import { refusedCount } from '../../helpers/devices.js'

const base: AccessParams = { access: 'snmp', host: '127.0.0.1', port: 0, snmpVersion: '2c', snmpSecurity: 'authNoPriv', user: '', password: 'fuzz', periodMs: 1000 }

type Mutation = { kind: 'flip' | 'cut' | 'insert', at: number, byte: number } | { kind: 'random', bytes: Uint8Array }
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('flip' as const, 'cut' as const, 'insert' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 200 }) })
)

function mutate (real: Buffer, m: Mutation): Buffer {
  if (m.kind === 'random') return Buffer.from(m.bytes)
  const at = m.at % Math.max(1, real.length)
  if (m.kind === 'cut') return real.subarray(0, at)
  if (m.kind === 'insert') return Buffer.concat([real.subarray(0, at), Buffer.from([m.byte]), real.subarray(at)])
  const out = Buffer.from(real)
  out[at] = (out[at] ?? 0) ^ (m.byte === 0 ? 1 : m.byte)
  return out
}

/** A UDP relay to `target` that answers the client with `current` applied to the real answer. */
async function startRelay (target: number): Promise<{ port: number, set: (m: Mutation) => void, close: () => Promise<void> }> {
  let current: Mutation = { kind: 'flip', at: 0, byte: 0 }
  const front = dgram.createSocket('udp4')
  const back = dgram.createSocket('udp4')
  let client: { port: number, address: string } | undefined
  front.on('message', (msg, rinfo) => { client = { port: rinfo.port, address: rinfo.address }; back.send(msg, target, '127.0.0.1') })
  back.on('message', (msg) => { if (client !== undefined) front.send(mutate(msg, current), client.port, client.address) })
  await new Promise<void>((resolve) => front.bind(0, '127.0.0.1', () => { resolve() }))
  await new Promise<void>((resolve) => back.bind(0, '127.0.0.1', () => { resolve() }))
  return {
    port: front.address().port,
    set: (m) => { current = m },
    close: async () => { await Promise.all([new Promise<void>((resolve) => front.close(() => { resolve() })), new Promise<void>((resolve) => back.close(() => { resolve() }))]) }
  }
}

/** Only the ids asked for, or an MsciError: anything else (another error, a crash) fails the property. */
async function readsSafely (read: () => Promise<Map<number, number | string>>, asked: readonly number[]): Promise<void> {
  try {
    const values = await read()
    for (const id of values.keys()) expect(asked).toContain(id)
  } catch (err) {
    expect(err).toBeInstanceOf(MsciError)
  }
}

describe('garbage on the wire', () => {
  let agent: SimulatedSnmpAgent
  beforeAll(async () => { agent = await startSnmpAgent(createAirlinkGateway({ serial: 'FUZZ1' }), { community: 'fuzz' }) })
  afterAll(async () => { await agent.close() })

  it('mutated SNMP answers: values of the ids asked for or an MsciError', { timeout: 120_000 }, async () => {
    const relay = await startRelay(agent.port)
    try {
      await fc.assert(fc.asyncProperty(mutation, async (m) => {
        relay.set(m)
        const access = snmpAccess({ ...base, port: relay.port }, 150)
        try { await readsSafely(async () => await access.read(POLLED_IDS.snmp), POLLED_IDS.snmp) } finally { access.close() }
      }), { numRuns: 150 })
    } finally { await relay.close() }
  })

  it('generated AceManager answers: values of the ids asked for or an MsciError', { timeout: 120_000 }, async () => {
    const asked = [261, 259, 771]
    let answer: { login: { status: number, body: string }, read: { status: number, body: string | Uint8Array } } | undefined
    const server: Server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        const a = answer
        if (a === undefined) { res.destroy(); return }
        const part = req.url?.includes('Connect') === true ? a.login : a.read
        res.writeHead(part.status, { 'set-cookie': 'token=1' })
        res.end(part.body)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => { resolve() }))
    const port = (server.address() as AddressInfo).port
    const body = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 0xFFFE }), fc.string({ maxLength: 12 }))).map((pairs) => formatValues(pairs)),
      fc.constant('261=-71!259=Network Ready!771=8933!999=extra!')
    )
    const status = fc.constantFrom(200, 200, 200, 204, 302, 401, 403, 500)
    try {
      await fc.assert(fc.asyncProperty(
        fc.record({ login: fc.record({ status, body: fc.oneof(fc.constant('<connect message=\'OK\'/>'), fc.string({ maxLength: 50 })) }), read: fc.record({ status, body }) }),
        async (a) => {
          answer = a
          const access = acemanagerAccess({ ...base, access: 'acemanager', port, user: 'u' }, 1000)
          try { await readsSafely(async () => await access.read(asked), asked) } finally { access.close() }
        }), { numRuns: 300 })
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => { resolve() }))
    }
  })
})

describe('the poller among gateways answering garbage', { timeout: 90_000 }, () => {
  let stack: Stack
  let junkUdp: dgram.Socket
  let junkHttp: Server
  let sound: SimulatedSnmpAgent
  beforeAll(async () => {
    stack = await startStack({ env: { MSCI_TIMEOUT_MS: '300', MSCI_ALLOWED_NETWORKS: '127.0.0.0/8' } })
    junkUdp = dgram.createSocket('udp4')
    junkUdp.on('message', (_m, r) => { junkUdp.send(Buffer.from([0x30, 0x82, 0xff, 0xff, 0x02, 0x01]), r.port, r.address) })
    await new Promise<void>((resolve) => junkUdp.bind(0, '127.0.0.1', () => { resolve() }))
    junkHttp = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'set-cookie': 'token=1' }); res.end(req.url?.includes('Connect') === true ? '<connect message=\'OK\'/>' : '<html>no</html>') }) })
    await new Promise<void>((resolve) => junkHttp.listen(0, '127.0.0.1', () => { resolve() }))
    sound = await startSnmpAgent(createAirlinkGateway({ serial: 'SOUND1' }), { community: 'sound' })
  })
  afterAll(async () => {
    await stack?.close()
    junkUdp?.close()
    junkHttp?.closeAllConnections()
    junkHttp?.close()
    await sound?.close()
  })

  async function gateway (access: string, host: string, password: string): Promise<string> {
    const app = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/applications', payload: { name: uniq('ALEOS'), revision: '1', type: uniq('aleos') } })
    const appUid = (app.json() as Json).uid as string
    await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/applications/${appUid}/communication`, payload: [{ type: 'MSCI', commIdType: 'SERIAL', parameters: { access, pollPeriodS: 1 } }] })
    const serial = uniq('GW').toUpperCase()
    const s = await createSystem(stack, { name: serial, gateway: { serialNumber: serial }, communication: { msci: { host, user: 'user', password } }, applications: [{ uid: appUid }] })
    return s.uid as string
  }
  const commStatus = async (uid: string): Promise<string> => ((await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uid}` })).json() as Json).commStatus as string

  it('counts the garbage, marks those gateways WARNING, and polls the sound one', async () => {
    const udp = await gateway('snmp', `127.0.0.1:${junkUdp.address().port}`, 'junk')
    const http = await gateway('acemanager', `127.0.0.1:${(junkHttp.address() as AddressInfo).port}`, 'junk')
    const ok = await gateway('snmp', `127.0.0.1:${sound.port}`, 'sound')
    const unusable = await gateway('telnet-at', '127.0.0.1:2332', 'x') // an access path the service has not
    await until('the sound gateway polled', async () => await commStatus(ok) === 'OK', 30_000)
    await until('the garbage counted', async () => refusedCount(stack, 'MSCI:msci.garbage') >= 2, 30_000)
    for (const uid of [udp, http, unusable]) await until(`${uid} WARNING`, async () => ['WARNING', 'ERROR'].includes(await commStatus(uid)), 30_000)
    // Still polling the sound gateway afterwards.
    const { rows } = await stack.db.query<{ n: number }>("SELECT count(*)::int AS n FROM device_messages WHERE system_uid = $1 AND protocol = 'MSCI'", [ok])
    await until('more polls', async () => ((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM device_messages WHERE system_uid = $1', [ok])).rows[0]?.n ?? 0) > (rows[0]?.n ?? 0), 30_000)
    expect(await commStatus(ok)).toBe('OK')
  })
})
