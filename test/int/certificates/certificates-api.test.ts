// docs/api.md#device-certificates-and-company-cas: a system's certificates and a company's CAs through the API, every
// error code with nothing changed, the rights, tenancy (another company's system or CA answers as an unknown one), and
// the changes every process hears of once committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { startStack, type Stack } from '../../helpers/stack.js'
import { companyUid, createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createDevice } from '../../helpers/devices.js'
import { eventually } from '../../helpers/eventually.js'
import type { CertificateEvent } from '../../../core/ports/certificates.js'
import { makeCert } from './local-pki.js'

let stack: Stack
let other: { uid: string, admin: TestUser }
const heard: CertificateEvent[] = []
let stopHearing: () => void = () => {}

beforeAll(async () => {
  stack = await startStack()
  const name = uniq('Other')
  const admin = await createUser(stack, { company: name, administrator: true, rights: ['entities.systems.view', 'entities.systems.create', 'entities.systems.edit', 'accountNetwork.company.viewDetails'] })
  other = { uid: await companyUid(stack, name), admin }
  stopHearing = await stack.ctx.services.certificates.onChange((e) => { heard.push(e) })
})
afterAll(async () => { stopHearing(); await stack.close() })

const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, token = stack.adminToken): Promise<LightMyRequestResponse> =>
  await stack.call(token, { method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })

async function rows (): Promise<unknown[]> {
  return (await stack.db.query('SELECT * FROM certificates ORDER BY fingerprint')).rows
}

/** Refused with `code`, and the certificates table as it was. */
async function refused (request: () => Promise<LightMyRequestResponse>, code: string, status = 400): Promise<{ error: string, errorParameters: string[] }> {
  const before = await rows()
  const res = await request()
  expect({ status: res.statusCode, error: res.json().error }, res.body).toEqual({ status, error: code })
  expect(await rows()).toEqual(before)
  return res.json()
}

const certsOf = (system: string): string => `/api/v1/systems/${system}/certificates`
const casOf = (company: string): string => `/api/v1/companies/${company}/cas`

describe('a system\'s certificates', () => {
  it('registers, lists and revokes, for good and idempotently, and every process hears the revocation', async () => {
    const d = await createDevice(stack)
    const cert = await makeCert({ commonName: d.serial })
    const posted = await call('POST', certsOf(d.uid), { certificate: cert.pem })
    expect(posted.statusCode, posted.body).toBe(200)
    const view = posted.json()
    expect(view).toEqual({
      fingerprint: cert.fingerprint,
      subject: `CN=${d.serial}, O=Test`,
      issuer: `CN=${d.serial}, O=Test`,
      notBefore: cert.cert.notBefore.getTime(),
      notAfter: cert.cert.notAfter.getTime(),
      status: 'ACTIVE',
      creationDate: expect.any(Number),
      revocationDate: null
    })
    expect((await call('GET', certsOf(d.uid))).json()).toEqual({ items: [view], count: 1, size: 1, offset: 0 })
    expect((await call('GET', `${certsOf(d.uid)}?offset=1`)).json()).toEqual({ items: [], count: 1, size: 0, offset: 1 })

    // openssl's form of the fingerprint names it too.
    const colons = cert.fingerprint.toUpperCase().match(/../g)?.join(':') ?? ''
    const revoked = await call('POST', `${certsOf(d.uid)}/${colons}/revoke`)
    expect(revoked.statusCode, revoked.body).toBe(200)
    expect(revoked.json()).toEqual({ ...view, status: 'REVOKED', revocationDate: expect.any(Number) })
    await eventually(() => heard.some((e) => e.kind === 'certificate.revoked' && e.fingerprint === cert.fingerprint), { what: 'the revocation heard' })
    const again = await call('POST', `${certsOf(d.uid)}/${cert.fingerprint}/revoke`)
    expect(again.json()).toEqual(revoked.json())
    // Registered for good: a revoked certificate cannot come back.
    await refused(async () => await call('POST', certsOf(d.uid), { certificate: cert.pem }), 'certificate.already.registered')
    const events = heard.filter((e) => e.fingerprint === cert.fingerprint)
    expect(events).toEqual([
      { kind: 'certificate.registered', fingerprint: cert.fingerprint, system: d.uid },
      { kind: 'certificate.revoked', fingerprint: cert.fingerprint, system: d.uid }
    ])
  })

  it('refuses what is no certificate, a private key (unechoed), an expired one, one registered anywhere, an unknown one', async () => {
    const d = await createDevice(stack)
    const e = await createDevice(stack, { token: other.admin.token, company: other.uid })
    const cert = await makeCert()
    const key = await cert.keyPem()
    await refused(async () => await call('POST', certsOf(d.uid), { certificate: 'hello' }), 'certificate.invalid')
    await refused(async () => await call('POST', certsOf(d.uid), { certificate: cert.pem + (await makeCert()).pem }), 'certificate.invalid')
    for (const body of [{ certificate: key }, { certificate: cert.pem + key }, { certificate: cert.pem, note: key }]) {
      const res = await refused(async () => await call('POST', certsOf(d.uid), body), 'certificate.invalid')
      expect(JSON.stringify(res)).not.toContain(key.split('\n')[1]?.slice(0, 16))
    }
    const old = await makeCert({ from: Date.now() - 400 * 86_400_000, days: 30 })
    expect((await refused(async () => await call('POST', certsOf(d.uid), { certificate: old.pem }), 'certificate.expired')).errorParameters)
      .toEqual(['certificate', String(old.cert.notAfter.getTime())])
    await refused(async () => await call('POST', certsOf(d.uid), {}), 'request.invalid')

    expect((await call('POST', certsOf(d.uid), { certificate: cert.pem })).statusCode).toBe(200)
    // Anywhere: on this system, another system of any company, or as a CA; the answer names nothing but the fingerprint.
    const taken = await refused(async () => await call('POST', certsOf(e.uid), { certificate: cert.pem }, other.admin.token), 'certificate.already.registered')
    expect(taken.errorParameters).toEqual([cert.fingerprint])
    const ca = await makeCert({ ca: true })
    expect((await call('POST', casOf(other.uid), { certificate: ca.pem }, other.admin.token)).statusCode).toBe(200)
    await refused(async () => await call('POST', certsOf(d.uid), { certificate: ca.pem }), 'certificate.already.registered')

    await refused(async () => await call('POST', `${certsOf(d.uid)}/${'0'.repeat(64)}/revoke`), 'certificate.unknown')
    await refused(async () => await call('POST', `${certsOf(d.uid)}/not-hex/revoke`), 'certificate.unknown')
    // Registered, but on another system.
    const mine = await makeCert()
    expect((await call('POST', certsOf(e.uid), { certificate: mine.pem }, other.admin.token)).statusCode).toBe(200)
    await refused(async () => await call('POST', `${certsOf(d.uid)}/${mine.fingerprint}/revoke`), 'certificate.unknown')
  })

  it('answers another company\'s system as an unknown one, and needs the systems rights', async () => {
    const d = await createDevice(stack)
    const cert = await makeCert()
    expect((await call('POST', certsOf(d.uid), { certificate: cert.pem })).statusCode).toBe(200)
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', certsOf(d.uid)],
      ['POST', certsOf(d.uid), { certificate: (await makeCert()).pem }],
      ['POST', `${certsOf(d.uid)}/${cert.fingerprint}/revoke`]
    ]
    for (const [method, url, body] of attempts) {
      const theirs = await refused(async () => await call(method as 'GET', url, body, other.admin.token), 'system.unknown')
      const unknown = await refused(async () => await call(method as 'GET', url.replace(d.uid, 'no-such-system'), body, other.admin.token), 'system.unknown')
      expect(theirs.errorParameters.map((p) => p.replace(d.uid, 'X'))).toEqual(unknown.errorParameters.map((p) => p.replace('no-such-system', 'X')))
    }
    const viewer = await createUser(stack, { rights: ['entities.systems.view'] })
    expect((await call('GET', certsOf(d.uid), undefined, viewer.token)).statusCode).toBe(200)
    const denied = await refused(async () => await call('POST', certsOf(d.uid), { certificate: (await makeCert()).pem }, viewer.token), 'missing.rights', 403)
    expect(denied.errorParameters).toEqual(['entities.systems.edit'])
    await refused(async () => await call('POST', `${certsOf(d.uid)}/${cert.fingerprint}/revoke`, undefined, viewer.token), 'missing.rights', 403)
    const nobody = await createUser(stack, { rights: [] })
    await refused(async () => await call('GET', certsOf(d.uid), undefined, nobody.token), 'missing.rights', 403)
  })
})

describe('a company\'s CAs', () => {
  async function registerCa (body: Record<string, unknown>, company = stack.companyUid, token = stack.adminToken): Promise<Record<string, unknown>> {
    const res = await call('POST', casOf(company), body, token)
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }

  it('registers (autoRegister false unless asked), lists, revokes; trustedCAs holds the ACTIVE ones; every process hears', async () => {
    const a = await makeCert({ ca: true, commonName: 'A CA' })
    const b = await makeCert({ ca: true, commonName: 'B CA' })
    const first = await registerCa({ certificate: a.pem })
    expect(first).toMatchObject({ fingerprint: a.fingerprint, subject: 'CN=A CA, O=Test', status: 'ACTIVE', autoRegister: false, autoRegisteredSystems: 0, revocationDate: null })
    const second = await registerCa({ certificate: b.pem, autoRegister: true })
    expect(second).toMatchObject({ fingerprint: b.fingerprint, autoRegister: true })
    const listed = (await call('GET', casOf(stack.companyUid))).json()
    expect(listed.items).toEqual(expect.arrayContaining([first, second]))
    expect(await stack.ctx.services.certificates.trustedCAs()).toEqual(expect.arrayContaining([a.pem.trim(), b.pem.trim()]))

    const revoked = await call('POST', `${casOf(stack.companyUid)}/${a.fingerprint}/revoke`)
    expect(revoked.json()).toEqual({ ...first, status: 'REVOKED', revocationDate: expect.any(Number) })
    expect((await call('POST', `${casOf(stack.companyUid)}/${a.fingerprint}/revoke`)).json()).toEqual(revoked.json())
    const trusted = await stack.ctx.services.certificates.trustedCAs()
    expect(trusted).not.toContain(a.pem.trim())
    expect(trusted).toContain(b.pem.trim())
    await eventually(() => heard.filter((e) => e.fingerprint === a.fingerprint).length === 2, { what: 'the CA\'s registration and revocation heard' })
    expect(heard.filter((e) => e.fingerprint === a.fingerprint || e.fingerprint === b.fingerprint)).toEqual([
      { kind: 'ca.registered', fingerprint: a.fingerprint, company: stack.companyUid },
      { kind: 'ca.registered', fingerprint: b.fingerprint, company: stack.companyUid },
      { kind: 'ca.revoked', fingerprint: a.fingerprint, company: stack.companyUid }
    ])
  })

  it('refuses a certificate that is no CA, an expired one, one registered anywhere, a private key, an unknown one', async () => {
    const leaf = await makeCert()
    const res = await refused(async () => await call('POST', casOf(stack.companyUid), { certificate: leaf.pem }), 'certificate.invalid')
    expect(res.errorParameters[1]).toContain('not a CA')
    const old = await makeCert({ ca: true, from: Date.now() - 100 * 86_400_000, days: 10 })
    await refused(async () => await call('POST', casOf(stack.companyUid), { certificate: old.pem }), 'certificate.expired')
    const ca = await makeCert({ ca: true })
    await registerCa({ certificate: ca.pem }, other.uid, other.admin.token)
    await refused(async () => await call('POST', casOf(stack.companyUid), { certificate: ca.pem }), 'certificate.already.registered')
    await refused(async () => await call('POST', casOf(stack.companyUid), { certificate: await ca.keyPem() }), 'certificate.invalid')
    await refused(async () => await call('POST', casOf(stack.companyUid), { certificate: ca.pem, autoRegister: 'maybe' }), 'request.invalid')
    await refused(async () => await call('POST', `${casOf(stack.companyUid)}/${ca.fingerprint}/revoke`), 'certificate.unknown')
  })

  it('answers another company\'s CAs as an unknown company\'s, and needs the company\'s rights', async () => {
    const ca = await makeCert({ ca: true })
    await registerCa({ certificate: ca.pem })
    for (const [method, path, body] of [['GET', '', undefined], ['POST', '', { certificate: (await makeCert({ ca: true })).pem }], ['POST', `/${ca.fingerprint}/revoke`, undefined]] as const) {
      const theirs = await refused(async () => await call(method, casOf(stack.companyUid) + path, body, other.admin.token), 'company.unknown')
      const unknown = await refused(async () => await call(method, casOf('no-such-company') + path, body, other.admin.token), 'company.unknown')
      expect(theirs.errorParameters.map((p) => p.replace(stack.companyUid, 'X'))).toEqual(unknown.errorParameters.map((p) => p.replace('no-such-company', 'X')))
    }
    const viewer = await createUser(stack, { rights: ['accountNetwork.company.viewDetails', 'entities.systems.edit'] })
    expect((await call('GET', casOf(stack.companyUid), undefined, viewer.token)).statusCode).toBe(200)
    const denied = await refused(async () => await call('POST', casOf(stack.companyUid), { certificate: (await makeCert({ ca: true })).pem }, viewer.token), 'missing.rights', 403)
    expect(denied.errorParameters).toEqual(['administrator'])
    await refused(async () => await call('POST', `${casOf(stack.companyUid)}/${ca.fingerprint}/revoke`, undefined, viewer.token), 'missing.rights', 403)
    const nobody = await createUser(stack, { rights: [] })
    await refused(async () => await call('GET', casOf(stack.companyUid), undefined, nobody.token), 'missing.rights', 403)
  })
})
