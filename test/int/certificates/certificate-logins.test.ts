// docs/security.md#device-certificates: the devices service's authenticateCertificate on PresentedCertificate values
// made of real certificates, against the store: pinned certificates, CN / SAN / IMEI under a company's CA, the operator's
// CA, revocations, dates on the service's clock, device IP filters, autoRegister (one system, even for two logins at
// once) and mqtt-security x509 refusing MQTT passwords. Every result counted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createDevice, type Device } from '../../helpers/devices.js'
import { createSystem } from '../../helpers/systems.js'
import type { PresentedCertificate } from '../../../core/domain/device-certificate.js'
import { createDevicesService } from '../../../core/services/ingest/devices.service.js'
import { createCertificateLogin } from '../../../core/services/certificates/certificate-login.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { makeCert, presented, type TestCert } from './local-pki.js'

const DAY = 86_400_000
let stack: Stack
let shift = 0
let b: { uid: string, admin: TestUser }

beforeAll(async () => {
  stack = await startStack({ clock: { now: () => Date.now() + shift } })
  const name = uniq('B')
  const admin = await createUser(stack, { company: name, administrator: true, rights: ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit', 'accountNetwork.company.viewDetails'] })
  b = { uid: await companyUid(stack, name), admin }
})
afterAll(async () => { await stack.close() })
// A test that failed with the clock moved leaves it as it found it for the next.
afterEach(() => { shift = 0 })

const login = async (p: PresentedCertificate, ip = '127.0.0.1') => await stack.ctx.services.devices.authenticateCertificate(p, 'mqtt', ip)

async function post (url: string, payload: Record<string, unknown>, token = stack.adminToken): Promise<Record<string, any>> {
  const res = await stack.call(token, { method: 'POST', url, payload })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

const pin = async (d: Device, c: TestCert, token?: string) => await post(`/api/v1/systems/${d.uid}/certificates`, { certificate: c.pem }, token)

async function companyCa (company: string, token: string, autoRegister = false): Promise<TestCert> {
  const ca = await makeCert({ ca: true, commonName: uniq('CA') })
  await post(`/api/v1/companies/${company}/cas`, { certificate: ca.pem, autoRegister }, token)
  return ca
}

/** The value of fleet_device_certificate_logins_total for `result`. */
async function counted (result: string): Promise<number> {
  const line = (await stack.ctx.metrics.scrape()).body.split('\n').find((l) => l.startsWith(`fleet_device_certificate_logins_total{result="${result}"}`))
  return line === undefined ? 0 : Number(line.split(' ').at(-1))
}

async function expectCounted (result: string, run: () => Promise<unknown>): Promise<void> {
  const before = await counted(result)
  await run()
  expect(await counted(result), result).toBe(before + 1)
}

const session = (d: Device, username: string, company = stack.companyUid) => ({ ok: true, session: { systemUid: d.uid, companyUid: company, username } })

describe('a certificate registered on a system (pinned)', () => {
  it('logs the system in without a verified chain, within its dates on the service\'s clock; revoked, it is refused', async () => {
    const d = await createDevice(stack)
    const own = await makeCert({ commonName: 'whatever-the-device-says', days: 10 })
    await pin(d, own)
    const p = presented(own, undefined, 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY')
    await expectCounted('accepted', async () => { expect(await login(p)).toEqual(session(d, d.serial)) })
    shift = 12 * DAY
    await expectCounted('expired', async () => { expect(await login(p)).toEqual({ ok: false, reason: 'device.certificate.expired' }) })
    shift = -2 * DAY
    expect(await login(p)).toEqual({ ok: false, reason: 'device.certificate.expired' })
    shift = 0
    await post(`/api/v1/systems/${d.uid}/certificates/${own.fingerprint}/revoke`, {})
    await expectCounted('revoked', async () => { expect(await login(p)).toEqual({ ok: false, reason: 'device.certificate.revoked' }) })
    // Revoked is revoked, whatever else the certificate says.
    expect(await login({ ...p, commonName: d.serial })).toEqual({ ok: false, reason: 'device.certificate.revoked' })
  })

  it('follows the company\'s device IP filters', async () => {
    const d = await createDevice(stack, { token: b.admin.token, company: b.uid })
    const own = await makeCert()
    await pin(d, own, b.admin.token)
    const res = await stack.call(b.admin.token, { method: 'PUT', url: `/api/v1/company/${b.uid}`, payload: { deviceIpFiltering: true, deviceIpFilters: { ipAddresses: ['10.1.1.1'] } } })
    expect(res.statusCode, res.body).toBe(200)
    await expectCounted('ip_forbidden', async () => { expect(await login(presented(own, undefined))).toEqual({ ok: false, reason: 'device.ip.forbidden' }) })
    expect(await login(presented(own, undefined), '10.1.1.1')).toEqual(session(d, d.serial, b.uid))
    await stack.call(b.admin.token, { method: 'PUT', url: `/api/v1/company/${b.uid}`, payload: { deviceIpFiltering: false } })
  })
})

describe('a certificate under a CA', () => {
  it('logs in the system its CN, a SAN or its IMEI names, under an ACTIVE CA of that system\'s company only', async () => {
    const d = await createDevice(stack)
    const caA = await companyCa(stack.companyUid, stack.adminToken)
    const caB = await companyCa(b.uid, b.admin.token)
    const bySerial = await makeCert({ issuer: caA, commonName: d.serial })
    const bySan = await makeCert({ issuer: caA, commonName: 'not-a-serial', dns: ['other.example', d.imei] })
    const byImei = await makeCert({ issuer: caA, commonName: d.imei })
    await expectCounted('accepted', async () => { expect(await login(presented(bySerial, [caA]))).toEqual(session(d, d.serial)) })
    expect(await login(presented(bySan, [caA]))).toEqual(session(d, d.imei))
    expect(await login(presented(byImei, [caA]))).toEqual(session(d, d.imei))
    // Company B's CA vouches for none of company A's systems.
    const fromB = await makeCert({ issuer: caB, commonName: d.serial })
    await expectCounted('other_company', async () => { expect(await login(presented(fromB, [caB]))).toEqual({ ok: false, reason: 'device.certificate.untrusted' }) })
    // A chain the TLS layer did not verify proves nothing, nor a CA no company registered.
    await expectCounted('untrusted', async () => { expect(await login(presented(bySerial, undefined, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'))).toEqual({ ok: false, reason: 'device.certificate.untrusted' }) })
    expect(await login(presented(bySerial, undefined, 'CERT_HAS_EXPIRED'))).toEqual({ ok: false, reason: 'device.certificate.expired' })
    const stranger = await makeCert({ ca: true })
    expect(await login(presented(await makeCert({ issuer: stranger, commonName: d.serial }), [stranger]))).toEqual({ ok: false, reason: 'device.certificate.untrusted' })
    await expectCounted('unknown', async () => { expect(await login(presented(await makeCert({ issuer: caA, commonName: uniq('nobody') }), [caA]))).toEqual({ ok: false, reason: 'device.unknown' }) })
    expect(await login({ ...presented(bySerial, [caA]), fingerprint: 'not-a-fingerprint' })).toEqual({ ok: false, reason: 'device.unknown' })
    await post(`/api/v1/companies/${stack.companyUid}/cas/${caA.fingerprint}/revoke`, {})
    await expectCounted('revoked', async () => { expect(await login(presented(bySerial, [caA]))).toEqual({ ok: false, reason: 'device.certificate.revoked' }) })
  })

  it('under the operator\'s CA (TLS_CLIENT_CA_FILE), logs in any company\'s system it names', async () => {
    const d = await createDevice(stack, { token: b.admin.token, company: b.uid })
    const operator = await makeCert({ ca: true, commonName: 'Operator CA' })
    const leaf = await makeCert({ issuer: operator, commonName: d.serial })
    expect(await login(presented(leaf, [operator]))).toEqual({ ok: false, reason: 'device.certificate.untrusted' })
    const repos = createRepositories(stack.db)
    const devices = createDevicesService({
      repos,
      clock: { now: () => Date.now() },
      certificates: createCertificateLogin({ repos, inTransaction: async (fn) => await stack.db.transaction(async (tx) => await fn(createRepositories(tx))), clock: { now: () => Date.now() }, operatorCAs: () => new Set([operator.fingerprint]) })
    })
    expect(await devices.authenticateCertificate(presented(leaf, [operator]), 'mqtt', '127.0.0.1')).toEqual(session(d, d.serial, b.uid))
  })
})

describe('a CA with autoRegister', () => {
  it('makes one system in INVENTORY for a CN no system has, even for two logins at once, counted on the CA', async () => {
    const ca = await companyCa(stack.companyUid, stack.adminToken, true)
    const cn = uniq('NEW').toUpperCase()
    const cert = await makeCert({ issuer: ca, commonName: cn })
    const before = { registered: await counted('auto_registered'), accepted: await counted('accepted') }
    const [one, two] = await Promise.all([login(presented(cert, [ca])), login(presented(cert, [ca]))])
    expect(one.ok && two.ok).toBe(true)
    if (!one.ok || !two.ok) return
    expect(two.session).toEqual(one.session)
    expect(one.session).toMatchObject({ companyUid: stack.companyUid, username: cn })
    const { rows } = await stack.db.query<{ uid: string }>('SELECT s.uid FROM systems s JOIN gateways g ON g.uid = s.gateway_uid WHERE g.serial_number = $1', [cn])
    expect(rows.map((r) => r.uid)).toEqual([one.session.systemUid])
    const system = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${one.session.systemUid}` })).json()
    expect(system).toMatchObject({ name: cn, lifeCycleState: 'INVENTORY', gateway: { serialNumber: cn } })
    const cas = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/companies/${stack.companyUid}/cas?size=500` })).json()
    expect(cas.items.find((c: { fingerprint: string }) => c.fingerprint === ca.fingerprint)).toMatchObject({ autoRegisteredSystems: 1 })
    expect(await counted('auto_registered')).toBe(before.registered + 1)
    expect(await counted('accepted')).toBe(before.accepted + 1)
    // Once made, it is the system the CN names.
    expect(await login(presented(cert, [ca]))).toEqual({ ok: true, session: one.session })
  })

  it('never takes another company\'s system, nor makes one under a CA without autoRegister or once revoked', async () => {
    const ca = await companyCa(stack.companyUid, stack.adminToken, true)
    const theirs = await createDevice(stack, { token: b.admin.token, company: b.uid })
    const count = async (): Promise<number> => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM systems')).rows[0]?.n ?? 0
    const systems = await count()
    expect(await login(presented(await makeCert({ issuer: ca, commonName: theirs.serial }), [ca]))).toEqual({ ok: false, reason: 'device.certificate.untrusted' })
    const plain = await companyCa(stack.companyUid, stack.adminToken, false)
    expect(await login(presented(await makeCert({ issuer: plain, commonName: uniq('NEW') }), [plain]))).toEqual({ ok: false, reason: 'device.unknown' })
    await post(`/api/v1/companies/${stack.companyUid}/cas/${ca.fingerprint}/revoke`, {})
    expect(await login(presented(await makeCert({ issuer: ca, commonName: uniq('NEW') }), [ca]))).toEqual({ ok: false, reason: 'device.certificate.revoked' })
    expect(await count()).toBe(systems)
  })
})

describe('mqtt-security x509', () => {
  it('refuses MQTT password logins of the application\'s systems, counted; their certificates and REST passwords still log in', async () => {
    const app = await post('/api/v1/applications', {
      name: 'x509 firmware',
      revision: '1',
      type: uniq('x509.fw'),
      category: 'FIRMWARE',
      communication: [{ type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'x509' } }, { type: 'REST', commIdType: 'SERIAL' }]
    })
    const serial = uniq('X509').toUpperCase()
    const s = await createSystem(stack, { gateway: { serialNumber: serial }, applications: [{ uid: app.uid }], communication: { mqtt: { password: 'mqtt-secret-1' }, rest: { password: 'rest-secret-1' } } })
    const devices = stack.ctx.services.devices
    await expectCounted('x509_required', async () => { expect(await devices.authenticate(serial, 'mqtt-secret-1', 'mqtt', '127.0.0.1')).toEqual({ ok: false, reason: 'device.x509.required' }) })
    expect(await devices.authenticate(serial, 'rest-secret-1', 'rest', '127.0.0.1')).toMatchObject({ ok: true })
    const own = await makeCert({ commonName: serial })
    await post(`/api/v1/systems/${s.uid}/certificates`, { certificate: own.pem })
    expect(await login(presented(own, undefined))).toEqual({ ok: true, session: { systemUid: s.uid, companyUid: stack.companyUid, username: serial } })
    // Another system's password login is as it was.
    const d = await createDevice(stack)
    expect(await devices.authenticate(d.serial, d.mqttPassword ?? '', 'mqtt', '127.0.0.1')).toEqual(session(d, d.serial))
  })
})
