// A wrong password costs the same for unknown and existing accounts: an unknown account, or one without a
// password, is checked against a dummy scrypt hash of the same cost. Asserted on what is hashed, never on timing.
import { describe, expect, it } from 'vitest'
import { createAuthService, OAuthError, type AuthServiceDeps, type TokenRequest } from '../../core/services/auth.service.js'
import { createAccessEpoch } from '../../core/services/access-epoch.js'
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../core/security/secrets.js'
import type { ApiClientRecord } from '../../core/ports/repositories.js'
import type { UserRecord } from '../../core/domain/user.js'

const DUMMY_PASSWORD_HASH = dummyPasswordHash()
const cost = (encoded: string): string => encoded.split('$').slice(0, 4).join('$') // scrypt$N$r$p

/** The auth service over one user, one without a password and one client; `hashCost` as PASSWORD_HASH_COST gives it. */
async function service (hashCost?: number) {
  const user: UserRecord = { uid: 'u1', email: 'known@x.test', name: 'K', phoneNumber: null, passwordHash: await hashPassword('right'), companyUid: 'c1' }
  const noPassword: UserRecord = { ...user, uid: 'u2', email: 'nopw@x.test', passwordHash: null }
  const client: ApiClientRecord = { clientId: 'app', secretHash: await hashPassword('secret'), name: 'App', userUid: 'u1', redirectUris: ['https://app.test/cb'] }
  const checked: Array<string | null> = []
  const repos = {
    users: { findByEmail: async (e: string) => [user, noPassword].find((u) => u.email === e) },
    clients: { find: async (id: string) => id === client.clientId ? client : undefined },
    companies: { any: async () => true }
  } as unknown as AuthServiceDeps['repos']
  const auth = createAuthService({
    repos,
    clock: { now: () => 0 },
    tokenTtlS: 60,
    refreshTtlS: 60,
    epoch: createAccessEpoch(),
    throttle: { check: async (_who, verify) => await verify() },
    hashCost,
    verifyPassword: async (password, encoded) => { checked.push(encoded); return await verifyPassword(password, encoded) }
  })
  return { auth, user, client, checked }
}

const refused = async (p: Promise<unknown>): Promise<string> => await p.then(() => 'issued', (e: unknown) => e instanceof OAuthError ? e.error : String(e))
const request = (r: Partial<TokenRequest>): TokenRequest => ({ address: '10.1.1.1', grantType: 'password', clientId: 'app', clientSecret: 'secret', ...r })

describe('password checks', () => {
  it('the dummy hash costs what a stored hash costs, and no password matches it', async () => {
    expect(cost(DUMMY_PASSWORD_HASH)).toBe(cost(await hashPassword('anything')))
    expect(await verifyPassword('', DUMMY_PASSWORD_HASH)).toBe(false)
    expect(cost(DUMMY_PASSWORD_HASH)).toBe('scrypt$32768$8$1')
  })

  it('at a configured cost (PASSWORD_HASH_COST), the dummy hash follows it and hashes of another cost still verify', async () => {
    expect(cost(dummyPasswordHash(10))).toBe(cost(await hashPassword('anything', 10)))
    expect(cost(dummyPasswordHash(10))).toBe('scrypt$1024$8$1')
    expect(await verifyPassword('right', await hashPassword('right', 11))).toBe(true)
    expect(await verifyPassword('wrong', await hashPassword('right', 11))).toBe(false)
    const { auth, checked } = await service(10)
    expect(await refused(auth.token(request({ grantType: 'client_credentials', clientId: 'ghost' })))).toBe('invalid_client')
    expect(checked).toEqual([dummyPasswordHash(10)])
  })

  it('runs scrypt against the dummy hash for an unknown account and for one without a password', async () => {
    const { auth, client, checked } = await service()
    expect(await refused(auth.token(request({ username: 'nobody@x.test', password: 'guess' })))).toBe('invalid_grant')
    expect(checked).toEqual([client.secretHash, DUMMY_PASSWORD_HASH])
    checked.length = 0
    expect(await refused(auth.token(request({ username: 'nopw@x.test', password: 'guess' })))).toBe('invalid_grant')
    expect(checked).toEqual([client.secretHash, DUMMY_PASSWORD_HASH])
  })

  it('runs scrypt against the stored hash for an existing account', async () => {
    const { auth, user, client, checked } = await service()
    expect(await refused(auth.token(request({ username: user.email, password: 'guess' })))).toBe('invalid_grant')
    expect(checked).toEqual([client.secretHash, user.passwordHash])
  })

  it('runs scrypt against the dummy hash for an unknown client, and on the sign-in page', async () => {
    const { auth, checked } = await service()
    expect(await refused(auth.token(request({ grantType: 'client_credentials', clientId: 'ghost' })))).toBe('invalid_client')
    expect(checked).toEqual([DUMMY_PASSWORD_HASH])
    checked.length = 0
    const signIn = { address: '10.1.1.1', responseType: 'code', clientId: 'app', redirectUri: 'https://app.test/cb', password: 'guess' }
    expect(await refused(auth.authorize({ ...signIn, username: 'nobody@x.test' }))).toBe('invalid_grant')
    expect(checked).toEqual([DUMMY_PASSWORD_HASH])
  })
})
