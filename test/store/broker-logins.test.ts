// What the external broker must hold, read from the store on each engine (storage/repositories/broker-logins.repository.ts,
// CertificatesRepository.activePinned): logins by MQTT password, none for a system whose application asks for x509, and
// with a trust bundle (BROKER_CA_FILE) the logins without a password of the systems a trusted certificate may name.
// The embedded run on PGlite; PostgreSQL with TEST_DATABASE_URL (always under CI=true).
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { CertificateFacts } from '../../core/ports/certificates.js'
import { createBrokerLoginsRepository, type BrokerCertificateTrust } from '../../storage/repositories/broker-logins.repository.js'
import { createTestDb } from '../helpers/test-db.js'
import { EMBEDDED_RUN, TEST_DATABASE_URL } from '../helpers/env.js'
import { defineContract, newCompany, newSystem, uniq, type Repos, type Store } from './repositories/store.js'

// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URL).
const CI = process.env.CI === 'true'

const facts = (): CertificateFacts => ({
  fingerprint: randomBytes(32).toString('hex'),
  pem: `PEM-${uniq('c')}`,
  subject: 'CN=x',
  issuer: 'CN=x',
  notBefore: 1,
  notAfter: 4_100_000_000_000
})

/** A system whose logins are a serial number and an IMEI, with this MQTT password ('' or null: none). */
async function system (repos: Repos, companyUid: string, password: string | null): Promise<{ uid: string, logins: string[] }> {
  const uid = await newSystem(repos, companyUid, { communication: password === null ? {} : { mqtt: { password } } as never })
  const logins = [uniq('SN'), uniq('IMEI')].sort()
  await repos.systems.setCommIdentifiers(uid, logins)
  return { uid, logins }
}

async function x509App (repos: Repos, companyUid: string): Promise<string> {
  const uid = uniq('app')
  await repos.applications.insert({ uid, companyUid, name: uniq('App'), revision: '1', type: uniq('t'), category: 'FIRMWARE', communication: [{ type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'x509' } }] as never, data: [] }, 1)
  return uid
}

const NO_CA: BrokerCertificateTrust = { operatorCa: false, companyCas: false }

const contract = defineContract('BrokerLoginsRepository', {
  'gives the logins with an MQTT password, and none to a system without one or whose application asks for x509': async ({ db, repos }: Store) => {
    const co = await newCompany(repos)
    const [pw, empty, none, x509] = [await system(repos, co, 'pw'), await system(repos, co, ''), await system(repos, co, null), await system(repos, co, 'pw2')]
    await repos.systems.setApplications(x509.uid, [await x509App(repos, co)])
    await repos.certificates.insertDevice(facts(), none.uid, 1)
    const logins = createBrokerLoginsRepository(db)
    expect(await logins.ofSystems([pw.uid, empty.uid, none.uid, x509.uid])).toEqual(pw.logins.map((identifier) => ({ systemUid: pw.uid, identifier, password: 'pw' })))
  },
  'with a trust bundle, gives a system a certificate may name its logins without a password, an x509 one included': async ({ db, repos }) => {
    const co = await newCompany(repos)
    const [pinned, revoked, x509, bare] = [await system(repos, co, null), await system(repos, co, null), await system(repos, co, 'pw'), await system(repos, co, null)]
    await repos.certificates.insertDevice(facts(), pinned.uid, 1)
    const gone = facts()
    await repos.certificates.insertDevice(gone, revoked.uid, 1)
    await repos.certificates.revokeDevice(revoked.uid, gone.fingerprint, 2)
    await repos.systems.setApplications(x509.uid, [await x509App(repos, co)])
    await repos.certificates.insertDevice(facts(), x509.uid, 1)
    const uids = [pinned.uid, revoked.uid, x509.uid, bare.uid]
    const certOnly = (s: { uid: string, logins: string[] }): unknown[] => s.logins.map((identifier) => ({ systemUid: s.uid, identifier, password: null }))
    const got = await createBrokerLoginsRepository(db, NO_CA).ofSystems(uids)
    expect(got).toHaveLength(4)
    expect(got).toEqual(expect.arrayContaining([...certOnly(pinned), ...certOnly(x509)]))
    // The operator's CA may name any system: every one gets its logins.
    expect(await createBrokerLoginsRepository(db, { operatorCa: true, companyCas: false }).ofSystems(uids)).toHaveLength(8)
  },
  'counts a company\'s ACTIVE CA only where the bundle holds the companies\' CAs, for that company\'s systems': async ({ db, repos }) => {
    const [acme, other] = [await newCompany(repos), await newCompany(repos)]
    const [a, o] = [await system(repos, acme, null), await system(repos, other, null)]
    const ca = facts()
    await repos.certificates.insertCa(ca, acme, false, 1)
    const uids = [a.uid, o.uid]
    expect(await createBrokerLoginsRepository(db, NO_CA).ofSystems(uids)).toEqual([])
    const withCas = createBrokerLoginsRepository(db, { operatorCa: false, companyCas: true })
    expect((await withCas.ofSystems(uids)).map((l) => l.systemUid)).toEqual([a.uid, a.uid])
    const page = await withCas.page('', 1_000_000)
    expect(page.logins.filter((l) => uids.includes(l.systemUid)).map((l) => l.systemUid)).toEqual([a.uid, a.uid])
    await repos.certificates.revokeCa(acme, ca.fingerprint, 2)
    expect(await withCas.ofSystems(uids)).toEqual([])
  },
  'answers the ACTIVE pinned certificates oldest first, each with its system\'s logins': async ({ repos }) => {
    const co = await newCompany(repos)
    const [s1, s2] = [await system(repos, co, null), await system(repos, co, 'pw')]
    const [late, early, revoked] = [facts(), facts(), facts()]
    await repos.certificates.insertDevice(late, s1.uid, 2_000_000_000_001)
    await repos.certificates.insertDevice(early, s2.uid, 2_000_000_000_000)
    await repos.certificates.insertDevice(revoked, s2.uid, 2_000_000_000_002)
    await repos.certificates.revokeDevice(s2.uid, revoked.fingerprint, 3)
    await repos.certificates.insertCa(facts(), co, false, 2_000_000_000_003)
    const mine = (await repos.certificates.activePinned()).filter((p) => [late.pem, early.pem, revoked.pem].includes(p.pem))
    expect(mine).toEqual([{ pem: early.pem, logins: s2.logins }, { pem: late.pem, logins: s1.logins }])
  }
})

if (EMBEDDED_RUN) contract('PGlite', async () => await createTestDb('pglite'))
if (TEST_DATABASE_URL !== undefined || CI) contract('PostgreSQL', async () => await createTestDb('postgres'))
