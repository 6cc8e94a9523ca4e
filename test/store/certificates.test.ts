// CertificatesRepository (storage/repositories/certificates.repository.ts, certificate-login.sql.ts) on each engine: one
// fingerprint once across systems and CAs, even for registrations racing; lists paged oldest first; revocations kept
// with their first date; certificates gone with their system; what a login reads, in one statement. The embedded run on
// PGlite; PostgreSQL with TEST_DATABASE_URL (always under CI=true).
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { CertificateFacts } from '../../core/ports/certificates.js'
import { createRepositories } from '../../storage/repositories/index.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defineContract, newCompany, newSystem, uniq, type Repos, type Store } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'

const facts = (patch: Partial<CertificateFacts> = {}): CertificateFacts => ({
  fingerprint: randomBytes(32).toString('hex'),
  pem: '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----',
  subject: 'CN=SN-1, O=Test',
  issuer: 'CN=CA, O=Test',
  notBefore: 1_700_000_000_000,
  notAfter: 4_100_000_000_000,
  ...patch
})

/** A system with a gateway whose serial number and IMEI are its logins, as the systems service binds them. */
async function systemWithLogins (repos: Repos, companyUid: string): Promise<{ uid: string, serial: string, imei: string }> {
  const serial = uniq('SN')
  const imei = String(350_000_000_000_000 + Math.floor(Math.random() * 1e9))
  const gatewayUid = uniq('gw')
  await repos.gateways.insert({ uid: gatewayUid, companyUid, imei, serialNumber: serial, macAddress: null, esn: null, meid: null, type: null, state: 'INVENTORY', transferTo: null, creationDate: 1 })
  const uid = await newSystem(repos, companyUid, { gatewayUid })
  await repos.systems.setCommIdentifiers(uid, [serial, imei])
  return { uid, serial, imei }
}

const contract = defineContract('CertificatesRepository', {
  'registers a fingerprint once, as a system\'s certificate or a CA, even when two registrations race': async ({ db, repos }: Store) => {
    const co = await newCompany(repos)
    const [s1, s2] = [await newSystem(repos, co), await newSystem(repos, co)]
    const c = facts()
    expect(await repos.certificates.insertDevice(c, s1, 10)).toBe(true)
    expect(await repos.certificates.insertDevice(c, s2, 11)).toBe(false)
    expect(await repos.certificates.insertCa(c, co, true, 12)).toBe(false)
    const ca = facts()
    expect(await repos.certificates.insertCa(ca, co, false, 13)).toBe(true)
    expect(await repos.certificates.insertDevice(ca, s1, 14)).toBe(false)
    const raced = facts()
    const outcomes = await Promise.all([
      db.transaction(async (tx) => await createRepositories(tx).certificates.insertDevice(raced, s1, 20)),
      db.transaction(async (tx) => await createRepositories(tx).certificates.insertCa(raced, co, false, 21))
    ])
    expect(outcomes.filter((o) => o).length).toBe(1)
    await expect(repos.certificates.insertDevice(facts(), uniq('gone'), 1)).rejects.toMatchObject({ code: 'system.unknown' })
  },
  'lists a system\'s certificates and a company\'s CAs oldest first, paged, with totals and every field': async ({ repos }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const [a, b, c] = [facts({ notAfter: 5_000_000_000_000 }), facts(), facts()]
    await repos.certificates.insertDevice(b, s, 200)
    await repos.certificates.insertDevice(a, s, 100)
    await repos.certificates.insertCa(c, co, true, 300)
    const page = await repos.certificates.ofSystem(s, { offset: 0, size: 1 })
    expect(page).toEqual({ count: 2, items: [{ ...a, systemUid: s, status: 'ACTIVE', createdAt: 100, revokedAt: null }] })
    expect((await repos.certificates.ofSystem(s, { offset: 1, size: 10 })).items.map((x) => x.fingerprint)).toEqual([b.fingerprint])
    expect(await repos.certificates.ofCompany(co, { offset: 0, size: 10 })).toEqual({
      count: 1, items: [{ ...c, companyUid: co, status: 'ACTIVE', autoRegister: true, autoRegistered: 0, createdAt: 300, revokedAt: null }]
    })
    expect(await repos.certificates.ofCompany(await newCompany(repos), { offset: 0, size: 10 })).toEqual({ count: 0, items: [] })
  },
  'revokes the owner\'s own only, once: a second revocation keeps the first date and changes nothing': async ({ repos }) => {
    const co = await newCompany(repos)
    const s = await newSystem(repos, co)
    const [c, ca] = [facts(), facts()]
    await repos.certificates.insertDevice(c, s, 1)
    await repos.certificates.insertCa(ca, co, false, 1)
    expect(await repos.certificates.revokeDevice(await newSystem(repos, co), c.fingerprint, 5)).toBeUndefined()
    expect(await repos.certificates.revokeDevice(s, ca.fingerprint, 5)).toBeUndefined()
    expect(await repos.certificates.revokeDevice(s, c.fingerprint, 5)).toMatchObject({ changed: true, cert: { status: 'REVOKED', revokedAt: 5 } })
    expect(await repos.certificates.revokeDevice(s, c.fingerprint, 9)).toMatchObject({ changed: false, cert: { status: 'REVOKED', revokedAt: 5 } })
    expect(await repos.certificates.revokeCa(await newCompany(repos), ca.fingerprint, 5)).toBeUndefined()
    expect(await repos.certificates.revokeCa(co, ca.fingerprint, 6)).toMatchObject({ changed: true, ca: { status: 'REVOKED', revokedAt: 6 } })
    expect(await repos.certificates.revokeCa(co, ca.fingerprint, 7)).toMatchObject({ changed: false, ca: { revokedAt: 6 } })
  },
  'answers the ACTIVE CAs\' PEMs, counts what a CA registered, and drops a system\'s certificates with it': async ({ db, repos }) => {
    const co = await newCompany(repos)
    const [active, revoked] = [facts({ pem: `PEM-${uniq('a')}` }), facts({ pem: `PEM-${uniq('r')}` })]
    await repos.certificates.insertCa(active, co, true, 1)
    await repos.certificates.insertCa(revoked, co, true, 1)
    await repos.certificates.revokeCa(co, revoked.fingerprint, 2)
    const pems = await repos.certificates.activeCaPems()
    expect(pems).toContain(active.pem)
    expect(pems).not.toContain(revoked.pem)
    await repos.certificates.countAutoRegistered(active.fingerprint)
    await repos.certificates.countAutoRegistered(active.fingerprint)
    expect((await repos.certificates.ofCompany(co, { offset: 0, size: 10 })).items.find((x) => x.fingerprint === active.fingerprint)?.autoRegistered).toBe(2)
    const s = await newSystem(repos, co)
    const c = facts()
    await repos.certificates.insertDevice(c, s, 1)
    await db.query('DELETE FROM systems WHERE uid = $1', [s])
    expect(await repos.certificates.insertDevice(c, await newSystem(repos, co), 2)).toBe(true)
  },
  'reads logins\' pinned certificates, named systems and CAs in one statement, in the order asked, with the companies\' device filters': async ({ db, repos }) => {
    const [coA, coB] = [await newCompany(repos), await newCompany(repos)]
    await db.query('UPDATE companies SET device_ip_filtering = true, device_ip_filters = $2 WHERE uid = $1', [coB, { startIPAddress: null, endIPAddress: null, ipAddresses: ['10.0.0.1'] }])
    const a = await systemWithLogins(repos, coA)
    const b = await systemWithLogins(repos, coB)
    const pinned = facts({ notBefore: 10, notAfter: 20 })
    await repos.certificates.insertDevice(pinned, a.uid, 1)
    const [caA, caB] = [facts(), facts()]
    await repos.certificates.insertCa(caA, coA, true, 1)
    await repos.certificates.insertCa(caB, coB, false, 1)
    await repos.certificates.revokeCa(coB, caB.fingerprint, 2)
    const none = { deviceIpFiltering: false, deviceIpFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: [] } }
    // Asked together with two other logins (the logins of devices connecting at once): each answer in its place.
    const [before, got, after] = await repos.certificates.loginFacts([
      { fingerprint: caA.fingerprint, names: [], issuers: [] },
      { fingerprint: pinned.fingerprint, names: [a.serial, b.imei, 'nobody'], issuers: [caA.fingerprint, caB.fingerprint, facts().fingerprint] },
      { fingerprint: facts().fingerprint, names: [b.serial], issuers: [caB.fingerprint] }
    ])
    if (got === undefined) throw new Error('no answer for the second login')
    expect(got.pinned).toEqual({ systemUid: a.uid, companyUid: coA, serialNumber: a.serial, imei: a.imei, status: 'ACTIVE', notBefore: 10, notAfter: 20, ...none })
    expect(got.named).toHaveLength(2)
    expect(got.named).toEqual(expect.arrayContaining([
      { identifier: a.serial, systemUid: a.uid, companyUid: coA, serialNumber: a.serial, imei: a.imei, ...none },
      { identifier: b.imei, systemUid: b.uid, companyUid: coB, serialNumber: b.serial, imei: b.imei, deviceIpFiltering: true, deviceIpFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: ['10.0.0.1'] } }
    ]))
    expect(got.cas).toHaveLength(2)
    expect(got.cas).toEqual(expect.arrayContaining([
      { fingerprint: caA.fingerprint, companyUid: coA, status: 'ACTIVE', autoRegister: true, ...none },
      expect.objectContaining({ fingerprint: caB.fingerprint, companyUid: coB, status: 'REVOKED', autoRegister: false, deviceIpFiltering: true })
    ]))
    // A CA's fingerprint is never a pinned certificate, and nothing asked finds nothing.
    expect(before).toEqual({ pinned: undefined, named: [], cas: [] })
    expect(after).toMatchObject({ pinned: undefined, named: [{ identifier: b.serial, systemUid: b.uid }], cas: [{ fingerprint: caB.fingerprint, status: 'REVOKED' }] })
    expect(await repos.certificates.loginFacts([])).toEqual([])
  },
  'says in a password login whether an application of the system sets MQTT mqtt-security to x509 (any case)': async ({ repos }) => {
    const co = await newCompany(repos)
    const app = (communication: unknown[]) => ({ uid: uniq('app'), companyUid: co, name: uniq('App'), revision: '1', type: uniq('t'), category: 'FIRMWARE' as const, communication: communication as never, data: [] })
    const x509 = app([{ type: 'REST', commIdType: 'SERIAL' }, { type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'X509' } }])
    const restOnly = app([{ type: 'REST', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'x509' } }])
    const plain = app([{ type: 'MQTT', commIdType: 'SERIAL', parameters: null }])
    for (const a of [x509, restOnly, plain]) await repos.applications.insert(a, 1)
    const [s1, s2] = [await systemWithLogins(repos, co), await systemWithLogins(repos, co)]
    await repos.systems.setApplications(s1.uid, [plain.uid, x509.uid])
    await repos.systems.setApplications(s2.uid, [plain.uid, restOnly.uid])
    const logins = await repos.systems.deviceLogins([s1.serial, s2.imei])
    expect(logins.map((l) => [l.systemUid, l.mqttX509])).toEqual(expect.arrayContaining([[s1.uid, true], [s2.uid, false]]))
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
