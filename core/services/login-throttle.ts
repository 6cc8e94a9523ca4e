// Password guessing is throttled per account and per client address (issue 8, "Password guessing is unlimited"):
// after a number of failures each further try waits, the wait doubling per failure. During a wait the credentials
// are not even checked, and the caller gets conventions.md §Errors' 429 rate.limit.exceeded with Retry-After.
import { FleetError } from '../errors.js'
import type { Clock, RateCounter, ThrottleRule } from '../ports/store.js'
import { sha256 } from '../security/secrets.js'

/** The longest wait, however many failures came before. */
export const MAX_WAIT_MS = 15 * 60_000
/** Failures are forgotten this long after the last try. */
const FORGET_MS = 24 * 3_600_000

export interface LoginThrottleOptions {
  /** Failures of one account before the first wait. */
  accountFailures: number
  /** Failures from one address before the first wait. */
  addressFailures: number
  /** The first wait; each further failure doubles it, up to MAX_WAIT_MS. */
  baseMs: number
}

/** Who tries: the account named (absent when only a client secret is checked) and the caller's address. */
export interface Attempt { account?: string | undefined, address: string }

export function createLoginThrottle (counter: Pick<RateCounter, 'attempt' | 'forgive' | 'reset'>, clock: Clock, o: LoginThrottleOptions) {
  const rule = (after: number): ThrottleRule => ({ after, baseMs: o.baseMs, maxMs: MAX_WAIT_MS, forgetMs: FORGET_MS })
  const addressKey = (a: Attempt): string => `login:address:${a.address}`
  // Hashed: the key names every account tried, existing or not, and Redis need not hold e-mail addresses.
  const accountKey = (account: string): string => `login:account:${sha256(account.trim().toLowerCase())}`

  const refuse = (waitMs: number): FleetError =>
    Object.assign(new FleetError('rate.limit.exceeded', [], { message: 'too many failed sign-ins: wait' }), { retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) })

  /**
   * Runs verify (a password or client secret check) unless the address or the account must wait. Each try counts as
   * a failure before verify runs (RateCounter.attempt), so a burst of concurrent guesses is held too; a success then
   * takes back the address's try and forgets the account's failures.
   * @throws FleetError rate.limit.exceeded (with retryAfterS) during a wait.
   */
  async function check (who: Attempt, verify: () => Promise<boolean>): Promise<boolean> {
    const now = clock.now()
    const address = addressKey(who)
    const addressWait = await counter.attempt(address, now, rule(o.addressFailures))
    if (addressWait > 0) throw refuse(addressWait)
    const account = who.account === undefined ? undefined : accountKey(who.account)
    if (account !== undefined) {
      const accountWait = await counter.attempt(account, now, rule(o.accountFailures))
      if (accountWait > 0) {
        await counter.forgive(address) // refused before any check: not a failure of this address
        throw refuse(accountWait)
      }
    }
    const ok = await verify()
    if (ok) {
      await counter.forgive(address)
      if (account !== undefined) await counter.reset(account)
    }
    return ok
  }

  return { check }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
