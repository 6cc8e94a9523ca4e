// Reading a registered certificate (core/services/certificates/parse.ts): one PEM certificate with its fingerprint,
// names and dates; everything else certificate.invalid, and a private key never echoed.
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { parseCertificate } from '../../../core/services/certificates/parse.js'
import { isFleetError } from '../../../core/errors.js'
import { makeCert } from '../../int/certificates/local-pki.js'

function refusal (text: string): { code: string, params: readonly string[] } {
  try {
    parseCertificate(text)
  } catch (err) {
    if (isFleetError(err)) return { code: err.code, params: err.params }
    throw err
  }
  throw new Error('accepted')
}

describe('parseCertificate', () => {
  it('reads one certificate: the SHA-256 fingerprint openssl prints, its names, dates and whether it is a CA', async () => {
    const ca = await makeCert({ ca: true, commonName: 'Acme devices CA' })
    const leaf = await makeCert({ issuer: ca, commonName: 'SN-0001', from: 1_800_000_000_000, days: 10 })
    const openssl = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: leaf.pem }).toString()
    const parsed = parseCertificate(`some text before\n${leaf.pem}\ntrailing`)
    expect(parsed.fingerprint).toBe(/=([0-9A-F:]+)/.exec(openssl)?.[1]?.replace(/:/g, '').toLowerCase())
    expect(parsed).toMatchObject({ subject: 'CN=SN-0001, O=Test', issuer: 'CN=Acme devices CA, O=Test', notBefore: 1_800_000_000_000, notAfter: 1_800_000_000_000 + 10 * 86_400_000, isCa: false })
    expect(parsed.pem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----$/)
    expect(parseCertificate(ca.pem.replace(/\n/g, '\r\n')).isCa).toBe(true)
  })

  it('refuses what is not exactly one certificate, saying what to send', async () => {
    const a = await makeCert()
    const b = await makeCert()
    expect(refusal('')).toMatchObject({ code: 'certificate.invalid', params: ['certificate', expect.stringContaining('one X.509 certificate')] })
    expect(refusal('hello')).toMatchObject({ code: 'certificate.invalid' })
    expect(refusal(a.pem + b.pem)).toMatchObject({ code: 'certificate.invalid', params: ['certificate', expect.stringContaining('2 certificates')] })
    expect(refusal('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toMatchObject({ code: 'certificate.invalid', params: ['certificate', expect.stringContaining('not an X.509')] })
    expect(refusal(a.pem.replace('-----END CERTIFICATE-----', ''))).toMatchObject({ code: 'certificate.invalid' })
    expect(refusal(a.pem + 'x'.repeat(70_000))).toMatchObject({ code: 'certificate.invalid', params: ['certificate', expect.stringContaining('longer than')] })
  })

  it('refuses a private key, alone or beside the certificate, without repeating a byte of it', async () => {
    const a = await makeCert()
    const key = await a.keyPem()
    for (const text of [key, a.pem + key, key.replace('PRIVATE KEY', 'EC PRIVATE KEY')]) {
      const r = refusal(text)
      expect(r.code).toBe('certificate.invalid')
      expect(r.params.join(' ')).toContain('private key')
      const body = key.split('\n')[1] ?? ''
      expect(JSON.stringify(r)).not.toContain(body.slice(0, 20))
    }
  })
})
