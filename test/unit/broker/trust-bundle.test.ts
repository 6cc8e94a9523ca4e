// The external broker's trust bundle (ingest/broker-sync/trust-bundle.ts): what Mosquitto may trust when it takes a
// certificate's CN as the login and checks nothing else. The operator's CAs and the companies' given go in as they
// are; a pinned certificate only when it can sign no other and its first CN is a login of its own system.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { brokerMayPin, buildBundle } from '../../../ingest/broker-sync/trust-bundle.js'
import { replaceFile } from '../../../ingest/broker-sync/broker-trust.js'
import { makeCa, makeDeviceCert, pemDir } from '../../helpers/pki.js'
import { makeCert } from '../../int/certificates/local-pki.js'

const RESERVED = new Set(['fleet-admin'])
const dir = pemDir()
afterAll(() => { dir.remove() })

const blocks = (text: string): string[] => text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []

describe('the broker\'s trust bundle', () => {
  it('holds the operator\'s CAs, the companies\' given, then the pinned certificates it may, the same text for the same input', async () => {
    const [op1, op2, company] = [await makeCa('Operator 1'), await makeCa('Operator 2'), await makeCa('Acme devices')]
    const pinned = await makeDeviceCert(undefined, 'SN-PINNED')
    const input = {
      operator: `# the operator's file may say things\n${op1.cert}\nsome text\n${op2.cert}`,
      companyCas: [company.cert],
      pinned: [{ pem: pinned.cert, logins: ['SN-PINNED', '350000000000001'] }],
      reserved: RESERVED
    }
    const bundle = buildBundle(input)
    expect(bundle.counts).toEqual({ operator: 2, companyCas: 1, pinned: 1 })
    expect(blocks(bundle.text)).toEqual([op1.cert, op2.cert, company.cert, pinned.cert].map((p) => p.trim()))
    expect(bundle.text.startsWith('# Written by the fleet service')).toBe(true)
    expect(buildBundle(input).text).toBe(bundle.text)
    expect(blocks(buildBundle({ operator: '', companyCas: [], pinned: [], reserved: RESERVED }).text)).toEqual([])
  })

  it('refuses an operator\'s file with a block that is no certificate, naming TLS_CLIENT_CA_FILE', async () => {
    const op = await makeCa('Operator')
    const broken = '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n'
    expect(() => buildBundle({ operator: op.cert + broken, companyCas: [], pinned: [], reserved: RESERVED })).toThrow(/TLS_CLIENT_CA_FILE: certificate 2/)
  })

  it('pins only a certificate that signs no other and whose first CN is a login of its own system, never a reserved one', async () => {
    const ca = await makeCa('Some CA')
    const own = await makeDeviceCert(undefined, 'SN-OWN')
    expect(brokerMayPin(own.cert, ['SN-OWN'], RESERVED)).toBe(true)
    // Issued by a CA: still only itself (the broker needs its issuer in the bundle to chain it, which is the user's affair).
    expect(brokerMayPin((await makeDeviceCert(ca, 'SN-OWN')).cert, ['SN-OWN'], RESERVED)).toBe(true)
    // Another system's login, or none: whoever pinned it would log in as that one.
    expect(brokerMayPin(own.cert, ['SN-OTHER'], RESERVED)).toBe(false)
    const admin = await makeDeviceCert(undefined, 'fleet-admin')
    expect(brokerMayPin(admin.cert, ['fleet-admin'], RESERVED)).toBe(false)
    // A CA pinned on a system would vouch for any CN it signs; so would a certificate without extensions (OpenSSL takes
    // a self-signed one as a CA).
    const pinnedCa = await makeCa('SN-CA')
    expect(brokerMayPin(pinnedCa.cert, ['SN-CA'], RESERVED)).toBe(false)
    const bare = await makeCert({ commonName: 'SN-BARE' })
    expect(brokerMayPin(bare.pem, ['SN-BARE'], RESERVED)).toBe(false)
    // Mosquitto takes the first CN.
    const two = await makeDeviceCert(undefined, 'SN-FIRST', { subject: { CN: 'SN-SECOND' } })
    expect(brokerMayPin(two.cert, ['SN-SECOND'], RESERVED)).toBe(false)
    expect(brokerMayPin(two.cert, ['SN-FIRST'], RESERVED)).toBe(true)
    expect(brokerMayPin('not a certificate', ['SN-OWN'], RESERVED)).toBe(false)
    const bundle = buildBundle({ operator: '', companyCas: [], pinned: [{ pem: own.cert, logins: ['SN-OWN'] }, { pem: pinnedCa.cert, logins: ['SN-CA'] }, { pem: own.cert, logins: ['SN-X'] }], reserved: RESERVED })
    expect(bundle.counts.pinned).toBe(1)
  })

  it('replaces the file whole and readable by the broker, and leaves it alone when its text is the same', async () => {
    const file = dir.path('device-cas.pem')
    expect(await replaceFile(file, 'one\n')).toBe(true)
    expect(await replaceFile(file, 'one\n')).toBe(false)
    expect(await replaceFile(file, 'two\n')).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('two\n')
    expect(statSync(file).mode & 0o777).toBe(0o644)
    expect(readdirSync(dir.dir)).toEqual(['device-cas.pem'])
    await expect(replaceFile(dir.path('missing/device-cas.pem'), 'x')).rejects.toThrow(/ENOENT/)
  })
})
