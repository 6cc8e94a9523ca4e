import { FleetError } from '../errors.js'
import type { Clock } from '../ports/store.js'
import type { Repositories, ApiClientRecord, TokenRecord } from '../ports/repositories.js'
import type { Actor, ActorMembership } from '../domain/actor.js'
import { rightsOf } from '../domain/rights.js'
import { dummyPasswordHash, randomSecret, sha256, verifyPassword } from '../security/secrets.js'
import { challengeProblem, verifierMatches } from '../security/pkce.js'
import { CONSOLE_CLIENT_ID } from '../domain/console-client.js'
import type { AccessEpoch } from './access-epoch.js'
import type { LoginThrottle } from './login-throttle.js'

const ACTOR_TTL_MS = 2000
const ACTORS_MAX = 100_000

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
const codeFamily = (codeHash: string): string => sha256(`code:${codeHash}`)

/** An authorization code lives this long (RFC 6749 §4.1.2: short-lived, at most 10 minutes). */
export const CODE_TTL_MS = 5 * 60_000

export interface AuthServiceDeps {
  repos: Pick<Repositories, 'clients' | 'users' | 'tokens' | 'memberships' | 'companies'>
  clock: Clock
  tokenTtlS: number
  refreshTtlS: number
  epoch: AccessEpoch
  throttle: LoginThrottle
  /** The cost of the hashes written (config PASSWORD_HASH_COST): unknown accounts are checked at it. */
  hashCost?: number
  /** The scrypt check of secrets.ts; tests pass a spy. */
  verifyPassword?: (password: string, encoded: string | null) => Promise<boolean>
}

/** OAuth 2 token issue, expiry and the resolution of a bearer token into an Actor (conventions.md §Authentication). */
export function createAuthService ({ repos, clock, tokenTtlS, refreshTtlS, epoch, throttle, hashCost, verifyPassword: verify = verifyPassword }: AuthServiceDeps) {
  const dummyHash = dummyPasswordHash(hashCost)
  /**
   * A password or secret check that costs one scrypt whether the account exists or not: an unknown account (or one
   * without a password) is checked against a dummy hash of the same cost, so the answer's time does not tell which
   * accounts exist.
   */
  const matches = async (secret: string, hash: string | null | undefined): Promise<boolean> =>
    (await verify(secret, hash ?? dummyHash)) && hash !== null && hash !== undefined

  async function client (req: TokenRequest): Promise<ApiClientRecord> {
    if (req.clientId === undefined) throw new OAuthError('invalid_client', 'client credentials are missing')
    if (req.clientSecret === undefined) {
      // A public client (no secret) is named only (RFC 6749 §2.1); the grant then proves who asks (PKCE).
      const found = await repos.clients.find(req.clientId)
      if (found === undefined || found.secretHash !== null) throw new OAuthError('invalid_client', 'client credentials are missing')
      return found
    }
    const { clientId, clientSecret } = req
    let found: ApiClientRecord | undefined
    // Throttled per client too: many addresses guessing one client's secret are held by its client-wide limit.
    const ok = await throttle.check({ address: req.address, client: clientId }, async () => {
      found = await repos.clients.find(clientId)
      return await matches(clientSecret, found?.secretHash)
    })
    if (!ok || found === undefined) throw new OAuthError('invalid_client', 'client authentication failed')
    return found
  }

  /** A user's password, throttled per account and address (login-throttle.ts); answers the user's uid. */
  async function signIn (username: string | undefined, password: string | undefined, address: string): Promise<string> {
    if (username === undefined || password === undefined) throw new OAuthError('invalid_request', 'username and password are required')
    let uid: string | undefined
    const ok = await throttle.check({ account: username, address }, async () => {
      const user = await repos.users.findByEmail(username)
      uid = user?.uid
      return await matches(password, user?.passwordHash)
    })
    if (!ok || uid === undefined) throw new OAuthError('invalid_grant', 'bad user credentials')
    return uid
  }

  /**
   * A new access token and refresh token: of a new family for a new grant, or of the family of the refresh token
   * `from` (undefined when that family was revoked meanwhile).
   */
  async function issue (clientId: string, userUid: string | null, from?: TokenRecord, newFamily?: string): Promise<TokenResponse | undefined> {
    const access = randomSecret(32)
    const refresh = randomSecret(32)
    const now = clock.now()
    const accessHash = sha256(access)
    const refreshHash = sha256(refresh)
    const family = from?.family ?? newFamily ?? randomSecret(16)
    const inserted = await repos.tokens.insertAll([
      { hash: accessHash, kind: 'access', clientId, userUid, pairHash: refreshHash, family, expiresAt: now + tokenTtlS * 1000 },
      { hash: refreshHash, kind: 'refresh', clientId, userUid, pairHash: accessHash, family, expiresAt: now + refreshTtlS * 1000 }
    ], now, from?.hash)
    return inserted ? { access_token: access, token_type: 'bearer', refresh_token: refresh, expires_in: tokenTtlS, scope: '' } : undefined
  }

  /** A new grant: always issued; `family` when it must be found again (codeFamily). */
  async function issueNew (clientId: string, userUid: string | null, family?: string): Promise<TokenResponse> {
    const issued = await issue(clientId, userUid, undefined, family)
    if (issued === undefined) throw new Error('tokens of a new family were not stored')
    return issued
  }

  async function passwordGrant (c: ApiClientRecord, req: TokenRequest): Promise<TokenResponse> {
    return await issueNew(c.clientId, await signIn(req.username, req.password, req.address))
  }

  /**
   * Rotation with reuse detection (RFC 9700 §4.14.2): the refresh token and the access token issued with it stop
   * working, and the new pair joins their family. A refresh token presented again (stolen, or replayed) revokes the
   * whole family: the legitimate holder and the thief both sign in again.
   */
  async function refreshGrant (c: ApiClientRecord, req: TokenRequest): Promise<TokenResponse> {
    if (req.refreshToken === undefined) throw new OAuthError('invalid_request', 'refresh_token is required')
    const found = await repos.tokens.find(sha256(req.refreshToken))
    const now = clock.now()
    if (found === undefined || found.kind !== 'refresh' || found.clientId !== c.clientId || found.expiresAt <= now) {
      throw new OAuthError('invalid_grant', 'refresh token is invalid or expired')
    }
    const replayed = new OAuthError('invalid_grant', 'refresh token was used already: every token issued from it is revoked')
    if (found.usedAt !== null || !(await repos.tokens.markUsed(found.hash, now))) {
      for (const hash of await repos.tokens.revokeFamily(found.family)) actors.delete(hash)
      throw replayed
    }
    if (found.pairHash !== null) actors.delete(found.pairHash)
    // A replay of an older token of the family, at the same moment, may revoke it before the new pair is stored.
    const issued = await issue(c.clientId, found.userUid, found)
    if (issued === undefined) throw replayed
    return issued
  }

  /**
   * The code is bound to the client and to the redirect URI given at /authorize, checked again here, and to the PKCE
   * challenge when there was one (RFC 7636 §4.6). A verifier for a code without challenge is refused too (RFC 9700
   * §2.1.1), and a public client's code always has one (authorizeTarget).
   */
  async function codeGrant (c: ApiClientRecord, req: TokenRequest): Promise<TokenResponse> {
    if (req.code === undefined) throw new OAuthError('invalid_request', 'code is required')
    const codeHash = sha256(req.code)
    const found = await repos.tokens.takeCode(codeHash)
    if (found === undefined) {
      // Used already, or never issued (RFC 6749 §4.1.2): whoever presents it again may have stolen it, so the tokens
      // of its first exchange are revoked; for a code never issued there are none.
      for (const hash of await repos.tokens.revokeFamily(codeFamily(codeHash))) actors.delete(hash)
    }
    if (found === undefined || found.expiresAt <= clock.now() || found.clientId !== c.clientId) {
      throw new OAuthError('invalid_grant', 'authorization code is invalid, used or expired')
    }
    if (req.redirectUri !== found.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request')
    if (found.codeChallenge === null) {
      if (req.codeVerifier !== undefined || c.secretHash === null) throw new OAuthError('invalid_grant', 'the authorization request had no code_challenge')
    } else if (req.codeVerifier === undefined || !verifierMatches(req.codeVerifier, found.codeChallenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier is missing or does not match the code_challenge')
    }
    return await issueNew(c.clientId, found.userUid, codeFamily(codeHash))
  }

  // The first start binds its ports before it creates the first company, administrator and client (bin/serve.ts): a
  // token request meanwhile would be refused as if its secret were wrong. Asked until it holds, then never again.
  let started = false
  async function firstStartDone (): Promise<void> {
    started ||= await repos.companies.any()
    if (!started) {
      throw Object.assign(new FleetError('service.unavailable', [], { message: 'the first start is creating the first company: try again' }), { retryAfterS: 1 })
    }
  }

  /** @throws OAuthError with the RFC 6749 code; FleetError service.unavailable before the first company exists. */
  async function token (req: TokenRequest): Promise<TokenResponse> {
    await firstStartDone()
    const grant = req.grantType
    if (grant === undefined) throw new OAuthError('invalid_request', 'grant_type is required')
    if (!['password', 'client_credentials', 'refresh_token', 'authorization_code'].includes(grant)) {
      throw new OAuthError('unsupported_grant_type', `grant_type ${grant} is not supported`)
    }
    const c = await client(req)
    // A public client holds no secret that could stand for the user or itself: the code grant (with PKCE) and the
    // refresh of what it gave only.
    if (c.secretHash === null && grant !== 'authorization_code' && grant !== 'refresh_token') {
      throw new OAuthError('unauthorized_client', `a public client may not use grant_type ${grant}`)
    }
    if (grant === 'password') return await passwordGrant(c, req)
    if (grant === 'refresh_token') return await refreshGrant(c, req)
    if (grant === 'authorization_code') return await codeGrant(c, req)
    return await issueNew(c.clientId, c.userUid) // client_credentials acts as the client's owner
  }

  /**
   * The client and redirect URI of an authorization request. The redirect URI must be one the client registered;
   * it may be left out when the client registered exactly one. The console client's redirect URI is the console's own
   * address (core/domain/console-client.ts). A public client must send a PKCE challenge with response_type=code.
   * @throws AuthorizeRefused (never redirected); ClientRedirectError unsupported_response_type or invalid_request (a
   * missing or unsupported code challenge), sent to the redirect URI
   */
  async function authorizeTarget (req: AuthorizeRequest): Promise<{ clientId: string, redirectUri: string, responseType: 'code' | 'token' }> {
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
  async function authorize (req: AuthorizeRequest & { address: string, username?: string | undefined, password?: string | undefined }):
  Promise<{ redirectUri: string } & ({ code: string } | { token: ImplicitToken })> {
    await firstStartDone()
    const target = await authorizeTarget(req)
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

  /** Ends the token (and its pair). Unknown tokens are ignored: logging out twice is not an error. */
  async function expire (accessToken: string): Promise<void> {
    actors.delete(sha256(accessToken))
    await repos.tokens.revoke(sha256(accessToken))
  }

  // A token resolves to the same actor for a short while: the store is asked once per token and ACTOR_TTL_MS
  // rather than on every call. A logout in this process takes effect at once; a change of rights, or a logout
  // through another process, within ACTOR_TTL_MS.
  const actors = new Map<string, { actor: Omit<Actor, 'ip'>, until: number, epoch: number }>()

  /** @throws FleetError invalid_token when the token is unknown, expired or a refresh token. */
  async function authenticate (accessToken: string, ip: string): Promise<Actor> {
    const hash = sha256(accessToken)
    const now = clock.now()
    const hit = actors.get(hash)
    if (hit !== undefined && hit.until > now && hit.epoch === epoch.current()) return { ...hit.actor, ip }
    const at = epoch.current()
    const actor = await resolve(hash, ip)
    if (actors.size >= ACTORS_MAX) actors.clear()
    actors.set(hash, { actor, until: Math.min(now + ACTOR_TTL_MS, tokenExpiry.get(hash) ?? now), epoch: at })
    tokenExpiry.delete(hash)
    return actor
  }

  const tokenExpiry = new Map<string, number>()

  async function resolve (hash: string, ip: string): Promise<Actor> {
    const found = await repos.tokens.find(hash)
    if (found === undefined || found.kind !== 'access' || found.expiresAt <= clock.now()) {
      throw new FleetError('invalid_token', [], { message: 'the access token is invalid or expired' })
    }
    tokenExpiry.set(hash, found.expiresAt)
    if (found.userUid === null) {
      return { userUid: null, clientId: found.clientId, ip, homeCompanyUid: null, memberships: new Map() }
    }
    const user = await repos.users.findByUid(found.userUid)
    const memberships = new Map<string, ActorMembership>()
    for (const m of await repos.memberships.forUser(found.userUid)) {
      memberships.set(m.companyUid, {
        companyName: m.companyName,
        administrator: m.administrator,
        profile: m.profile === null ? null : { uid: m.profile.uid, name: m.profile.name },
        rights: new Set(rightsOf(m.profile?.rights ?? [], m.administrator))
      })
    }
    return { userUid: found.userUid, clientId: found.clientId, ip, homeCompanyUid: user?.companyUid ?? null, memberships }
  }

  return { token, expire, authenticate, authorizeTarget, authorize }
}

export type AuthService = ReturnType<typeof createAuthService>
