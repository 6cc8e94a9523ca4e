// What a TLS connection tells of the client certificate its device presented (core/domain/device-certificate.ts), for
// the logins that read it: the MQTT CONNECT and the device REST routes. The names are read from the certificate's
// ASN.1 (@peculiar/x509), never by splitting the one-line subject Node prints, in which a CN may hold a comma or an
// equals sign of its own.
import 'reflect-metadata'
import { createHash, X509Certificate } from 'node:crypto'
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls'
import { SubjectAlternativeNameExtension, X509Certificate as Asn1Certificate } from '@peculiar/x509'
import type { PresentedCertificate } from '../../core/domain/device-certificate.js'
import { recent } from './recent.js'

/** The part of a TLS socket read here (a test gives it without a handshake). */
export type PeerSocket = Pick<TLSSocket, 'authorized' | 'authorizationError' | 'getPeerX509Certificate' | 'getPeerCertificate'>

const sha256 = (der: Buffer): string => createHash('sha256').update(der).digest('hex')

// Certificates remembered (their names; which one signed which): a device's reconnection costs no ASN.1 parse and no
// signature check, which were about half of a mutual-TLS login's time on the event loop (docs/benchmarks.md "TLS").
// Answers depend on the certificates' bytes alone, keyed by their SHA-256.
const REMEMBERED = 20_000
const namesByFingerprint = recent<Names | null>(REMEMBERED)
const signatures = recent<boolean>(REMEMBERED)

type Names = Pick<PresentedCertificate, 'commonName' | 'altNames'> & { notBefore: number, notAfter: number }

/** The subject's common name and the alternative names' values, as the certificate encodes them. */
function names (der: Buffer): Names | undefined {
  try {
    const cert = new Asn1Certificate(der)
    const [commonName] = cert.subjectName.getField('CN')
    const san = cert.getExtension(SubjectAlternativeNameExtension)
    return {
      ...(commonName === undefined ? {} : { commonName }),
      altNames: san?.names.items.map((n) => n.value) ?? [],
      notBefore: cert.notBefore.getTime(),
      notAfter: cert.notAfter.getTime()
    }
  } catch {
    // OpenSSL accepted it in the handshake but the parser does not (an extension it cannot read): no names, then.
    return undefined
  }
}

/**
 * The fingerprints above the leaf, its issuer first: the chain Node built from what the device sent and the trusted
 * CAs, kept only while each certificate is really signed by the next one. Node links certificates by their names, and
 * two CAs may carry the same name; the signature check keeps a CA the device merely named (sent along) from passing
 * for the one that verified it.
 */
function issuerChain (leafDer: Buffer, leafFingerprint: string, detailed: DetailedPeerCertificate): string[] {
  const chain: string[] = []
  const seen = new Set([leafFingerprint])
  let current = { der: leafDer, fingerprint: leafFingerprint }
  let next: DetailedPeerCertificate | undefined = detailed.issuerCertificate
  while (next?.raw !== undefined) {
    const issuer = { der: next.raw, fingerprint: sha256(next.raw) }
    if (seen.has(issuer.fingerprint) || !signedBy(current, issuer)) break
    chain.push(issuer.fingerprint)
    seen.add(issuer.fingerprint)
    current = issuer
    next = next.issuerCertificate
  }
  return chain
}

interface Der { der: Buffer, fingerprint: string }

/** Whether `issuer` names and signed `cert` (remembered by both fingerprints). */
function signedBy (cert: Der, issuer: Der): boolean {
  return signatures.get(`${cert.fingerprint}<${issuer.fingerprint}`, () => {
    try {
      const child = new X509Certificate(cert.der)
      const parent = new X509Certificate(issuer.der)
      return child.checkIssued(parent) && child.verify(parent.publicKey)
    } catch {
      return false
    }
  })
}

function errorCode (err: unknown): string {
  if (typeof err === 'string') return err
  const e = err as { code?: unknown, message?: unknown } | null
  return typeof e?.code === 'string' ? e.code : typeof e?.message === 'string' ? e.message : 'UNABLE_TO_VERIFY'
}

/**
 * The certificate the client presented in the handshake; undefined when it presented none. Its issuers are given only
 * when it was verified: an unverified chain is what the device says, not what a CA vouches for.
 */
export function presentedCertificate (socket: PeerSocket): PresentedCertificate | undefined {
  const leaf = socket.getPeerX509Certificate()
  if (leaf === undefined) return undefined
  const verified = socket.authorized
  const fingerprint = sha256(leaf.raw)
  const parsed = namesByFingerprint.get(fingerprint, () => names(leaf.raw) ?? null)
  return {
    fingerprint,
    verified,
    ...(verified ? {} : { error: errorCode(socket.authorizationError) }),
    issuers: verified ? issuerChain(leaf.raw, fingerprint, socket.getPeerCertificate(true)) : [],
    ...(parsed?.commonName === undefined ? {} : { commonName: parsed.commonName }),
    altNames: parsed?.altNames ?? [],
    notBefore: parsed?.notBefore ?? Date.parse(leaf.validFrom),
    notAfter: parsed?.notAfter ?? Date.parse(leaf.validTo)
  }
}
