// Device certificates with the external broker (docs/cluster.md#device-certificates-with-the-external-broker): a
// Mosquitto of the test's own with the device TLS listener of deploy/mosquitto/mosquitto.conf, run by
// deploy/mosquitto/start.sh, which restarts it when the trust bundle the service writes (BROKER_CA_FILE) changes. Real
// devices log in by certificate alone (mosquitto_pub --cert, mqtt.js), their data stored by the service through the
// broker; an x509-only system's password is refused by the broker; a revoked pinned certificate is kicked, then
// refused once the broker has the new bundle.
import { execFile } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { promisify } from 'node:util'
import type { MqttClient } from 'mqtt'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Stack } from '../../helpers/stack.js'
import { createUser, uniq } from '../../helpers/factories.js'
import { createDevice, messagesOf } from '../../helpers/devices.js'
import { createSystem } from '../../helpers/systems.js'
import { eventually } from '../../helpers/eventually.js'
import { DYNSEC_ADMIN, tryConnect, type Mosquitto } from '../../helpers/mosquitto.js'
import { makeCa, makeDeviceCert, type Issued } from '../../helpers/pki.js'
import { brokerTrusts as trusted, certConnect as connectByCertificate, grantedQos, startTlsBroker, type TlsBroker } from './tls-broker.js'
import { createDynsecClient } from '../../../ingest/broker-sync/dynsec-client.js'
import { createDynsecSync } from '../../../ingest/broker-sync/dynsec-sync.js'
import { createBrokerLoginsRepository } from '../../../storage/repositories/broker-logins.repository.js'
import { brokerCommand } from '../../../bin/broker.js'

let t: TlsBroker
let broker: Mosquitto
let stack: Stack

beforeAll(async () => {
  t = await startTlsBroker({ env: { BROKER_COMPANY_CAS: 'true', FLEET_NODE_ID: 'broker-certificates' } })
  broker = t.broker
  stack = t.stack
}, 120_000)
afterAll(async () => { await t?.close() })

const post = async (url: string, payload: Record<string, unknown>, token = stack.adminToken): Promise<any> => {
  const res = await stack.call(token, { method: 'POST', url, payload })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

const brokerTrusts = async (pem: string, before: number): Promise<void> => { await trusted(t, pem, before) }
const certConnect = async (device: Issued): Promise<MqttClient | string> => await connectByCertificate(t, device)

/** Publishes once with mosquitto_pub, by certificate only. */
async function mosquittoPub (device: Issued, topic: string, message: string): Promise<void> {
  const name = uniq('dev')
  await promisify(execFile)('mosquitto_pub', ['-h', '127.0.0.1', '-p', String(broker.tlsPort), '--cafile', t.dir.write(`${name}-ca.pem`, t.brokerCa.cert),
    '--cert', t.dir.write(`${name}.pem`, device.cert), '--key', t.dir.write(`${name}-key.pem`, device.key), '-q', '1', '-t', topic, '-m', message], { timeout: 10_000 })
}

let registered: Promise<Issued> | undefined
/** The test company's CA, registered through the API once and trusted by the broker. */
async function companyCa (): Promise<Issued> {
  registered ??= (async () => {
    const ca = await makeCa(uniq('Company CA'))
    const before = broker.restarts()
    await post(`/api/v1/companies/${stack.companyUid}/cas`, { certificate: ca.cert })
    await brokerTrusts(ca.cert, before)
    return ca
  })()
  return await registered
}

const clientOf = async (username: string): Promise<{ textname?: string } | undefined> => (await broker.dynsec([{ command: 'getClient', username }]))[0]?.data?.client

describe('device certificates with the external broker', () => {
  it('stores what a device sends by certificate alone under its company\'s CA, its system holding no password', async () => {
    const ca = await companyCa()
    const d = await createDevice(stack, { mqttPassword: null })
    await eventually(async () => (await clientOf(d.serial))?.textname === `fleet-system ${d.uid} certificate`, { timeoutMs: 15_000, retryErrors: true, what: 'a client without a password for the system' })
    const cert = await makeDeviceCert(ca, d.serial)
    const stored = await eventually(async () => {
      await mosquittoPub(cert, `${d.serial}/messages/json`, JSON.stringify({ 1700000000000: { 'machine.temperature': 19.5 } }))
      return (await messagesOf(stack, d.uid))[0]
    }, { timeoutMs: 20_000, intervalMs: 300, retryErrors: true, what: 'the message stored' })
    expect(stored.protocol).toBe('MQTT')
    // Its login has no password: none logs it in on the plain listener.
    expect(await tryConnect(broker.url, d.serial, '')).toMatch(/not authorized|bad user name or password/i)
  })

  it('refuses at the broker the MQTT password of a system whose application asks for x509; its certificate logs it in', async () => {
    await companyCa()
    const communication = [{ type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'x509' } }]
    const app = await post('/api/v1/applications', { name: 'x509 firmware', revision: '1', type: uniq('x509.fw'), category: 'FIRMWARE', communication })
    const serial = uniq('X509').toUpperCase()
    const s = await createSystem(stack, { gateway: { serialNumber: serial }, applications: [{ uid: app.uid }], communication: { mqtt: { password: 'x509-mqtt-pw' } } })
    const plain = await createDevice(stack)
    await eventually(async () => (await clientOf(serial))?.textname === `fleet-system ${String(s.uid)} certificate` && await clientOf(plain.serial) !== undefined,
      { timeoutMs: 15_000, retryErrors: true, what: 'the x509 system\'s client without a password' })
    expect(await tryConnect(broker.url, serial, 'x509-mqtt-pw')).toMatch(/not authorized|bad user name or password/i)
    const ok = await tryConnect(broker.url, plain.serial, plain.mqttPassword ?? '')
    expect(typeof ok).not.toBe('string')
    if (typeof ok !== 'string') await ok.endAsync(true)
    // A certificate of the company's CA logs it in, with its system's rights.
    const c = await eventually(async () => { const r = await certConnect(await makeDeviceCert(await companyCa(), serial)); return typeof r === 'string' ? undefined : r }, { timeoutMs: 15_000, retryErrors: true, what: 'the certificate logged in' })
    expect(await grantedQos(c, `${serial}/tasks/json`)).toBe(1)
  })

  it('kicks a revoked pinned certificate\'s connection and, once the broker has the new bundle, refuses it; the system\'s other one still logs in', async () => {
    // A company of its own without any CA: only the pinned certificates log its system in.
    const owner = await createUser(stack, { company: uniq('Pinned'), administrator: true, rights: ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit'] })
    const d = await createDevice(stack, { mqttPassword: null, token: owner.token })
    expect(await clientOf(d.serial)).toBeUndefined()
    const [revoked, kept] = [await makeDeviceCert(undefined, d.serial), await makeDeviceCert(undefined, d.serial)]
    const before = broker.restarts()
    for (const c of [revoked, kept]) await post(`/api/v1/systems/${d.uid}/certificates`, { certificate: c.cert }, owner.token)
    await brokerTrusts(kept.cert, before)
    // Refused (a failure code, thrown by mqtt.js) until the broker has the system's role; a login the broker's restart
    // for the second certificate closed starts over.
    const connected = await eventually(async () => {
      const c = await certConnect(revoked)
      if (typeof c === 'string') return undefined
      if (await grantedQos(c, `${d.serial}/tasks/json`) === 1) return c
      await c.endAsync(true)
      return undefined
    }, { timeoutMs: 15_000, retryErrors: true, what: 'the pinned certificate logged in with its system\'s rights' })
    let closed = false
    connected.once('close', () => { closed = true })

    const restarts = broker.restarts()
    await post(`/api/v1/systems/${d.uid}/certificates/${revoked.fingerprint}/revoke`, {}, owner.token)
    await eventually(() => closed, { timeoutMs: 15_000, what: 'the revoked certificate\'s connection closed' })
    await eventually(() => !readFileSync(t.bundleFile, 'utf8').includes(revoked.cert.trim()) && broker.restarts() > restarts, { timeoutMs: 15_000, retryErrors: true, what: 'the bundle without it, the broker restarted' })
    await eventually(async () => {
      const refused = await certConnect(revoked)
      const other = await certConnect(kept)
      return typeof refused === 'string' && typeof other !== 'string'
    }, { timeoutMs: 15_000, intervalMs: 200, what: 'the revoked certificate refused, the other one logged in' })
    // The last one revoked, nothing logs the system in: its client is gone.
    await post(`/api/v1/systems/${d.uid}/certificates/${kept.fingerprint}/revoke`, {}, owner.token)
    await eventually(async () => await clientOf(d.serial) === undefined, { timeoutMs: 15_000, retryErrors: true, what: 'the system\'s client deleted' })
  })

  it('disconnects a system\'s devices and lets them back in with what still logs them in', async () => {
    const d = await createDevice(stack)
    await eventually(async () => await clientOf(d.serial) !== undefined, { timeoutMs: 15_000, retryErrors: true, what: 'the system\'s client' })
    const sync = createDynsecSync({ dynsec: createDynsecClient(broker.adminUrl), logins: createBrokerLoginsRepository(stack.db), reserved: new Set([DYNSEC_ADMIN]), log: pino({ level: 'silent' }) })
    onTestFinished(async () => { await sync.close() })
    const c = await eventually(async () => { const r = await tryConnect(broker.url, d.serial, d.mqttPassword ?? ''); return typeof r === 'string' ? undefined : r }, { timeoutMs: 10_000, what: 'the device connected' })
    onTestFinished(async () => { await c.endAsync(true) })
    let closed = false
    c.once('close', () => { closed = true })
    await sync.disconnect([d.uid])
    await eventually(() => closed, { timeoutMs: 5000, what: 'the device disconnected' })
    const again = await tryConnect(broker.url, d.serial, d.mqttPassword ?? '')
    expect(typeof again).not.toBe('string')
    if (typeof again !== 'string') await again.endAsync(true)
  })

  it('fleet broker sync writes the bundle too, and says whether it changed', async () => {
    const log = pino({ level: 'silent' })
    // The broker may still be restarting for the bundle the revocations above wrote (a closed connection then fails
    // the command at once): the first sync is the one that finds it back.
    const first = await eventually(async () => await brokerCommand(stack.config, stack.db, log, ['sync']), { timeoutMs: 15_000, retryErrors: true, what: 'a sync once the broker is back' })
    expect(first).toMatch(new RegExp(`; trust bundle ${t.bundleFile} unchanged$`))
    const text = readFileSync(t.bundleFile, 'utf8')
    rmSync(t.bundleFile)
    expect(await brokerCommand(stack.config, stack.db, log, ['sync'])).toMatch(/^broker sync: clients .*; trust bundle .* written$/)
    expect(readFileSync(t.bundleFile, 'utf8')).toBe(text)
  })
})

describe('the dynamic security client when the broker closes its connection (a restart for a new bundle)', () => {
  it('fails the command waiting for its answer at once, not at its timeout', async () => {
    // An account that disables itself: Mosquitto kicks it before the answer is sent, as a restart would.
    const password = uniq('pw')
    // The broker may be restarting for the bundle of a test above.
    await eventually(async () => await broker.dynsec([{ command: 'createClient', username: 'self-kicker', password, roles: [{ rolename: 'admin' }] }]),
      { timeoutMs: 15_000, retryErrors: true, what: 'the account made' })
    const client = createDynsecClient(`mqtt://self-kicker:${password}@127.0.0.1:${broker.port}`, { timeoutMs: 60_000 })
    onTestFinished(async () => { await client.close() })
    const started = Date.now()
    await expect(client.run([{ command: 'disableClient', username: 'self-kicker' }])).rejects.toThrow(/closed before dynamic security answered/)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})
