// Envelope authentication (docs/protocols/m3da.md): mac = HMAC-H(KX, X ‖ N), X the outer payload as sent
// (after encryption), N the current nonce. RFC 2104 HMAC, as node:crypto computes it.
import { createHmac, timingSafeEqual } from 'node:crypto'

export type MacAlgorithm = 'hmac-md5' | 'hmac-sha1'
export const MAC_ALGORITHMS: readonly MacAlgorithm[] = ['hmac-md5', 'hmac-sha1']

const HASH: Record<MacAlgorithm, 'md5' | 'sha1'> = { 'hmac-md5': 'md5', 'hmac-sha1': 'sha1' }

export function isMacAlgorithm (value: unknown): value is MacAlgorithm {
  return value === 'hmac-md5' || value === 'hmac-sha1'
}

/** The algorithm a MAC was made with, from its length (16 → MD5, 20 → SHA-1); null for any other length. */
export function macAlgorithmOf (mac: Uint8Array): MacAlgorithm | null {
  if (mac.length === 16) return 'hmac-md5'
  if (mac.length === 20) return 'hmac-sha1'
  return null
}

/** HMAC-H(key, x ‖ nonce). */
export function computeMac (algorithm: MacAlgorithm, key: Buffer, x: Uint8Array, nonce: Uint8Array): Buffer {
  return createHmac(HASH[algorithm], key).update(x).update(nonce).digest()
}

/**
 * Checks a received MAC in constant time; the algorithm follows from its length ("the HMAC algorithm
 * follows from the MAC's length"). Answers the algorithm when it matches, null otherwise (wrong length included).
 */
export function verifyMac (key: Buffer, x: Uint8Array, nonce: Uint8Array, mac: Uint8Array): MacAlgorithm | null {
  const algorithm = macAlgorithmOf(mac)
  if (algorithm === null) return null
  return timingSafeEqual(computeMac(algorithm, key, x, nonce), mac) ? algorithm : null
}
