import { timingSafeEqual } from 'node:crypto'
import type { Clock } from '../../ports/store.js'
import type { DeviceLogin, Repositories } from '../../ports/repositories.js'
import { ipAllowed } from '../../domain/ip-filters.js'
import type { Communication } from '../../domain/system.js'
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { DeviceTask } from '../../domain/device-task.js'
import type { DeviceSession } from './device-session.js'
import { createLoginLookup } from './device-login-lookup.js'
import { createLoginGuard, type DeviceLoginGuardThrottle } from './device-login-guard.js'
import type { PresentedCertificate } from '../../domain/device-certificate.js'
import type { CertificateLogin, CertificateRefusal } from '../certificates/certificate-login.js'
export type { DeviceSession } from './device-session.js'

export type DeviceAuthResult =
  | { ok: true, session: DeviceSession }
  | { ok: false, reason: 'device.unknown' | 'device.bad.password' | 'device.ip.forbidden' }
  /** An MQTT password for a system whose application asks for a certificate (`mqtt-security` x509). */
  | { ok: false, reason: 'device.x509.required' }
  /** docs/security.md#device-certificates: a certificate refused (revoked, expired, under no CA of the system's company). */
  | { ok: false, reason: CertificateRefusal }
  /** Too many wrong passwords for this device or from this address (docs/security.md#device-login-throttling). */
  | { ok: false, reason: 'device.throttled', retryAfterS: number }

/**
 * The entry of the system's `communication` whose password a transport checks ('mqtt', 'rest', 'm3da', 'msci'...):
 * a new transport names its own, nothing here lists them (an entry without a password, LwM2M's PSK, is none).
 */
export type DeviceLoginKey = { [K in keyof Communication]-?: NonNullable<Communication[K]> extends { password?: unknown } ? K : never }[keyof Communication]

function sameSecret (a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

// A REST device authenticates on every request: remember good logins briefly so the store is not asked each time.
// A password or filter change takes effect within this delay.
const CACHE_MS = 5000
const CACHE_MAX = 50_000

/** A password login of a known system: the password, the company's device IP filters, and the system's own rules. */
function passwordVerdict (login: DeviceLogin, at: { username: string, password: string, protocol: DeviceLoginKey, ip: string }, certificates: CertificateLogin | undefined): DeviceAuthResult {
  // Refused before the password is compared: no password logs such a system in over MQTT, so none is being guessed.
  if (at.protocol === 'mqtt' && login.mqttX509 === true) {
    certificates?.passwordRefused()
    return { ok: false, reason: 'device.x509.required' }
  }
  const expected = login.communication[at.protocol]?.password
  if (expected == null || expected === '' || !sameSecret(at.password, expected)) return { ok: false, reason: 'device.bad.password' }
  if (login.deviceIpFiltering && !ipAllowed(login.deviceIpFilters, at.ip)) return { ok: false, reason: 'device.ip.forbidden' }
  return { ok: true, session: { systemUid: login.systemUid, companyUid: login.companyUid, username: at.username } }
}

/**
 * A device that presented a client certificate (docs/security.md#device-certificates): the certificate replaces the
 * username and password, whatever the transport (`protocol`, as for authenticate). Never throws on a certificate.
 */
function certificateAuthenticator (certificates: CertificateLogin | undefined) {
  return async (presented: PresentedCertificate, protocol: DeviceLoginKey, ip: string): Promise<DeviceAuthResult> =>
    certificates === undefined ? { ok: false, reason: 'device.unknown' } : await certificates.authenticate(presented, ip)
}

export interface DevicesServiceDeps {
  repos: Pick<Repositories, 'systems' | 'deviceTasks'>
  clock: Clock
  /** Wrong device passwords throttled per device and address (absent: none); `throttled` counts the refusals. */
  throttle?: DeviceLoginGuardThrottle
  /** Certificate logins (core/services/certificates/certificate-login.ts); absent: every certificate is unknown. */
  certificates?: CertificateLogin
}

/**
 * Device logins (docs/devices.md): username = gateway serial number or IMEI, password = the system's
 * `communication.<protocol>.password`; the company's deviceIpFiltering applies (docs/api.md#users-and-companies).
 */
export function createDevicesService ({ repos, clock, throttle, certificates }: DevicesServiceDeps) {
  const cache = new Map<string, { at: number, result: DeviceAuthResult }>()

  const logins = createLoginLookup(repos)

  async function lookup (username: string, password: string, protocol: DeviceLoginKey, ip: string): Promise<DeviceAuthResult> {
    // No identifier holds a NUL byte (PostgreSQL text cannot): such a login is unknown, never a failed statement
    // (which MQTT would answer "server unavailable", and the device would retry forever).
    if (username.includes('\u0000')) return { ok: false, reason: 'device.unknown' }
    const login = await logins.find(username)
    if (login === undefined) return { ok: false, reason: 'device.unknown' }
    return passwordVerdict(login, { username, password, protocol, ip }, certificates)
  }

  const guarded = createLoginGuard(throttle)

  /** The lookup under the throttle: a right password from an address the company filters out is no wrong one. */
  async function throttled (username: string, password: string, protocol: DeviceLoginKey, ip: string): Promise<DeviceAuthResult> {
    const r = await guarded(protocol, username, ip, async () => {
      const value = await lookup(username, password, protocol, ip)
      return { right: value.ok || value.reason === 'device.ip.forbidden' || value.reason === 'device.x509.required', value }
    })
    return 'value' in r ? r.value : { ok: false, reason: 'device.throttled', retryAfterS: r.retryAfterS }
  }

  /** Never throws on bad credentials: answers why the login is refused. */
  async function authenticate (username: string, password: string, protocol: DeviceLoginKey, ip: string): Promise<DeviceAuthResult> {
    const key = `${protocol}\u0000${ip}\u0000${username}\u0000${password}`
    const now = clock.now()
    const hit = cache.get(key)
    if (hit !== undefined && now - hit.at < CACHE_MS) return hit.result
    const result = await throttled(username, password, protocol, ip)
    if (result.ok) {
      if (cache.size >= CACHE_MAX) cache.clear()
      cache.set(key, { at: now, result })
    }
    return result
  }

  /**
   * The system a login names, with no password: for devices an external MQTT broker has admitted, whose
   * topics start with their login. Known logins are remembered briefly, as good logins are.
   */
  async function identify (username: string): Promise<DeviceSession | undefined> {
    const key = `identify\u0000${username}`
    const now = clock.now()
    const hit = cache.get(key)
    if (hit !== undefined && now - hit.at < CACHE_MS && hit.result.ok) return hit.result.session
    if (username.includes('\u0000')) return undefined
    const login = await logins.find(username)
    if (login === undefined) return undefined
    const session = { systemUid: login.systemUid, companyUid: login.companyUid, username }
    if (cache.size >= CACHE_MAX) cache.clear()
    cache.set(key, { at: now, result: { ok: true, session } })
    return session
  }

  /** The logins (serial number, IMEI) of these systems: where an external broker's tasks topics are. */
  async function loginsOf (systemUids: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>()
    for (const r of await repos.systems.commIdentifiersOf(systemUids)) out.set(r.systemUid, [...(out.get(r.systemUid) ?? []), r.identifier])
    return out
  }

  /** Tasks sent over `protocol` at least `olderThanMs` ago and not answered, sent again now (DeviceTasksRepository.takeStale). */
  async function staleTasks (protocol: DeviceProtocol, olderThanMs: number, systems: number): Promise<Array<{ systemUid: string, tasks: DeviceTask[] }>> {
    const now = clock.now()
    return await repos.deviceTasks.takeStale(protocol, now - olderThanMs, now, systems)
  }

  // `guarded`: for a protocol whose devices prove their password otherwise than by a login (M3DA signs its envelopes:
  // ingest/m3da). What a protocol keeps of its own is its module's (ingest/protocol-module.ts), not this service's.
  return { authenticate, authenticateCertificate: certificateAuthenticator(certificates), guarded, identify, loginsOf, staleTasks }
}

export type DevicesService = ReturnType<typeof createDevicesService>
