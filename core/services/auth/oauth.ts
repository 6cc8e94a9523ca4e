// The OAuth 2 service's vocabulary: its errors, the requests it takes and the tokens it answers.
import { sha256 } from '../../security/secrets.js'

/** An RFC 6749 error: rendered as `{error, error_description}` by the token route. */
export class OAuthError extends Error {
  constructor (readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'unsupported_response_type',
    readonly description: string, readonly status = error === 'invalid_client' ? 401 : 400) {
    super(description)
    this.name = 'OAuthError'
  }
}

/**
 * An error of an authorization request found once the client and its redirect URI are known: sent to the redirect
 * URI as `error` (RFC 6749 §4.1.2.1; RFC 7636 §4.4.1 for a missing or unsupported code challenge).
 */
export class ClientRedirectError extends OAuthError {}

export interface TokenResponse {
  access_token: string
  token_type: 'bearer'
  refresh_token: string
  expires_in: number
  scope: ''
}

/** The implicit grant's token (RFC 6749 §4.2.2): an access token alone, never a refresh token. */
export interface ImplicitToken {
  access_token: string
  token_type: 'bearer'
  expires_in: number
}

export interface TokenRequest {
  /** The caller's address: sign-in failures are throttled per address too. */
  address: string
  grantType?: string | undefined
  clientId?: string | undefined
  clientSecret?: string | undefined
  username?: string | undefined
  password?: string | undefined
  refreshToken?: string | undefined
  /** authorization_code grant */
  code?: string | undefined
  redirectUri?: string | undefined
  /** PKCE (RFC 7636 §4.5): the verifier of the challenge given at /authorize. */
  codeVerifier?: string | undefined
}

/** GET or POST /api/oauth/authorize: who asks for a code (or a token, the implicit grant), and where it goes. */
export interface AuthorizeRequest {
  /** `code` (RFC 6749 §4.1) or `token` (the implicit grant, §4.2). */
  responseType?: string | undefined
  clientId?: string | undefined
  redirectUri?: string | undefined
  /** PKCE (RFC 7636 §4.3): S256 only. */
  codeChallenge?: string | undefined
  codeChallengeMethod?: string | undefined
  /** The console client's redirect URI for this request (core/domain/console-client.ts): the console's own address. */
  consoleRedirectUri?: string | undefined
}

/** RFC 6749 §4.1.2.1: a request naming an unknown client or an unregistered redirect URI is never redirected. */
export class AuthorizeRefused extends Error {
  constructor (readonly reason: 'invalid_request' | 'invalid_client', readonly description: string) {
    super(description)
    this.name = 'AuthorizeRefused'
  }
}

/**
 * The token family of a code's exchange, found again from the code alone when it is presented a second time: the
 * code itself is deleted by its first exchange. A hash of its hash: the family names no code.
 */
export const codeFamily = (codeHash: string): string => sha256(`code:${codeHash}`)

/** An authorization code lives this long (RFC 6749 §4.1.2: short-lived, at most 10 minutes). */
export const CODE_TTL_MS = 5 * 60_000
