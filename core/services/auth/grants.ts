// The token endpoint's grants (RFC 6749): password, client_credentials, refresh_token (rotated, with reuse
// detection) and authorization_code (bound to its client, redirect URI and PKCE challenge).
import type { Clock } from '../../ports/store.js'
import type { Repositories, ApiClientRecord, TokenRecord } from '../../ports/repositories.js'
import { randomSecret, sha256 } from '../../security/secrets.js'
import { verifierMatches } from '../../security/pkce.js'
import { codeFamily, OAuthError, type TokenRequest, type TokenResponse } from './oauth.js'
import type { Credentials } from './credentials.js'

export interface GrantsDeps {
  repos: Pick<Repositories, 'tokens'>
  clock: Clock
  tokenTtlS: number
  refreshTtlS: number
  credentials: Credentials
  /** Forgets the cached actor of a revoked access token (bearer.ts). */
  forget: (hash: string) => void
  firstStartDone: () => Promise<void>
}

const GRANTS = ['password', 'client_credentials', 'refresh_token', 'authorization_code']

/**
 * A new access token and refresh token: of a new family for a new grant, or of the family of the refresh token
 * `from` (undefined when that family was revoked meanwhile).
 */
async function issue ({ repos, clock, tokenTtlS, refreshTtlS }: GrantsDeps, clientId: string, userUid: string | null, from?: TokenRecord, newFamily?: string): Promise<TokenResponse | undefined> {
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
async function issueNew (deps: GrantsDeps, clientId: string, userUid: string | null, family?: string): Promise<TokenResponse> {
  const issued = await issue(deps, clientId, userUid, undefined, family)
  if (issued === undefined) throw new Error('tokens of a new family were not stored')
  return issued
}

export function createGrants (deps: GrantsDeps): {
  /** @throws OAuthError with the RFC 6749 code; FleetError service.unavailable before the first company exists. */
  token: (req: TokenRequest) => Promise<TokenResponse>
} {
  const { repos, clock, credentials, forget, firstStartDone } = deps

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
      for (const hash of await repos.tokens.revokeFamily(found.family)) forget(hash)
      throw replayed
    }
    if (found.pairHash !== null) forget(found.pairHash)
    // A replay of an older token of the family, at the same moment, may revoke it before the new pair is stored.
    const issued = await issue(deps, c.clientId, found.userUid, found)
    if (issued === undefined) throw replayed
    return issued
  }

  /**
   * The code is bound to the client and to the redirect URI given at /authorize, checked again here, and to the PKCE
   * challenge when there was one (RFC 7636 §4.6). A verifier for a code without challenge is refused too (RFC 9700
   * §2.1.1), and a public client's code always has one (authorize.ts authorizeTarget).
   */
  async function codeGrant (c: ApiClientRecord, req: TokenRequest): Promise<TokenResponse> {
    if (req.code === undefined) throw new OAuthError('invalid_request', 'code is required')
    const codeHash = sha256(req.code)
    const found = await repos.tokens.takeCode(codeHash)
    if (found === undefined) {
      // Used already, or never issued (RFC 6749 §4.1.2): whoever presents it again may have stolen it, so the tokens
      // of its first exchange are revoked; for a code never issued there are none.
      for (const hash of await repos.tokens.revokeFamily(codeFamily(codeHash))) forget(hash)
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
    return await issueNew(deps, c.clientId, found.userUid, codeFamily(codeHash))
  }

  async function token (req: TokenRequest): Promise<TokenResponse> {
    await firstStartDone()
    const grant = req.grantType
    if (grant === undefined) throw new OAuthError('invalid_request', 'grant_type is required')
    if (!GRANTS.includes(grant)) throw new OAuthError('unsupported_grant_type', `grant_type ${grant} is not supported`)
    const c = await credentials.client(req)
    // A public client holds no secret that could stand for the user or itself: the code grant (with PKCE) and the
    // refresh of what it gave only.
    if (c.secretHash === null && grant !== 'authorization_code' && grant !== 'refresh_token') {
      throw new OAuthError('unauthorized_client', `a public client may not use grant_type ${grant}`)
    }
    if (grant === 'password') return await issueNew(deps, c.clientId, await credentials.signIn(req.username, req.password, req.address))
    if (grant === 'refresh_token') return await refreshGrant(c, req)
    if (grant === 'authorization_code') return await codeGrant(c, req)
    return await issueNew(deps, c.clientId, c.userUid) // client_credentials acts as the client's owner
  }

  return { token }
}
