// Observe (RFC 7641): option values, the sequence freshness rule, and notification matching.
import type { CoapMessage } from './types.js'

/** §2: Observe in a GET: 0 registers, 1 deregisters. */
export const OBSERVE_REGISTER = 0
export const OBSERVE_DEREGISTER = 1
/** §4.4: sequence numbers are 24 bits. */
export const OBSERVE_MODULUS = 1 << 24
const HALF = 1 << 23
/** §3.4: after 128 s a notification is newer whatever its number. */
export const OBSERVE_REORDER_WINDOW_MS = 128_000

/**
 * §3.4: is notification (v2 received at t2) newer than the newest so far (v1 at t1)? Numbers wrap at 2^24; the
 * window of 2^23 decides which side of the wrap is "after"; 128 s without news makes anything newer.
 */
export function isFresher (v1: number, t1: number, v2: number, t2: number): boolean {
  return (v1 < v2 && v2 - v1 < HALF) || (v1 > v2 && v1 - v2 > HALF) || t2 > t1 + OBSERVE_REORDER_WINDOW_MS
}

/** The next sequence number a server sends (§4.4: increasing, modulo 2^24). */
export const nextObserveSeq = (seq: number): number => (seq + 1) % OBSERVE_MODULUS

/** A notification belongs to an observation when it comes from the same peer with the same token (§3.2). */
export function notificationMatches (observation: { peer: string, token: Buffer }, peer: string, msg: Pick<CoapMessage, 'token'>): boolean {
  return observation.peer === peer && observation.token.equals(msg.token)
}
