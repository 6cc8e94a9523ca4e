// Proof Key for Code Exchange (RFC 7636) for the authorization_code grant: the client sends a challenge to
// /api/oauth/authorize and the verifier it was made from to /api/oauth/token, so a code caught on its way back to
// the redirect URI is of no use without the verifier. Only S256 (§4.2): `plain` would send the verifier itself.
import { createHash, timingSafeEqual } from 'node:crypto'

/** §4.2: BASE64URL(SHA-256(verifier)) without padding is 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/
/** §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

/**
 * What is wrong with the challenge of an authorization request, or undefined when it is acceptable. A method without
 * a challenge, and a challenge without a method (§4.3: then `plain`), are refused.
 */
export function challengeProblem (challenge: string | undefined, method: string | undefined): string | undefined {
  if (challenge === undefined) return method === undefined ? undefined : 'code_challenge_method without code_challenge'
  if (method !== 'S256') return 'code_challenge_method must be S256 (plain is not supported)'
  if (!CHALLENGE.test(challenge)) return 'code_challenge must be the 43-character base64url SHA-256 of the verifier'
  return undefined
}

/** §4.6: whether SHA-256 of the verifier, base64url-encoded, is the challenge. */
export function verifierMatches (verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false
  const made = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'))
  const expected = Buffer.from(challenge)
  return made.length === expected.length && timingSafeEqual(made, expected)
}
