// The authorization endpoint (/api/oauth/authorize): which client and redirect URI a request names, and what the
// sign-in page's credentials give it: a code (response_type=code) or an access token alone (the implicit grant).
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import { randomSecret, sha256 } from '../../security/secrets.js'
import { challengeProblem } from '../../security/pkce.js'
import { CONSOLE_CLIENT_ID } from '../../domain/console-client.js'
import { AuthorizeRefused, ClientRedirectError, CODE_TTL_MS, type AuthorizeRequest, type ImplicitToken } from './oauth.js'
import type { Credentials } from './credentials.js'

export interface AuthorizeDeps {
  repos: Pick<Repositories, 'clients' | 'tokens'>
  clock: Clock
  tokenTtlS: number
  signIn: Credentials['signIn']
  firstStartDone: () => Promise<void>
}

export interface AuthorizeTarget { clientId: string, redirectUri: string, responseType: 'code' | 'token' }

/**
 * The client and redirect URI of an authorization request. The redirect URI must be one the client registered;
 * it may be left out when the client registered exactly one. The console client's redirect URI is the console's own
 * address (core/domain/console-client.ts). A public client must send a PKCE challenge with response_type=code.
 * @throws AuthorizeRefused (never redirected); ClientRedirectError unsupported_response_type or invalid_request (a
 * missing or unsupported code challenge), sent to the redirect URI
 */
export async function authorizeTarget (repos: Pick<Repositories, 'clients'>, req: AuthorizeRequest): Promise<AuthorizeTarget> {
  if (req.clientId === undefined) throw new AuthorizeRefused('invalid_request', 'client_id is required')
  const c = await repos.clients.find(req.clientId)
  if (c === undefined) throw new AuthorizeRefused('invalid_client', 'unknown client')
  if (c.clientId === CONSOLE_CLIENT_ID && req.consoleRedirectUri === undefined && req.redirectUri === undefined) {
    throw new AuthorizeRefused('invalid_request', 'the console is reached at an address the service does not know as its own: set PUBLIC_URL to it')
  }
  const allowed = c.clientId === CONSOLE_CLIENT_ID && req.consoleRedirectUri !== undefined ? [...c.redirectUris, req.consoleRedirectUri] : c.redirectUris
  const redirectUri = req.redirectUri ?? (allowed.length === 1 ? allowed[0] : undefined)
  if (redirectUri === undefined || !allowed.includes(redirectUri)) {
    throw new AuthorizeRefused('invalid_request', 'redirect_uri is missing or not registered for this client')
  }
  const responseType = req.responseType
  if (responseType !== 'code' && responseType !== 'token') {
    throw new ClientRedirectError('unsupported_response_type', 'response_type must be code or token')
  }
  if (responseType === 'token' && c.implicitGrant !== true) {
    throw new ClientRedirectError('unauthorized_client', 'this client is not registered for the implicit grant (response_type=token)')
  }
  if (responseType === 'code') {
    const problem = challengeProblem(req.codeChallenge, req.codeChallengeMethod) ??
      (c.secretHash === null && req.codeChallenge === undefined ? 'a public client must send code_challenge (PKCE, S256)' : undefined)
    if (problem !== undefined) throw new ClientRedirectError('invalid_request', problem)
  }
  return { clientId: c.clientId, redirectUri, responseType }
}

/**
 * The user's credentials for a code (response_type=code) or, for the implicit grant (response_type=token, RFC 6749
 * §4.2: native applications), an access token alone, sent to the client's registered redirect URI.
 * @throws AuthorizeRefused, OAuthError unsupported_response_type (as authorizeTarget); invalid_request, invalid_grant
 * (bad credentials); FleetError rate.limit.exceeded (login-throttle.ts)
 */
export async function authorize ({ repos, clock, tokenTtlS, signIn, firstStartDone }: AuthorizeDeps, req: AuthorizeRequest & { address: string, username?: string | undefined, password?: string | undefined }):
Promise<{ redirectUri: string } & ({ code: string } | { token: ImplicitToken })> {
  await firstStartDone()
  const target = await authorizeTarget(repos, req)
  const userUid = await signIn(req.username, req.password, req.address)
  const now = clock.now()
  if (target.responseType === 'token') {
    const access = randomSecret(32)
    await repos.tokens.insertAll([{ hash: sha256(access), kind: 'access', clientId: target.clientId, userUid, pairHash: null, family: randomSecret(16), expiresAt: now + tokenTtlS * 1000 }], now)
    return { redirectUri: target.redirectUri, token: { access_token: access, token_type: 'bearer', expires_in: tokenTtlS } }
  }
  const code = randomSecret(32)
  await repos.tokens.insertCode({
    hash: sha256(code), clientId: target.clientId, userUid, redirectUri: target.redirectUri, expiresAt: now + CODE_TTL_MS, codeChallenge: req.codeChallenge ?? null
  }, now)
  return { code, redirectUri: target.redirectUri }
}
