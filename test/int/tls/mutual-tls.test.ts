// Mutual TLS end to end (docs/security.md#device-certificates): a device logs in with its certificate instead of a
// password over MQTTS (mosquitto_pub, mosquitto_sub, mqtt.js) and HTTPS (curl --cert); an x509-only application's
// systems cannot use their MQTT password; a certificate of another CA, another company's,
// expired or revoked is refused (MQTT 5 / 0x87, HTTP 401); a revocation closes the open connections; a CA registered
// through the API is asked for by the listeners; an autoRegister CA registers an unknown device in INVENTORY.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, endAll, eventually, insertTask, messagesOf, publish, tryConnect, type Device } from '../../helpers/devices.js'
import { companyUid, createUser, uniq } from '../../helpers/factories.js'
import { expiredDates, makeCa, makeDeviceCert, makeServerCert, pemDir, tlsEnv, type Issued, type PemDir } from '../../helpers/pki.js'
import { run } from '../../helpers/tls-clients.js'
import { createSystem } from '../../helpers/systems.js'
import { connect as mqttConnect } from 'mqtt'

let dir: PemDir
let serverCa: Issued
let operatorCa: Issued
let stack: Stack
let device: Device

beforeAll(async () => {
  dir = pemDir()
  serverCa = await makeCa('Server CA')
  operatorCa = await makeCa('Operator device CA')
  dir.write('server-ca.pem', serverCa.cert)
  stack = await startStack({ listen: true, env: tlsEnv(dir, await makeServerCert(serverCa), operatorCa) })
  device = await createDevice(stack)
})
afterAll(async () => {
  await stack.close()
  dir.remove()
})

const mqttsPort = (): number => stack.ports.mqtts ?? 0
const httpsUrl = (path: string): string => `https://localhost:${new URL(stack.httpsUrl).port}${path}`

/** The certificate and key of a device written as files, for the command-line clients. */
function files (name: string, cert: Issued): { cert: string, key: string } {
  return { cert: dir.write(`${name}.pem`, cert.cert), key: dir.write(`${name}-key.pem`, cert.key) }
}

/** mosquitto_pub with a client certificate and no username nor password. */
async function mosquittoPub (cert: Issued, topic: string, message: string, version = 'mqttv311'): Promise<{ code: number, stderr: string }> {
  const f = files(uniq('pub'), cert)
  return await run('mosquitto_pub', ['-h', 'localhost', '-p', String(mqttsPort()), '-V', version, '--cafile', dir.path('server-ca.pem'),
    '--cert', f.cert, '--key', f.key, '-q', '1', '-t', topic, '-m', message])
}

/** curl posting a message to the device REST API with a client certificate. */
async function curlPost (cert: Issued, body: string): Promise<string> {
  const f = files(uniq('curl'), cert)
  return (await run('curl', ['-sS', '--cacert', dir.path('server-ca.pem'), '--cert', f.cert, '--key', f.key, '-o', '/dev/null', '-w', '%{http_code}',
    '-H', 'content-type: application/json', '-d', body, httpsUrl('/device/messages')])).stdout
}

async function mqttjs (cert: Issued, version: 4 | 5 = 4): Promise<MqttClient> {
  const client = mqttConnect(`mqtts://localhost:${mqttsPort()}`, { ca: serverCa.cert, cert: cert.cert, key: cert.key, protocolVersion: version, reconnectPeriod: 0 })
  await new Promise<void>((resolve, reject) => { client.once('connect', () => { resolve() }); client.once('error', reject) })
  return client
}

/** The outcome of an MQTTS login with this certificate (a connected client is ended at once). */
async function login (cert: Issued, extra: { version?: 4 | 5, username?: string, password?: string } = {}): Promise<{ ok: boolean, code?: number | undefined }> {
  const o = await tryConnect(`mqtts://localhost:${mqttsPort()}`, { ca: serverCa.cert, cert: cert.cert, key: cert.key, ...extra })
  if (o.ok) { await endAll(o.client); return { ok: true } }
  return { ok: false, code: o.code }
}

async function post (url: string, payload: Record<string, unknown>, token = stack.adminToken): Promise<Record<string, any>> {
  const res = await stack.call(token, { method: 'POST', url, payload })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('a device certificate under the operator CA (TLS_CLIENT_CA_FILE), CN = serial number', () => {
  it('logs in with mosquitto_pub (no username, no password) and its message is stored', async () => {
    const cert = await makeDeviceCert(operatorCa, device.serial)
    const before = (await messagesOf(stack, device.uid)).length
    expect(await mosquittoPub(cert, `${device.serial}/messages/json`, '{"mtls.mosquitto": 1}')).toMatchObject({ code: 0, stderr: '' })
    await eventually(async () => (await messagesOf(stack, device.uid)).length === before + 1, 5000, 'the message stored')
  })

  it('logs in with mqtt.js (MQTT 3.1.1 and 5), the username and password it may send left unread', async () => {
    const cert = await makeDeviceCert(operatorCa, device.serial)
    const before = (await messagesOf(stack, device.uid)).length
    for (const version of [4, 5] as const) {
      const client = await mqttjs(cert, version)
      expect(await publish(client, `${device.serial}/messages/json`, `{"mtls.mqttjs": ${version}}`)).toBe(0)
      await endAll(client)
    }
    const wrongPassword = await login(cert, { username: device.serial, password: 'wrong' })
    expect(wrongPassword).toMatchObject({ ok: true })
    expect((await messagesOf(stack, device.uid)).length).toBe(before + 2)
  })

  it('posts over HTTPS with curl --cert; a certificate naming no system is 401', async () => {
    expect(await curlPost(await makeDeviceCert(operatorCa, device.serial), '[{"mtls.rest": [{"timestamp": 1795300000000, "value": 1}]}]')).toBe('200')
    expect(await curlPost(await makeDeviceCert(operatorCa, uniq('NOBODY')), '[{"mtls.rest": [{"timestamp": 1795300000000, "value": 2}]}]')).toBe('401')
  })
})

describe('refused certificates: MQTT "not authorized" (5, 0x87), HTTP 401, nothing stored', () => {
  it.each([
    ['of a CA nobody registered', async () => await makeDeviceCert(await makeCa('Stranger CA'), device.serial)],
    ['expired', async () => await makeDeviceCert(operatorCa, device.serial, expiredDates())],
    ['self-signed, not pinned', async () => await makeDeviceCert(undefined, device.serial)]
  ])('a certificate %s', async (_what, make) => {
    const cert = await make()
    const before = (await messagesOf(stack, device.uid)).length
    const v311 = await mosquittoPub(cert, `${device.serial}/messages/json`, '{"mtls.refused": 1}')
    expect(v311.code).not.toBe(0)
    expect(v311.stderr).toMatch(/not authori[sz]ed/i)
    expect(await login(cert, { version: 5 })).toMatchObject({ ok: false, code: 0x87 })
    expect(await curlPost(cert, '[{"mtls.refused": [{"timestamp": 1795300000000, "value": 1}]}]')).toBe('401')
    expect((await messagesOf(stack, device.uid)).length).toBe(before)
  })

  it("a certificate under company B's CA does not log in company A's system", async () => {
    const name = uniq('B')
    const admin = await createUser(stack, { company: name, administrator: true, rights: ['accountNetwork.company.viewDetails'] })
    const bCa = await makeCa('Company B CA')
    await post(`/api/v1/companies/${await companyUid(stack, name)}/cas`, { certificate: bCa.cert }, await stack.login(admin.email, admin.password))
    const cert = await makeDeviceCert(bCa, device.serial)
    expect(await login(cert, { version: 5 })).toMatchObject({ ok: false, code: 0x87 })
  })
})

describe('company CAs and revocation', () => {
  it('a CA registered through the API is trusted at once; revoking it closes its devices and refuses the next', async () => {
    const other = await createDevice(stack)
    const ca = await makeCa(uniq('Company CA'))
    const cert = await makeDeviceCert(ca, other.serial)
    // Before registration the listener does not know the CA: refused.
    expect(await login(cert, { version: 5 })).toMatchObject({ ok: false, code: 0x87 })
    const registered = await post(`/api/v1/companies/${stack.companyUid}/cas`, { certificate: ca.cert })
    await eventually(async () => (await login(cert)).ok, 5000, 'the CA trusted')
    const client = await mqttjs(cert)
    const closed = new Promise<void>((resolve) => { client.stream.once('close', () => { resolve() }) })
    await post(`/api/v1/companies/${stack.companyUid}/cas/${String(registered.fingerprint)}/revoke`, {})
    await closed
    expect(await login(cert, { version: 5 })).toMatchObject({ ok: false, code: 0x87 })
    await endAll(client)
  })

  it("a pinned self-signed certificate logs in; revoking it closes the device's connection and refuses the next", async () => {
    const pinned = await createDevice(stack)
    const cert = await makeDeviceCert(undefined, pinned.serial)
    await post(`/api/v1/systems/${pinned.uid}/certificates`, { certificate: cert.cert })
    const client = await mqttjs(cert)
    expect(await publish(client, `${pinned.serial}/messages/json`, '{"mtls.pinned": 1}')).toBe(0)
    const closed = new Promise<void>((resolve) => { client.stream.once('close', () => { resolve() }) })
    await post(`/api/v1/systems/${pinned.uid}/certificates/${cert.fingerprint}/revoke`, {})
    await closed
    expect(await login(cert, { version: 5 })).toMatchObject({ ok: false, code: 0x87 })
    await endAll(client)
  })

  it('an autoRegister CA registers an unknown device in INVENTORY at its first login', async () => {
    const ca = await makeCa(uniq('Factory CA'))
    await post(`/api/v1/companies/${stack.companyUid}/cas`, { certificate: ca.cert, autoRegister: true })
    const serial = uniq('NEW')
    const cert = await makeDeviceCert(ca, serial)
    await eventually(async () => (await mosquittoPub(cert, `${serial}/messages/json`, '{"mtls.new": 1}')).code === 0, 5000, 'the new device logged in')
    const found = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems?gateway=serialNumber:${serial}&fields=uid,lifeCycleState` })
    expect(found.json()).toMatchObject({ items: [{ lifeCycleState: 'INVENTORY' }] })
  })
})

describe('with mosquitto_sub and x509-only applications', () => {
  it('a device subscribed with mosquitto_sub --cert receives its waiting task', async () => {
    const d = await createDevice(stack)
    const task = await insertTask(stack, d.uid, { command: { id: 'reboot' } }, { protocol: 'MQTT' })
    const f = files(uniq('sub'), await makeDeviceCert(operatorCa, d.serial))
    const sub = await run('mosquitto_sub', ['-h', 'localhost', '-p', String(mqttsPort()), '--cafile', dir.path('server-ca.pem'), '--cert', f.cert, '--key', f.key,
      '-q', '1', '-t', `${d.serial}/tasks/json`, '-C', '1', '-W', '15'])
    expect(sub).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(sub.stdout)).toEqual([expect.objectContaining({ uid: task })])
  })

  it("an application with mqtt-security x509 refuses its systems' MQTT passwords (5), and takes their certificates", async () => {
    const app = await post('/api/v1/applications', {
      name: 'x509 firmware',
      revision: '1',
      type: uniq('x509.fw'),
      category: 'FIRMWARE',
      communication: [{ type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'x509' } }]
    })
    const serial = uniq('X509').toUpperCase()
    await createSystem(stack, { gateway: { serialNumber: serial }, applications: [{ uid: app.uid }], communication: { mqtt: { password: 'mqtt-secret-1' } } })
    const r = await run('mosquitto_pub', ['-h', 'localhost', '-p', String(mqttsPort()), '--cafile', dir.path('server-ca.pem'), '-u', serial, '-P', 'mqtt-secret-1',
      '-q', '1', '-t', `${serial}/messages/json`, '-m', '{"x509.password": 1}'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/not authori[sz]ed/i)
    expect(await mosquittoPub(await makeDeviceCert(operatorCa, serial), `${serial}/messages/json`, '{"x509.certificate": 1}')).toMatchObject({ code: 0 })
  })
})
