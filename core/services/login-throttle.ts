// Password and client secret guessing is throttled (docs/security.md#sign-in-throttling): after a number of failures
// each further try waits, the wait doubling per failure. During a wait the credentials are not even checked, and the
// caller gets 429 rate.limit.exceeded with Retry-After.
//
// The guesser is throttled, not the owner: the low limit counts the failures on one account (or client) from one
// address, another counts every failure of one address, and the limit on the account (or client) from all addresses
// together is much higher, so that guesses from elsewhere do not lock its owner out. An administrator clears an
// account's counters with `fleet admin unlock` (sign-in-unlock.ts): its keys then start afresh.
import { FleetError } from '../errors.js'
import type { Clock, RateCounter, ThrottleRule } from '../ports/store.js'
import type { SignInUnlocksRepository } from '../ports/sign-in-unlocks.js'
import { sha256 } from '../security/secrets.js'

/** The longest wait, however many failures came before. */
export const MAX_WAIT_MS = 15 * 60_000
/** Failures are forgotten this long after the last try. */
const FORGET_MS = 24 * 3_600_000

export interface LoginThrottleOptions {
  /** Failures of one account (or client) from one address before the first wait. */
  accountAddressFailures: number
  /** Failures of one account (or client) from all addresses together before the first wait. */
  accountFailures: number
  /** Failures from one address, whatever the account or client, before the first wait. */
  addressFailures: number
  /** The first wait; each further failure doubles it, up to MAX_WAIT_MS. */
  baseMs: number
  /** The counters' key prefix: device logins (devices.service.ts) count apart from people's sign-ins. Default `login`. */
  keyPrefix?: string
  /**
   * The address's counter counts a try only once it failed: a fleet behind one NAT address logs in all at once after
   * a restart of the service, and counting those tries before their check would refuse the right passwords of the
   * devices past the limit. Default false (people's sign-ins: a burst of guesses from one address is held at once).
   */
  addressCountsFailuresOnly?: boolean
}

/**
 * Who tries: the caller's address, and the account named (a password) or the client (a client secret); neither when
 * nothing but the address is known.
 */
export interface Attempt { address: string, account?: string | undefined, client?: string | undefined }

/** The key of an account in the counters and in sign_in_unlocks: hashed, so neither holds e-mail addresses. */
export const accountHash = (account: string): string => sha256(account.trim().toLowerCase())

interface Counted {
  key: string
  after: number
  /**
   * Counted as a failure before the check (a burst of concurrent guesses is held too), or only once it failed: the
   * counters of a client or of a whole account, which concurrent successes from many places must not trip.
   */
  before: boolean
  /** A success forgets every failure under it (the owner's own typos). */
  resetOnSuccess: boolean
}

export function createLoginThrottle (counter: Pick<RateCounter, 'attempt' | 'waiting' | 'forgive' | 'reset'>, clock: Clock, o: LoginThrottleOptions,
  unlocks?: Pick<SignInUnlocksRepository, 'unlockedAt'>) {
  const rule = (after: number): ThrottleRule => ({ after, baseMs: o.baseMs, maxMs: MAX_WAIT_MS, forgetMs: FORGET_MS })
  const prefix = o.keyPrefix ?? 'login'

  /** The counters of an attempt, the address's first: a refusal by a later one takes back the earlier ones. */
  async function countersOf (who: Attempt): Promise<Counted[]> {
    const counted: Counted[] = [{ key: `${prefix}:address:${who.address}`, after: o.addressFailures, before: o.addressCountsFailuresOnly !== true, resetOnSuccess: false }]
    if (who.account !== undefined) {
      const hash = accountHash(who.account)
      const subject = `${prefix}:account:${hash}:${(await unlocks?.unlockedAt(hash)) ?? 0}`
      counted.push({ key: `${subject}:from:${who.address}`, after: o.accountAddressFailures, before: true, resetOnSuccess: true })
      counted.push({ key: subject, after: o.accountFailures, before: false, resetOnSuccess: false })
    } else if (who.client !== undefined) {
      // A client's secret is sent by programs, several requests at once from one place being ordinary.
      const subject = `${prefix}:client:${sha256(who.client)}`
      counted.push({ key: `${subject}:from:${who.address}`, after: o.accountAddressFailures, before: false, resetOnSuccess: true })
      counted.push({ key: subject, after: o.accountFailures, before: false, resetOnSuccess: false })
    }
    return counted
  }

  const refuse = (waitMs: number): FleetError =>
    Object.assign(new FleetError('rate.limit.exceeded', [], { message: 'too many failed sign-ins: wait' }), { retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) })

  /**
   * Runs verify (a password or client secret check) unless one of the attempt's counters must wait. A try counts as
   * a failure before verify runs where Counted.before says so (RateCounter.attempt), and is taken back on success;
   * the other counters count it once it failed. A success forgets the failures of this account from this address.
   * verify answering undefined proved nothing either way (an M3DA challenge, devices.service.ts): the try is taken back.
   * @throws FleetError rate.limit.exceeded (with retryAfterS) during a wait.
   */
  async function check<R extends boolean | undefined = boolean> (who: Attempt, verify: () => Promise<R>): Promise<R> {
    const now = clock.now()
    const counters = await countersOf(who)
    const taken: Counted[] = []
    for (const c of counters) {
      const wait = c.before ? await counter.attempt(c.key, now, rule(c.after)) : await counter.waiting(c.key, now)
      if (wait > 0) {
        for (const t of taken) await counter.forgive(t.key) // refused before any check: not a failure
        throw refuse(wait)
      }
      if (c.before) taken.push(c)
    }
    const ok = await verify()
    for (const c of counters) {
      if (ok === undefined) { if (c.before) await counter.forgive(c.key) } else if (ok && c.resetOnSuccess) await counter.reset(c.key)
      else if (ok && c.before) await counter.forgive(c.key)
      else if (!ok && !c.before) await counter.attempt(c.key, now, rule(c.after))
    }
    return ok
  }

  return { check }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
