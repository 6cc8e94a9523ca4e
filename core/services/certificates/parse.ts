// Reading a certificate a user registers (docs/security.md#device-certificates): one X.509 certificate in PEM, never a
// private key. What is refused says what was wrong and never repeats the body (a key sent by mistake stays unseen).
import 'reflect-metadata'
import { createHash, X509Certificate as OpenSslCertificate } from 'node:crypto'
import { BasicConstraintsExtension, X509Certificate } from '@peculiar/x509'
import { FleetError } from '../../errors.js'
import type { CertificateFacts } from '../../ports/certificates.js'

/** A PEM certificate is a few kilobytes; a chain of ten is still far under this. */
export const MAX_PEM_CHARS = 65_536

const BEGIN = '-----BEGIN CERTIFICATE-----'
const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g

/** What a user needs to hear to send the right thing; the body is never echoed. */
const invalid = (why: string): FleetError => new FleetError('certificate.invalid', ['certificate', why])

export interface ParsedCertificate extends CertificateFacts {
  /** basicConstraints CA:TRUE. */
  isCa: boolean
}

/**
 * The one certificate of `text`, its SHA-256 fingerprint (of the DER, lowercase hexadecimal) and its fields.
 * @throws certificate.invalid: a private key anywhere in it, no certificate, several, or one that does not parse
 */
export function parseCertificate (text: string): ParsedCertificate {
  if (text.includes('PRIVATE KEY')) throw invalid('a private key was sent: send the certificate alone and keep the key on the device')
  if (text.length > MAX_PEM_CHARS) throw invalid(`longer than ${MAX_PEM_CHARS} characters: send one certificate`)
  const blocks = text.match(BLOCK) ?? []
  if (blocks.length === 0 || text.split(BEGIN).length - 1 !== blocks.length) throw invalid(`one X.509 certificate in PEM (${BEGIN} ... -----END CERTIFICATE-----)`)
  if (blocks.length > 1) throw invalid(`${blocks.length} certificates: send one (the device's own, or the CA's)`)
  const pem = blocks[0] ?? ''
  // The library reads some fields only when asked (names, extensions): a damaged certificate may fail at any of them,
  // so every read is inside the one guard.
  try {
    // OpenSSL must read it too: the TLS listeners hand every registered CA to it (one it refused there would be
    // left out of every company's trusted list).
    return facts(new X509Certificate(pem), new OpenSslCertificate(pem))
  } catch (err) {
    if (err instanceof FleetError) throw err
    throw invalid('the PEM block is not an X.509 certificate')
  }
}

function facts (cert: X509Certificate, openssl: OpenSslCertificate): ParsedCertificate {
  const notBefore = cert.notBefore.getTime()
  const notAfter = cert.notAfter.getTime()
  if (!Number.isFinite(notBefore) || !Number.isFinite(notAfter)) throw invalid('its validity dates cannot be read')
  return {
    fingerprint: createHash('sha256').update(openssl.raw).digest('hex'),
    pem: cert.toString('pem'),
    subject: cert.subject,
    issuer: cert.issuer,
    notBefore,
    notAfter,
    isCa: cert.getExtension(BasicConstraintsExtension)?.ca === true
  }
}
