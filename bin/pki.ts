// Certificates for development and tests (docs/cli.md#fleet-certs-dev): a CA, server certificates and device
// certificates issued by it, built with @peculiar/x509 on Node's WebCrypto (no ASN.1 written here). `fleet certs dev`
// writes a set of them; the tests make theirs with the same functions (test/helpers/pki.ts).
import 'reflect-metadata'
import { createPrivateKey, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'

// The library's type is the DOM's Crypto, which this project's TypeScript (no DOM library) does not know.
x509.cryptoProvider.set(webcrypto as never)

type CryptoKey = webcrypto.CryptoKey
type CryptoKeyPair = webcrypto.CryptoKeyPair

export type KeyKind = 'P-256' | 'RSA-2048'

/** A certificate and its key: PEM texts, and what issues further certificates from it. */
export interface Issued {
  /** The certificate, PEM. */
  cert: string
  /** Its private key, PKCS#8 PEM. */
  key: string
  /** SHA-256 of the certificate's DER, lowercase hex (the form of core/domain/device-certificate.ts). */
  fingerprint: string
  readonly x509: x509.X509Certificate
  readonly keys: CryptoKeyPair
  readonly algorithm: KeyKind
}

export interface IssueOptions {
  /** The subject's common name ('': none). */
  commonName: string
  /** Further subject attributes, after the CN (e.g. `{ O: 'Acme' }`). */
  subject?: Record<string, string>
  /** Subject alternative names. */
  dns?: string[]
  ip?: string[]
  uri?: string[]
  email?: string[]
  /** Validity: from notBefore (default: an hour ago, for clocks a little behind) for `days` (default 365), or to notAfter. */
  notBefore?: Date
  notAfter?: Date
  days?: number
  key?: KeyKind
  /** The issuer; absent: self-signed. */
  issuer?: Issued
  /** What the certificate is for: a CA, a TLS server, a TLS client (a device). */
  usage: 'ca' | 'server' | 'client'
}

const DAY_MS = 86_400_000

function algorithmOf (kind: KeyKind): webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams & { hash: string } {
  return kind === 'RSA-2048'
    ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }
    : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
}

function pem (label: string, der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`
}

async function extensionsOf (o: IssueOptions, kind: KeyKind, publicKey: CryptoKey): Promise<x509.Extension[]> {
  const { KeyUsageFlags: K } = x509
  const ext: x509.Extension[] = [await x509.SubjectKeyIdentifierExtension.create(publicKey)]
  if (o.issuer !== undefined) ext.push(await x509.AuthorityKeyIdentifierExtension.create(o.issuer.x509))
  if (o.usage === 'ca') {
    ext.push(new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(K.keyCertSign | K.cRLSign | K.digitalSignature, true))
  } else {
    const usage = kind === 'RSA-2048' ? K.digitalSignature | K.keyEncipherment : K.digitalSignature
    ext.push(new x509.BasicConstraintsExtension(false, undefined, true), new x509.KeyUsagesExtension(usage, true),
      new x509.ExtendedKeyUsageExtension([o.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]))
  }
  const names: x509.JsonGeneralName[] = [
    ...(o.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(o.ip ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(o.uri ?? []).map((value) => ({ type: 'url' as const, value })),
    ...(o.email ?? []).map((value) => ({ type: 'email' as const, value }))
  ]
  if (names.length > 0) ext.push(new x509.SubjectAlternativeNameExtension(names))
  return ext
}

/** Issues one certificate with a new key. */
export async function issue (o: IssueOptions): Promise<Issued> {
  const kind = o.key ?? 'P-256'
  const algorithm = algorithmOf(kind)
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as CryptoKeyPair
  const notBefore = o.notBefore ?? new Date(Date.now() - 3_600_000)
  const notAfter = o.notAfter ?? new Date(notBefore.getTime() + (o.days ?? 365) * DAY_MS)
  // Each value as a UTF8String object: a plain string, even in the JSON form, is read for quotes and escapes.
  const attributes = [...(o.commonName === '' ? [] : [['CN', o.commonName]]), ...Object.entries(o.subject ?? {})]
  const subject = new x509.Name(attributes.map(([k = '', v = '']) => ({ [k]: [{ utf8String: v }] })))
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
  serial[0] = (serial[0] ?? 0) & 0x7f // a positive INTEGER
  const signer = o.issuer ?? { keys, x509: undefined, algorithm: kind }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject,
    issuer: o.issuer?.x509.subjectName ?? subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: signer.keys.privateKey,
    signingAlgorithm: algorithmOf(signer.algorithm),
    extensions: await extensionsOf(o, kind, keys.publicKey)
  })
  const der = Buffer.from(cert.rawData)
  return {
    cert: cert.toString('pem') + '\n',
    key: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    fingerprint: Buffer.from(await webcrypto.subtle.digest('SHA-256', der)).toString('hex'),
    x509: cert,
    keys,
    algorithm: kind
  }
}

/** A certificate and its key from PEM texts (a CA on disk that issues more); P-256 or RSA keys. */
export async function loadIssued (certPem: string, keyPem: string): Promise<Issued> {
  const algorithm: KeyKind = createPrivateKey(keyPem).asymmetricKeyType === 'rsa' ? 'RSA-2048' : 'P-256'
  const cert = new x509.X509Certificate(certPem)
  const der = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' })
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, algorithmOf(algorithm), true, ['sign'])
  const publicKey = await cert.publicKey.export(algorithmOf(algorithm), ['verify'])
  return { cert: certPem, key: keyPem, fingerprint: Buffer.from(await cert.getThumbprint('SHA-256')).toString('hex'), x509: cert, keys: { privateKey, publicKey }, algorithm }
}

/** The development set of `fleet certs dev`: a CA (10 years), a server certificate for localhost and a device's. */
export async function developmentSet (serial: string): Promise<{ ca: Issued, server: Issued, device: Issued }> {
  const ca = await issue({ commonName: 'Fleet development CA', subject: { O: 'Fleet development' }, usage: 'ca', days: 3653 })
  const server = await issue({ commonName: 'localhost', usage: 'server', issuer: ca, dns: ['localhost'], ip: ['127.0.0.1', '::1'] })
  const device = await issue({ commonName: serial, usage: 'client', issuer: ca })
  return { ca, server, device }
}
