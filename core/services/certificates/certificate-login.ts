// Certificate logins (docs/security.md#device-certificates): the devices service's authenticateCertificate. One
// statement reads what the login needs (CertificatesRepository.loginFacts, shared by the logins arriving together),
// login-decision.ts decides, and an autoRegister CA's verdict creates the system through the systems' own creation
// path. Every outcome is counted.
import type { PresentedCertificate } from '../../domain/device-certificate.js'
import { normaliseFingerprint } from '../../domain/device-certificate.js'
import { isFleetError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { Counter, MetricsRegistry } from '../../metrics.js'
import type { Repositories } from '../../ports/repositories.js'
import type { CertificateLoginAsk, CertificateLoginFacts } from '../../ports/certificates.js'
import { isStoreUnavailable } from '../../store-errors.js'
import { createGroupCommit } from '../../services/ingest/group-commit.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { DeviceSession } from '../../services/ingest/device-session.js'
import { insertSystem } from '../systems/write.js'
import { decide, namesOf, type CertificateLoginResult, type Verdict } from './login-decision.js'

/** Why a certificate login is refused (the transports answer them as they answer refused passwords). */
export type CertificateRefusal =
  | 'device.unknown' | 'device.ip.forbidden' | 'device.certificate.revoked' | 'device.certificate.expired' | 'device.certificate.untrusted'

export type CertificateAuthResult = { ok: true, session: DeviceSession } | { ok: false, reason: CertificateRefusal }

const REASONS: Record<Extract<Verdict, { kind: 'refuse' }>['result'], CertificateRefusal> = {
  unknown: 'device.unknown',
  auto_register_refused: 'device.unknown',
  revoked: 'device.certificate.revoked',
  expired: 'device.certificate.expired',
  untrusted: 'device.certificate.untrusted',
  other_company: 'device.certificate.untrusted',
  ip_forbidden: 'device.ip.forbidden'
}

export interface CertificateLoginDeps {
  repos: Pick<Repositories, 'certificates'>
  /** The unit of work of the systems service (with the broker's login sync, when there is one). */
  inTransaction: UnitOfWork
  clock: Clock
  /** Fingerprints of the CAs of TLS_CLIENT_CA_FILE (the TLS listeners read it): the operator's, trusted for every company. */
  operatorCAs: () => ReadonlySet<string>
  log?: Logger
  metrics?: MetricsRegistry
}

/** The counter of every certificate login, and of the password logins refused to x509-only systems. */
export function certificateLoginCounter (metrics: MetricsRegistry | undefined): Counter<'result'> {
  return metrics?.counter({
    name: 'fleet_device_certificate_logins_total',
    help: 'Device logins by client certificate, by result (accepted, auto_registered, unknown, revoked, expired, untrusted, other_company, ip_forbidden, auto_register_refused), and MQTT password logins refused to systems whose application asks for x509 (x509_required)',
    labels: ['result']
  }) ?? { inc () {} }
}

/**
 * The facts of certificate logins looked up together: the logins of devices connecting at the same time go in one
 * statement for all that arrive while one is on its way (after a reboot of a fleet, thousands within a second).
 */
function createFactsLookup (repos: CertificateLoginDeps['repos']): (ask: CertificateLoginAsk) => Promise<CertificateLoginFacts> {
  const asks = createGroupCommit<{ ask: CertificateLoginAsk, facts?: CertificateLoginFacts }>({
    write: async (items) => {
      const facts = await repos.certificates.loginFacts(items.map((i) => i.ask))
      items.forEach((i, n) => { i.facts = facts[n] })
      return items.map(() => undefined)
    },
    maxBatch: 1000,
    maxPending: 50_000,
    parallel: 1,
    failsWhole: isStoreUnavailable
  })
  return async (ask) => {
    const item: { ask: CertificateLoginAsk, facts?: CertificateLoginFacts } = { ask }
    await asks.submit(item)
    return item.facts ?? { pinned: undefined, named: [], cas: [] }
  }
}

export function createCertificateLogin (deps: CertificateLoginDeps) {
  const counted = certificateLoginCounter(deps.metrics)

  /**
   * A system in INVENTORY owned by the CA's company, its gateway's serial number the CN (docs/api.md#systems: create),
   * under the company's lock: of two logins of one new CN at once, the second finds the first's system. Answers its
   * uid, 'exists' when the CN names a system by then (in any company), 'refused' when it cannot be made (system limit).
   */
  async function register (v: Extract<Verdict, { kind: 'register' }>): Promise<string | 'exists' | 'refused'> {
    try {
      return await deps.inTransaction(async (tx) => {
        await tx.systems.lockCompany(v.companyUid)
        if (await tx.systems.commIdentifierOwner([v.commonName], null) !== undefined) return 'exists'
        const company = await tx.companies.findByUid(v.companyUid)
        if (company === undefined) return 'refused'
        const uid = await insertSystem(tx, company, { gateway: { serialNumber: v.commonName } }, deps.clock.now())
        await tx.certificates.countAutoRegistered(v.caFingerprint)
        return uid
      })
    } catch (err) {
      // Another company's CA made a system of this CN meanwhile: its login decides, as if it had been there before.
      if (isFleetError(err) && err.code === 'system.communication.identifier.already.used') return 'exists'
      if (!isFleetError(err)) throw err
      deps.log?.warn({ company: v.companyUid, code: err.code }, 'system not registered by a certificate')
      return 'refused'
    }
  }

  const lookup = createFactsLookup(deps.repos)

  async function verdictOf (p: PresentedCertificate, fingerprint: string, ip: string): Promise<Verdict> {
    const issuers = p.verified ? p.issuers.map(normaliseFingerprint).filter((f): f is string => f !== undefined) : []
    const facts = await lookup({ fingerprint, names: p.verified ? namesOf(p) : [], issuers })
    return decide(facts, p, issuers, deps.operatorCAs(), ip, deps.clock.now())
  }

  /** Never throws on a certificate: answers why it is refused. @throws only when the store cannot answer */
  async function authenticate (p: PresentedCertificate, ip: string): Promise<CertificateAuthResult> {
    const fingerprint = normaliseFingerprint(p.fingerprint)
    const result = fingerprint === undefined ? undefined : await settle(p, fingerprint, ip)
    const outcome: { result: CertificateLoginResult, session?: DeviceSession } = result ?? { result: 'unknown' }
    counted.inc({ result: outcome.result })
    if (outcome.session !== undefined) return { ok: true, session: outcome.session }
    return { ok: false, reason: REASONS[outcome.result as keyof typeof REASONS] ?? 'device.unknown' }
  }

  async function settle (p: PresentedCertificate, fingerprint: string, ip: string): Promise<{ result: CertificateLoginResult, session?: DeviceSession }> {
    let v = await verdictOf(p, fingerprint, ip)
    if (v.kind === 'register') {
      const made = await register(v)
      if (made === 'refused') return { result: 'auto_register_refused' }
      if (made !== 'exists') {
        deps.log?.info({ systemUid: made, company: v.companyUid, ca: v.caFingerprint }, 'system registered by its certificate')
        return { result: 'auto_registered', session: { systemUid: made, companyUid: v.companyUid, username: v.commonName } }
      }
      // Made by a login at the same time: decided again on what is there now (never a second registration).
      v = await verdictOf(p, fingerprint, ip)
      if (v.kind === 'register') return { result: 'auto_register_refused' }
    }
    if (v.kind === 'refuse') return { result: v.result }
    return { result: 'accepted', session: { systemUid: v.system.systemUid, companyUid: v.system.companyUid, username: v.username } }
  }

  return {
    authenticate,
    /** Counts a password login refused because the system's application asks for a certificate (mqtt-security x509). */
    passwordRefused (): void { counted.inc({ result: 'x509_required' }) }
  }
}

export type CertificateLogin = ReturnType<typeof createCertificateLogin>
