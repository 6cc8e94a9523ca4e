// Test certificates for the certificate tests: CAs and device certificates made with @peculiar/x509 on Node's
// WebCrypto (P-256, fast), and the PresentedCertificate a TLS listener would make of them.
import 'reflect-metadata'
import { createHash, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { PresentedCertificate } from '../../../core/domain/device-certificate.js'

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const DAY = 86_400_000

type Keys = Awaited<ReturnType<typeof webcrypto.subtle.generateKey>> & { privateKey: unknown, publicKey: unknown }

export interface TestCert {
  pem: string
  fingerprint: string
  cert: x509.X509Certificate
  keys: Keys
  /** The private key, PKCS#8 PEM (only to check that it is refused). */
  keyPem (): Promise<string>
}

export interface CertOptions {
  commonName?: string
  dns?: string[]
  issuer?: TestCert
  ca?: boolean
  /** Validity from `from` for `days` (default: from a day ago, for a year). */
  from?: number
  days?: number
}

let serial = 1

/** A certificate: self-signed without `issuer`, a CA with `ca`. */
export async function makeCert (o: CertOptions = {}): Promise<TestCert> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as unknown as Keys
  const from = o.from ?? Date.now() - DAY
  const extensions: x509.Extension[] = []
  if (o.ca === true) {
    extensions.push(new x509.BasicConstraintsExtension(true, undefined, true))
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true))
  }
  if (o.dns !== undefined) extensions.push(new x509.SubjectAlternativeNameExtension(o.dns.map((value) => ({ type: 'dns' as const, value }))))
  const subject = `CN=${o.commonName ?? `test-${serial}`}, O=Test`
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject,
    issuer: o.issuer?.cert.subject ?? subject,
    notBefore: new Date(from),
    notAfter: new Date(from + (o.days ?? 365) * DAY),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey as never,
    signingKey: (o.issuer?.keys ?? keys).privateKey as never,
    extensions
  })
  return {
    pem: cert.toString('pem'),
    fingerprint: createHash('sha256').update(Buffer.from(cert.rawData)).digest('hex'),
    cert,
    keys,
    async keyPem () {
      const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never)
      return x509.PemConverter.encode(der, 'PRIVATE KEY')
    }
  }
}

/**
 * What a TLS listener gives of this certificate: `chain` its issuers (issuer first) when the chain was verified,
 * nothing when it was not.
 */
export function presented (c: TestCert, chain: TestCert[] | undefined, error?: string): PresentedCertificate {
  const [commonName] = c.cert.subjectName.getField('CN')
  const san = c.cert.getExtension(x509.SubjectAlternativeNameExtension)
  return {
    fingerprint: c.fingerprint,
    verified: chain !== undefined,
    ...(error === undefined ? {} : { error }),
    issuers: (chain ?? []).map((i) => i.fingerprint),
    ...(commonName === undefined ? {} : { commonName }),
    altNames: san?.names.items.map((n) => n.value) ?? [],
    notBefore: c.cert.notBefore.getTime(),
    notAfter: c.cert.notAfter.getTime()
  }
}
