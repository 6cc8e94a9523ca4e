// The certificates' port (docs/security.md#device-certificates): the certificates registered on systems and the CAs
// registered by companies, one fingerprint once across the service; what a certificate login reads in one statement;
// and the changes every process must hear of (revocations, new CAs) to close connections and refresh TLS contexts.
import type { IpFilters } from '../domain/company.js'

export type CertificateStatus = 'ACTIVE' | 'REVOKED'

/** What the service keeps of a certificate it parsed (core/services/certificates/parse.ts). */
export interface CertificateFacts {
  /** SHA-256 of the DER, lowercase hexadecimal (core/domain/device-certificate.ts normaliseFingerprint). */
  fingerprint: string
  pem: string
  subject: string
  issuer: string
  notBefore: number
  notAfter: number
}

export interface DeviceCertificate extends CertificateFacts {
  systemUid: string
  status: CertificateStatus
  createdAt: number
  revokedAt: number | null
}

export interface CompanyCa extends CertificateFacts {
  companyUid: string
  status: CertificateStatus
  autoRegister: boolean
  /** How many systems certificates under it created (autoRegister). */
  autoRegistered: number
  createdAt: number
  revokedAt: number | null
}

/** A system a certificate login may name, with what the login checks of its company. */
export interface CertificateLoginSystem {
  systemUid: string
  companyUid: string
  /** The gateway's serial number and IMEI (the device's logins, hence its MQTT topics' first level). */
  serialNumber: string | null
  imei: string | null
  deviceIpFiltering: boolean
  deviceIpFilters: IpFilters
}

/** What a certificate login looks up: the presented fingerprint, the names it may log in as, its verified issuers. */
export interface CertificateLoginAsk { fingerprint: string, names: readonly string[], issuers: readonly string[] }

/** Everything a certificate login decides on, read in one statement (CertificatesRepository.loginFacts). */
export interface CertificateLoginFacts {
  /** The certificate registered on a system under the presented fingerprint, if any. */
  pinned: (CertificateLoginSystem & { status: CertificateStatus, notBefore: number, notAfter: number }) | undefined
  /** The systems whose serial number or IMEI is one of the names asked (the CN, the SANs). */
  named: Array<CertificateLoginSystem & { identifier: string }>
  /** The registered CAs among the issuers asked, whatever their status, with their company's device IP filters. */
  cas: Array<Pick<CompanyCa, 'fingerprint' | 'companyUid' | 'status' | 'autoRegister'> & { deviceIpFiltering: boolean, deviceIpFilters: IpFilters }>
}

export interface CertificatesRepository {
  /** @returns false when the fingerprint is already registered, as a system's certificate or as a CA */
  insertDevice (cert: CertificateFacts, systemUid: string, at: number): Promise<boolean>
  /** @returns false when the fingerprint is already registered, as a system's certificate or as a CA */
  insertCa (cert: CertificateFacts, companyUid: string, autoRegister: boolean, at: number): Promise<boolean>
  /** The system's certificates, oldest first, and how many it has. */
  ofSystem (systemUid: string, page: { offset: number, size: number }): Promise<{ items: DeviceCertificate[], count: number }>
  /** The company's CAs, oldest first, and how many it has. */
  ofCompany (companyUid: string, page: { offset: number, size: number }): Promise<{ items: CompanyCa[], count: number }>
  /** Marks the system's certificate REVOKED at `at` (kept as it was when already revoked); undefined: not the system's. */
  revokeDevice (systemUid: string, fingerprint: string, at: number): Promise<{ cert: DeviceCertificate, changed: boolean } | undefined>
  /** Marks the company's CA REVOKED at `at` (kept as it was when already revoked); undefined: not the company's. */
  revokeCa (companyUid: string, fingerprint: string, at: number): Promise<{ ca: CompanyCa, changed: boolean } | undefined>
  /** Counts one more system a CA created. */
  countAutoRegistered (fingerprint: string): Promise<void>
  /** The PEMs of every ACTIVE CA of every company, oldest first. */
  activeCaPems (): Promise<string[]>
  /**
   * Every ACTIVE certificate pinned on a system, oldest first, with that system's logins (its comm identifiers: an
   * external broker takes a certificate's CN as the login, docs/cluster.md#device-certificates-with-the-external-broker).
   */
  activePinned (): Promise<Array<{ pem: string, logins: string[] }>>
  /** What a certificate login needs, in one indexed statement. */
  /** What each login asked needs, in the order asked, in one statement. */
  loginFacts (asks: readonly CertificateLoginAsk[]): Promise<CertificateLoginFacts[]>
}

/**
 * A change that every process must act on (decision 0030): connections of a revoked certificate, or under a revoked
 * CA, are closed; a CA registered or revoked changes what the TLS listeners trust (CertificatesService.trustedCAs);
 * a certificate pinned or revoked changes what an external broker trusts (docs/cluster.md#device-certificates-with-the-external-broker).
 * Published after the commit on a channel of its own, never on the live stream's.
 */
export type CertificateEvent =
  | { kind: 'certificate.registered', fingerprint: string, system: string }
  | { kind: 'certificate.revoked', fingerprint: string, system: string }
  | { kind: 'ca.registered', fingerprint: string, company: string }
  | { kind: 'ca.revoked', fingerprint: string, company: string }
