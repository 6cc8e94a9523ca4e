// A certificate of the operator's CA revoked one by one at the external broker (docs/cluster.md#device-certificates-with-the-external-broker):
// the bundle keeps the CA, so only its certificate revocation list (the listener's crlfile) refuses the certificate;
// deploy/mosquitto/start.sh makes Mosquitto read a changed list with a SIGHUP, without a restart. With a crlfile set,
// a certificate whose issuer has no list there (a self-signed pinned one) is refused, as the page warns.
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevice } from '../../helpers/devices.js'
import { eventually } from '../../helpers/eventually.js'
import { makeCa, makeDeviceCert, type Issued } from '../../helpers/pki.js'
import { brokerTrusts, certConnect, startTlsBroker, type TlsBroker } from './tls-broker.js'

const DAY_MS = 86_400_000

/** The CA's revocation list naming `revoked`, issued at `at` (the newest list of a CA is the one that counts). */
async function crlOf (ca: Issued, revoked: Issued[], at: Date): Promise<string> {
  const crl = await x509.X509CrlGenerator.create({
    issuer: ca.x509.subjectName,
    thisUpdate: at,
    nextUpdate: new Date(at.getTime() + 30 * DAY_MS),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    signingKey: ca.keys.privateKey,
    // With a reason: an entry without any extension is written with an empty list of them, which OpenSSL refuses.
    entries: revoked.map((r) => ({ serialNumber: r.x509.serialNumber, revocationDate: at, reason: x509.X509CrlReason.keyCompromise }))
  })
  // OpenSSL reads the label X509 CRL.
  return x509.PemConverter.encode(crl.rawData, 'X509 CRL') + '\n'
}

let operator: Issued
let t: TlsBroker

beforeAll(async () => {
  operator = await makeCa('Operator devices CA')
  t = await startTlsBroker({ operatorCa: operator, crl: await crlOf(operator, [], new Date(Date.now() - 60_000)), env: { FLEET_NODE_ID: 'broker-crl' } })
  await brokerTrusts(t, operator.cert, 0)
}, 120_000)
afterAll(async () => { await t?.close() })

const loggedIn = async (device: Issued): Promise<boolean> => {
  const c = await certConnect(t, device)
  if (typeof c === 'string') return false
  await c.endAsync(true)
  return true
}

describe('the operator\'s revocation list at the external broker', () => {
  it('refuses a certificate once the list names it, after a SIGHUP and no restart; the CA\'s others log in', async () => {
    const [d1, d2] = [await createDevice(t.stack), await createDevice(t.stack)]
    const [revoked, kept] = [await makeDeviceCert(operator, d1.serial), await makeDeviceCert(operator, d2.serial)]
    await eventually(async () => await loggedIn(revoked) && await loggedIn(kept), { timeoutMs: 15_000, intervalMs: 200, what: 'both certificates logged in' })
    const restarts = t.broker.restarts()
    t.dir.replace('crl.pem', await crlOf(operator, [revoked], new Date()))
    await eventually(async () => !await loggedIn(revoked) && await loggedIn(kept), { timeoutMs: 15_000, intervalMs: 200, what: 'the revoked certificate refused, the other logged in' })
    expect(t.broker.restarts()).toBe(restarts)
  })

  it('refuses a self-signed pinned certificate, whose issuer has no list in the crlfile', async () => {
    const d = await createDevice(t.stack)
    const pinned = await makeDeviceCert(undefined, d.serial)
    const before = t.broker.restarts()
    const res = await t.stack.call(t.stack.adminToken, { method: 'POST', url: `/api/v1/systems/${d.uid}/certificates`, payload: { certificate: pinned.cert } })
    expect(res.statusCode).toBe(200)
    await brokerTrusts(t, pinned.cert, before)
    const other = await makeDeviceCert(operator, d.serial)
    await eventually(async () => await loggedIn(other), { timeoutMs: 15_000, intervalMs: 200, what: 'the broker back' })
    expect(await loggedIn(pinned)).toBe(false)
  })
})
