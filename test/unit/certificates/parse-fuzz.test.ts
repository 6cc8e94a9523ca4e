// Property tests of the certificate reader the API uses (core/services/certificates/parse.ts): whatever text a caller
// sends, and whatever a damaged certificate holds, it answers a certificate or certificate.invalid, never another
// error (which the API would answer 500) and never the text it was given.
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { parseCertificate } from '../../../core/services/certificates/parse.js'
import { issue } from '../../../bin/pki.js'

let der: Buffer

beforeAll(async () => {
  const cert = await issue({ commonName: 'SN-FUZZ', usage: 'client' })
  der = Buffer.from(cert.x509.rawData)
})

const pemOf = (bytes: Uint8Array): string =>
  `-----BEGIN CERTIFICATE-----\n${(Buffer.from(bytes).toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`

/** Parses, and says what came out: a fingerprint, or the invalid error (any other error fails the property). */
function outcome (text: string): 'parsed' | 'invalid' {
  try {
    expect(parseCertificate(text).fingerprint).toMatch(/^[0-9a-f]{64}$/)
    return 'parsed'
  } catch (err) {
    expect(err).toBeInstanceOf(FleetError)
    expect((err as FleetError).code).toBe('certificate.invalid')
    // The reason names what is wrong, never the body sent.
    if (text.length > 40) expect(JSON.stringify((err as FleetError).params)).not.toContain(text.slice(0, 40))
    return 'invalid'
  }
}

describe('parseCertificate under arbitrary input', () => {
  it('reads its own certificate', () => {
    expect(outcome(pemOf(der))).toBe('parsed')
  })

  it('answers certificate.invalid for any text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 2000 }), (text) => { outcome(text) }), { numRuns: 500 })
  })

  it('answers certificate.invalid for random bytes in a PEM block', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 1500 }), (bytes) => { expect(outcome(pemOf(bytes))).toBe('invalid') }), { numRuns: 300 })
  })

  it('never throws another error for a certificate with bytes changed, cut or added', () => {
    const damaged = fc.oneof(
      fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }).map(({ at, value }) => { const b = Buffer.from(der); b[at % b.length] = value; return b }),
      fc.nat().map((n) => der.subarray(0, n % der.length)),
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((extra) => Buffer.concat([der, extra])),
      fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 2, maxLength: 20 })
        .map((edits) => { const b = Buffer.from(der); for (const e of edits) b[e.at % b.length] = e.value; return b })
    )
    fc.assert(fc.property(damaged, (bytes) => { outcome(pemOf(bytes)) }), { numRuns: 1000 })
  })
})
