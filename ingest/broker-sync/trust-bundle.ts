// The trust bundle of an external Mosquitto (BROKER_CA_FILE; docs/cluster.md#device-certificates-with-the-external-broker):
// the certificates its TLS listener verifies device certificates against. Mosquitto takes a verified certificate's CN
// as the login and checks nothing else (use_identity_as_username): whatever a certificate in here can vouch for logs
// in as any client of the broker. So the bundle holds only what may name any login (the operator's CAs; the companies'
// CAs where the operator says so) and pinned certificates that can vouch for nothing but themselves under their own
// system's login: a pinned CA, or a pinned certificate whose CN is another system's serial number, would let the user
// who pinned it log in as another company's device, or as the broker's administrator.
import 'reflect-metadata'
import { BasicConstraintsExtension, KeyUsageFlags, KeyUsagesExtension, X509Certificate } from '@peculiar/x509'
import { usableLogin } from './dynsec-plan.js'

const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g

// Text outside the PEM blocks is skipped by OpenSSL: a reader of the file learns where it comes from. No date in it:
// the same certificates make the same file, so that the broker is reloaded only when they change.
const HEADER = '# Written by the fleet service (BROKER_CA_FILE): the certificates Mosquitto trusts for device logins. Do not edit.\n'

export interface BundleInput {
  /** The text of TLS_CLIENT_CA_FILE ('' without it): the operator's CAs, trusted for every login. */
  operator: string
  /** The companies' ACTIVE CAs, empty unless BROKER_COMPANY_CAS. */
  companyCas: readonly string[]
  /** The ACTIVE pinned certificates with their system's logins. */
  pinned: ReadonlyArray<{ pem: string, logins: readonly string[] }>
  /** Logins never a device's (the service's own account at the broker). */
  reserved: ReadonlySet<string>
}

export interface Bundle { text: string, counts: { operator: number, companyCas: number, pinned: number } }

/**
 * The operator's certificates, each read to be sure it is one: a block OpenSSL cannot load would stop Mosquitto at its
 * next start, every listener with it.
 * @throws naming TLS_CLIENT_CA_FILE when a block is no certificate
 */
export function operatorCertificates (text: string): string[] {
  return (text.match(BLOCK) ?? []).map((block, i) => {
    try {
      return new X509Certificate(block).toString('pem')
    } catch {
      throw new Error(`TLS_CLIENT_CA_FILE: certificate ${i + 1} of the file cannot be read`)
    }
  })
}

/**
 * Whether OpenSSL could take the certificate as an issuer of others (its check_ca): basicConstraints CA:FALSE, or
 * no basicConstraints and a keyUsage without keyCertSign, say it cannot; anything else (a CA, a version 1
 * certificate, one without either extension) is not taken.
 */
function cannotSign (cert: X509Certificate): boolean {
  const bc = cert.getExtension(BasicConstraintsExtension)
  if (bc !== null) return !bc.ca
  const ku = cert.getExtension(KeyUsagesExtension)
  return ku !== null && (ku.usages & KeyUsageFlags.keyCertSign) === 0
}

/** A pinned certificate Mosquitto may trust: it signs no other, and its CN (the login Mosquitto takes) is its system's. */
export function brokerMayPin (pem: string, logins: readonly string[], reserved: ReadonlySet<string>): boolean {
  let cert: X509Certificate
  try { cert = new X509Certificate(pem) } catch { return false }
  // Mosquitto reads the first CN of the subject.
  const [cn] = cert.subjectName.getField('CN')
  return cn !== undefined && logins.includes(cn) && usableLogin(cn, reserved) && cannotSign(cert)
}

/** The bundle's text: the operator's CAs, the companies' CAs given, then the pinned certificates it may hold. */
export function buildBundle (input: BundleInput): Bundle {
  const operator = operatorCertificates(input.operator)
  const pinned = input.pinned.filter((p) => brokerMayPin(p.pem, p.logins, input.reserved)).map((p) => p.pem)
  const pems = [...operator, ...input.companyCas, ...pinned].map((p) => `${p.trim()}\n`)
  return { text: HEADER + pems.join(''), counts: { operator: operator.length, companyCas: input.companyCas.length, pinned: pinned.length } }
}
