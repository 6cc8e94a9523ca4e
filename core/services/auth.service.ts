// The OAuth 2 service: token issue (./auth/grants.ts), the authorization endpoint (./auth/authorize.ts) and the
// resolution of a bearer token into an Actor (./auth/bearer.ts), over the client and password checks of
// ./auth/credentials.ts.
import type { Clock } from '../ports/store.js'
import type { Repositories } from '../ports/repositories.js'
import type { AccessEpoch } from './access-epoch.js'
import type { LoginThrottle } from './login-throttle.js'
import type { AuthorizeRequest } from './auth/oauth.js'
import { createCredentials } from './auth/credentials.js'
import { createBearer } from './auth/bearer.js'
import { createGrants } from './auth/grants.js'
import { authorize, authorizeTarget } from './auth/authorize.js'
import { firstStartCheck } from './auth/first-start.js'

export { AuthorizeRefused, ClientRedirectError, CODE_TTL_MS, OAuthError } from './auth/oauth.js'
export type { AuthorizeRequest, ImplicitToken, TokenRequest, TokenResponse } from './auth/oauth.js'

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

/** OAuth 2 token issue, expiry and the resolution of a bearer token into an Actor (docs/api.md#get-a-token). */
export function createAuthService ({ repos, clock, tokenTtlS, refreshTtlS, epoch, throttle, hashCost, verifyPassword }: AuthServiceDeps) {
  const credentials = createCredentials({ repos, throttle, hashCost, verifyPassword })
  const bearer = createBearer({ repos, clock, epoch })
  const firstStartDone = firstStartCheck(repos.companies)
  const { token } = createGrants({ repos, clock, tokenTtlS, refreshTtlS, credentials, forget: bearer.forget, firstStartDone })
  const authorizeDeps = { repos, clock, tokenTtlS, signIn: credentials.signIn, firstStartDone }
  return {
    token,
    expire: bearer.expire,
    authenticate: bearer.authenticate,
    authorizeTarget: async (req: AuthorizeRequest) => await authorizeTarget(repos, req),
    authorize: async (req: Parameters<typeof authorize>[1]) => await authorize(authorizeDeps, req)
  }
}

export type AuthService = ReturnType<typeof createAuthService>
