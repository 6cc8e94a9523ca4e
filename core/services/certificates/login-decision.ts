// Which system a presented certificate logs in, decided on what the store answered in one statement
// (docs/security.md#device-certificates has the order; decision 0030 says why). No I/O here: certificate-login.ts
// reads the facts, acts on the verdict (creating a system for autoRegister) and counts it.
import type { PresentedCertificate } from '../../domain/device-certificate.js'
import type { CertificateLoginFacts, CertificateLoginSystem } from '../../ports/certificates.js'
import { ipAllowed } from '../../domain/ip-filters.js'

/** How a certificate login ended, as the metric fleet_device_certificate_logins_total counts it (`result`). */
export type CertificateLoginResult =
  | 'accepted' | 'auto_registered' | 'unknown' | 'revoked' | 'expired' | 'untrusted' | 'other_company' | 'ip_forbidden'
  | 'auto_register_refused'

export type Verdict =
  /** Log in this system, as `username` (its topics' first level). */
  | { kind: 'login', system: CertificateLoginSystem, username: string }
  /** No system has the CN: an ACTIVE autoRegister CA of `companyUid` among the issuers makes one. */
  | { kind: 'register', commonName: string, companyUid: string, caFingerprint: string }
  | { kind: 'refuse', result: Exclude<CertificateLoginResult, 'accepted' | 'auto_registered'> }

/** At most this many names of one certificate are looked up: a device has a serial number and an IMEI. */
const MAX_NAMES = 16
/** No device login is longer (the gateway's identifiers); a longer name names nothing. */
const MAX_NAME_CHARS = 255

const usable = (n: string | undefined): n is string => n !== undefined && n !== '' && n.length <= MAX_NAME_CHARS && !n.includes('\u0000')

/** The names a certificate may log in as, its CN first then its SANs, each once. */
export function namesOf (p: Pick<PresentedCertificate, 'commonName' | 'altNames'>): string[] {
  return [...new Set([p.commonName, ...p.altNames].filter(usable))].slice(0, MAX_NAMES)
}

/** The CN a system created for the certificate takes as its gateway's serial number, when it can be one. */
export function registrableName (p: Pick<PresentedCertificate, 'commonName'>): string | undefined {
  return usable(p.commonName) ? p.commonName : undefined
}

const allowedFrom = (s: Pick<CertificateLoginSystem, 'deviceIpFiltering' | 'deviceIpFilters'>, ip: string): boolean =>
  !s.deviceIpFiltering || ipAllowed(s.deviceIpFilters, ip)

/** A pinned certificate: its own row decides (status, then its dates on the service's clock), whatever its chain. */
function pinnedVerdict (pinned: NonNullable<CertificateLoginFacts['pinned']>, p: PresentedCertificate, ip: string, now: number): Verdict {
  if (pinned.status !== 'ACTIVE') return { kind: 'refuse', result: 'revoked' }
  if (now < pinned.notBefore || now > pinned.notAfter) return { kind: 'refuse', result: 'expired' }
  if (!allowedFrom(pinned, ip)) return { kind: 'refuse', result: 'ip_forbidden' }
  const cn = p.commonName
  const username = cn !== undefined && (cn === pinned.serialNumber || cn === pinned.imei) ? cn : pinned.serialNumber ?? pinned.imei ?? pinned.systemUid
  return { kind: 'login', system: pinned, username }
}

/** Why none of the systems the certificate names trusts its chain. */
function distrust (facts: CertificateLoginFacts, companies: ReadonlySet<string>): Verdict {
  if (facts.cas.some((c) => c.status === 'REVOKED' && companies.has(c.companyUid))) return { kind: 'refuse', result: 'revoked' }
  if (facts.cas.some((c) => c.status === 'ACTIVE')) return { kind: 'refuse', result: 'other_company' }
  return { kind: 'refuse', result: 'untrusted' }
}

/**
 * A certificate whose chain was verified: the first system its CN (then a SAN) names whose company registered an ACTIVE
 * CA among the issuers, or any named system when an operator CA (TLS_CLIENT_CA_FILE) is among them; else, naming no
 * system at all, a system made by an autoRegister CA.
 */
function chainVerdict (facts: CertificateLoginFacts, p: PresentedCertificate, issuers: readonly string[], operatorCAs: ReadonlySet<string>, ip: string): Verdict {
  const byOperator = issuers.some((i) => operatorCAs.has(i))
  const trusting = new Set(facts.cas.filter((c) => c.status === 'ACTIVE').map((c) => c.companyUid))
  const named = namesOf(p).flatMap((name) => facts.named.filter((s) => s.identifier === name))
  if (named.length > 0) {
    const system = named.find((s) => byOperator || trusting.has(s.companyUid))
    if (system === undefined) return distrust(facts, new Set(named.map((s) => s.companyUid)))
    if (!allowedFrom(system, ip)) return { kind: 'refuse', result: 'ip_forbidden' }
    return { kind: 'login', system, username: system.identifier }
  }
  const ca = facts.cas.find((c) => c.status === 'ACTIVE' && c.autoRegister)
  const commonName = registrableName(p)
  if (ca === undefined || commonName === undefined) {
    return { kind: 'refuse', result: facts.cas.length > 0 && facts.cas.every((c) => c.status === 'REVOKED') ? 'revoked' : 'unknown' }
  }
  if (!allowedFrom(ca, ip)) return { kind: 'refuse', result: 'ip_forbidden' }
  return { kind: 'register', commonName, companyUid: ca.companyUid, caFingerprint: ca.fingerprint }
}

/**
 * The verdict on a presented certificate, in the order of docs/security.md#device-certificates: a pinned certificate
 * (registered on a system) first, accepted without a verified chain; then, only for a verified chain, the names and
 * the CAs. `issuers`: the chain's fingerprints in the store's form.
 */
export function decide (facts: CertificateLoginFacts, p: PresentedCertificate, issuers: readonly string[], operatorCAs: ReadonlySet<string>, ip: string, now: number): Verdict {
  if (facts.pinned !== undefined) return pinnedVerdict(facts.pinned, p, ip, now)
  if (!p.verified) return { kind: 'refuse', result: p.error === 'CERT_HAS_EXPIRED' ? 'expired' : 'untrusted' }
  return chainVerdict(facts, p, issuers, operatorCAs, ip)
}
