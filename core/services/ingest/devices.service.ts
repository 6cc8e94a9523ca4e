import { timingSafeEqual } from 'node:crypto'
import type { Clock } from '../../ports/store.js'
import type { DeviceLogin, Repositories } from '../../ports/repositories.js'
import { createGroupCommit } from './group-commit.js'
import { isStoreUnavailable } from '../../store-errors.js'
import { ipAllowed } from '../../domain/ip-filters.js'
import type { Communication } from '../../domain/system.js'
import type { DeviceProtocol } from '../../domain/device-message.js'
import type { DeviceTask } from '../../domain/device-task.js'
import type { DeviceSession } from './device-session.js'
import { isFleetError } from '../../errors.js'
import type { LoginThrottle } from '../login-throttle.js'
import type { Counter } from '../../metrics.js'
export type { DeviceSession } from './device-session.js'

export type DeviceAuthResult =
  | { ok: true, session: DeviceSession }
  | { ok: false, reason: 'device.unknown' | 'device.bad.password' | 'device.ip.forbidden' }
  /** Too many wrong passwords for this device or from this address (README "Device login throttling"). */
  | { ok: false, reason: 'device.throttled', retryAfterS: number }

/**
 * The entry of the system's `communication` whose password a transport checks ('mqtt', 'rest', 'm3da', 'msci'...):
 * a new transport names its own, nothing here lists them.
 */
export type DeviceLoginKey = keyof Communication

function sameSecret (a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

// A REST device authenticates on every request: remember good logins briefly so the store is not asked each time.
// A password or filter change takes effect within this delay.
const CACHE_MS = 5000
const CACHE_MAX = 50_000

/** One login on its way to the store, and what it found. */
interface LoginItem { identifier: string, login: DeviceLogin | undefined }

export interface DevicesServiceDeps {
  repos: Pick<Repositories, 'systems' | 'deviceTasks'>
  clock: Clock
  /** Wrong device passwords throttled per device and address (absent: none); `throttled` counts the refusals. */
  throttle?: { check: LoginThrottle['check'], throttled: Counter<'protocol'> }
}

/**
 * Device logins (conventions.md §Devices): username = gateway serial number or IMEI, password = the system's
 * `communication.<protocol>.password`; the company's deviceIpFiltering applies (fleet-api.md §Company).
 */
export function createDevicesService ({ repos, clock, throttle }: DevicesServiceDeps) {
  const cache = new Map<string, { at: number, result: DeviceAuthResult }>()

  // The logins of devices connecting together are looked up together (one statement for all that arrive while one
  // is on its way): after a reboot of the fleet, thousands reconnect within a second (bench/reboot.ts).
  const logins = createGroupCommit<LoginItem>({
    write: async (items) => {
      const found = new Map((await repos.systems.deviceLogins(items.map((i) => i.identifier))).map((l) => [l.identifier, l]))
      for (const i of items) i.login = found.get(i.identifier)
      return items.map(() => undefined)
    },
    maxBatch: 1000,
    maxPending: 50_000,
    parallel: 1,
    failsWhole: isStoreUnavailable
  })

  async function lookup (username: string, password: string, protocol: DeviceLoginKey, ip: string): Promise<DeviceAuthResult> {
    // No identifier holds a NUL byte (PostgreSQL text cannot): such a login is unknown, never a failed statement
    // (which MQTT would answer "server unavailable", and the device would retry forever).
    if (username.includes('\u0000')) return { ok: false, reason: 'device.unknown' }
    const item: LoginItem = { identifier: username, login: undefined }
    await logins.submit(item)
    const login = item.login
    if (login === undefined) return { ok: false, reason: 'device.unknown' }
    const expected = login.communication[protocol]?.password
    if (expected == null || expected === '' || !sameSecret(password, expected)) return { ok: false, reason: 'device.bad.password' }
    if (login.deviceIpFiltering && !ipAllowed(login.deviceIpFilters, ip)) return { ok: false, reason: 'device.ip.forbidden' }
    return { ok: true, session: { systemUid: login.systemUid, companyUid: login.companyUid, username } }
  }

  /**
   * Runs a password check unless the login or the address must wait after wrong passwords (login-throttle.ts: the
   * login from one address, the login from everywhere, the address for every login). Only a check answering
   * `right: false` counts; `right: undefined` (a step that proves nothing, such as an M3DA challenge) and a check that
   * throws (a store that cannot answer) count nothing, so a fleet reconnecting through an outage is never throttled
   * for it. Answers the check's value, or the wait during one.
   */
  async function guarded<T> (protocol: string, username: string, ip: string, check: () => Promise<{ right: boolean | undefined, value: T }>): Promise<{ value: T } | { retryAfterS: number }> {
    if (throttle === undefined) return { value: (await check()).value }
    let outcome: { value: T } | undefined
    let failure: { err: unknown } | undefined
    try {
      // An address not known (an external broker that does not send it) is not one address of every device: its
      // login stands for it, so that wrong passwords of some devices never make the whole fleet wait.
      await throttle.check({ address: ip === '' ? `unknown:${username}` : ip, account: username }, async () => {
        try {
          const r = await check()
          outcome = { value: r.value }
          return r.right
        } catch (err) { failure = { err }; return undefined }
      })
    } catch (err) {
      if (!isFleetError(err) || err.code !== 'rate.limit.exceeded') throw err
      throttle.throttled.inc({ protocol })
      return { retryAfterS: (err as { retryAfterS?: number }).retryAfterS ?? 1 }
    }
    if (failure !== undefined) throw failure.err
    if (outcome === undefined) throw new Error('device login checked without an outcome')
    return outcome
  }

  /** The lookup under the throttle: a right password from an address the company filters out is no wrong one. */
  async function throttled (username: string, password: string, protocol: DeviceLoginKey, ip: string): Promise<DeviceAuthResult> {
    const r = await guarded(protocol, username, ip, async () => {
      const value = await lookup(username, password, protocol, ip)
      return { right: value.ok || value.reason === 'device.ip.forbidden', value }
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
   * The system a login names, with no password: for devices an external MQTT broker has admitted (issue 14), whose
   * topics start with their login. Known logins are remembered briefly, as good logins are.
   */
  async function identify (username: string): Promise<DeviceSession | undefined> {
    const key = `identify\u0000${username}`
    const now = clock.now()
    const hit = cache.get(key)
    if (hit !== undefined && now - hit.at < CACHE_MS && hit.result.ok) return hit.result.session
    if (username.includes('\u0000')) return undefined
    const item: LoginItem = { identifier: username, login: undefined }
    await logins.submit(item)
    if (item.login === undefined) return undefined
    const session = { systemUid: item.login.systemUid, companyUid: item.login.companyUid, username }
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
  return { authenticate, guarded, identify, loginsOf, staleTasks }
}

export type DevicesService = ReturnType<typeof createDevicesService>
