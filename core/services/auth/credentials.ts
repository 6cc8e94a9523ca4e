// Who asks: the OAuth client (its secret, or its name alone for a public client) and the user's password, both
// throttled (../login-throttle.ts) and both costing one scrypt whether the account exists or not.
import type { Repositories, ApiClientRecord } from '../../ports/repositories.js'
import { dummyPasswordHash, verifyPassword } from '../../security/secrets.js'
import type { LoginThrottle } from '../login-throttle.js'
import { OAuthError, type TokenRequest } from './oauth.js'

export interface CredentialsDeps {
  repos: Pick<Repositories, 'clients' | 'users'>
  throttle: LoginThrottle
  /** The cost of the hashes written (config PASSWORD_HASH_COST): unknown accounts are checked at it. */
  hashCost?: number | undefined
  /** The scrypt check of secrets.ts; tests pass a spy. */
  verifyPassword?: ((password: string, encoded: string | null) => Promise<boolean>) | undefined
}

export interface Credentials {
  /** The client of a token request. @throws OAuthError invalid_client */
  client: (req: TokenRequest) => Promise<ApiClientRecord>
  /** A user's password, throttled per account and address (login-throttle.ts); answers the user's uid. */
  signIn: (username: string | undefined, password: string | undefined, address: string) => Promise<string>
}

export function createCredentials ({ repos, throttle, hashCost, verifyPassword: verify = verifyPassword }: CredentialsDeps): Credentials {
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

  return { client, signIn }
}
