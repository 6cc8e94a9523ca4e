// Device password checks under the device login throttle (device-login-throttle.ts builds it; devices.service.ts and
// the M3DA module, whose devices prove their password by signing envelopes, use it).
import { isFleetError } from '../../errors.js'
import type { LoginThrottle } from '../login-throttle.js'
import type { Counter } from '../../metrics.js'

/** Wrong device passwords throttled per device and address; `throttled` counts the refusals. */
export interface DeviceLoginGuardThrottle { check: LoginThrottle['check'], throttled: Counter<'protocol'> }

/** `throttle` absent: every check runs. */
export function createLoginGuard (throttle: DeviceLoginGuardThrottle | undefined) {
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
  return guarded
}
