// Device certificates and company CAs through the API (docs/api.md#device-certificates-and-company-cas): register,
// list and revoke; the CAs every TLS listener trusts; and the changes every process hears of (decision 0030).
import { FleetError } from '../../errors.js'
import type { CompanyAccess } from '../access.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Clock } from '../../ports/store.js'
import type { EventBus, EventListener } from '../../ports/events.js'
import type { CertificateEvent } from '../../ports/certificates.js'
import { normaliseFingerprint } from '../../domain/device-certificate.js'
import { page } from '../../domain/lists.js'
import { parseCertificate, type ParsedCertificate } from './parse.js'
import { caView, certificateView, type CaView, type CertificateView } from './view.js'

export interface CertificatesServiceDeps {
  repos: Pick<Repositories, 'certificates' | 'systems'>
  clock: Clock
  /** Where revocations and new CAs go once committed, to every process (a channel of its own, not the live stream's). */
  changes: EventBus<CertificateEvent>
}

interface PageQuery { offset?: number | undefined, size?: number | undefined }
type Listed<T> = { items: T[], count: number, size: number, offset: number }

/** @throws certificate.expired when its notAfter has passed */
function current (cert: ParsedCertificate, now: number): ParsedCertificate {
  if (cert.notAfter < now) throw new FleetError('certificate.expired', ['certificate', String(cert.notAfter)])
  return cert
}

/** A fingerprint of the path in the store's form; one that cannot be is unknown like any other. */
function fingerprintOf (raw: string): string {
  const f = normaliseFingerprint(raw)
  if (f === undefined) throw new FleetError('certificate.unknown', [raw.slice(0, 100)])
  return f
}

/** A system's certificates: registered on it, pinned (docs/api.md#device-certificates-and-company-cas). */
function systemCertificates ({ repos, clock, changes }: CertificatesServiceDeps) {
  /** @throws system.unknown: not a system of the context company (another company's answers the same) */
  async function systemOf (access: CompanyAccess, uid: string): Promise<void> {
    if (await repos.systems.findByUid(access.company.uid, uid) === undefined) throw new FleetError('system.unknown', [uid])
  }

  /**
   * Registers a certificate on the system (pinned: it logs the system in whoever issued it).
   * @throws system.unknown, certificate.invalid, certificate.expired, certificate.already.registered
   */
  async function registerForSystem (access: CompanyAccess, systemUid: string, body: { certificate: string }): Promise<CertificateView> {
    const now = clock.now()
    await systemOf(access, systemUid)
    const cert = current(parseCertificate(body.certificate), now)
    if (!await repos.certificates.insertDevice(cert, systemUid, now)) throw new FleetError('certificate.already.registered', [cert.fingerprint])
    changes.publish([{ kind: 'certificate.registered', fingerprint: cert.fingerprint, system: systemUid }])
    return certificateView({ ...cert, systemUid, status: 'ACTIVE', createdAt: now, revokedAt: null })
  }

  /** @throws system.unknown */
  async function listForSystem (access: CompanyAccess, systemUid: string, q: PageQuery): Promise<Listed<CertificateView>> {
    await systemOf(access, systemUid)
    const p = page(q.offset, q.size)
    const found = await repos.certificates.ofSystem(systemUid, p)
    return { items: found.items.map(certificateView), count: found.count, size: found.items.length, offset: p.offset }
  }

  /**
   * REVOKED from now on, for good: its open connections are closed (the event below). Revoking a revoked certificate
   * answers it as it is and changes nothing.
   * @throws system.unknown, certificate.unknown (not this system's)
   */
  async function revokeForSystem (access: CompanyAccess, systemUid: string, fingerprint: string): Promise<CertificateView> {
    await systemOf(access, systemUid)
    const f = fingerprintOf(fingerprint)
    const r = await repos.certificates.revokeDevice(systemUid, f, clock.now())
    if (r === undefined) throw new FleetError('certificate.unknown', [f])
    if (r.changed) changes.publish([{ kind: 'certificate.revoked', fingerprint: f, system: systemUid }])
    return certificateView(r.cert)
  }

  return { registerForSystem, listForSystem, revokeForSystem }
}

/** A company's CAs: what its devices' certificates may be signed by (docs/api.md#device-certificates-and-company-cas). */
function companyCas ({ repos, clock, changes }: CertificatesServiceDeps) {
  /**
   * Registers a CA of the context company: certificates it signed log in the company's systems that their CN or a SAN
   * names, and with autoRegister create one for a CN naming none.
   * @throws certificate.invalid (also: not a CA), certificate.expired, certificate.already.registered
   */
  async function registerCa (access: CompanyAccess, body: { certificate: string, autoRegister?: boolean | undefined }): Promise<CaView> {
    const now = clock.now()
    const cert = current(parseCertificate(body.certificate), now)
    if (!cert.isCa) throw new FleetError('certificate.invalid', ['certificate', 'not a CA certificate (its basicConstraints say CA:FALSE or nothing)'])
    const autoRegister = body.autoRegister ?? false
    if (!await repos.certificates.insertCa(cert, access.company.uid, autoRegister, now)) throw new FleetError('certificate.already.registered', [cert.fingerprint])
    changes.publish([{ kind: 'ca.registered', fingerprint: cert.fingerprint, company: access.company.uid }])
    return caView({ ...cert, companyUid: access.company.uid, status: 'ACTIVE', autoRegister, autoRegistered: 0, createdAt: now, revokedAt: null })
  }

  async function listCas (access: CompanyAccess, q: PageQuery): Promise<Listed<CaView>> {
    const p = page(q.offset, q.size)
    const found = await repos.certificates.ofCompany(access.company.uid, p)
    return { items: found.items.map(caView), count: found.count, size: found.items.length, offset: p.offset }
  }

  /**
   * REVOKED from now on, for good: no certificate it signed logs in any more, and their connections are closed.
   * Revoking a revoked CA answers it as it is and changes nothing.
   * @throws certificate.unknown (not the company's)
   */
  async function revokeCa (access: CompanyAccess, fingerprint: string): Promise<CaView> {
    const f = fingerprintOf(fingerprint)
    const r = await repos.certificates.revokeCa(access.company.uid, f, clock.now())
    if (r === undefined) throw new FleetError('certificate.unknown', [f])
    if (r.changed) changes.publish([{ kind: 'ca.revoked', fingerprint: f, company: access.company.uid }])
    return caView(r.ca)
  }

  return { registerCa, listCas, revokeCa }
}

export function createCertificatesService (deps: CertificatesServiceDeps) {
  return {
    ...systemCertificates(deps),
    ...companyCas(deps),
    /** The PEMs of every ACTIVE CA of every company: what the TLS listeners trust beside TLS_CLIENT_CA_FILE. */
    trustedCAs: async (): Promise<string[]> => await deps.repos.certificates.activeCaPems(),
    /**
     * Hears every revocation and new CA committed in any process of the service (this one included), from the moment
     * the promise resolves; resolves with the function that stops it.
     */
    onChange: async (listener: EventListener<CertificateEvent>): Promise<() => void> => await deps.changes.subscribe(listener)
  }
}

export type CertificatesService = ReturnType<typeof createCertificatesService>
