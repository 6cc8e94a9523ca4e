// TokensRepository (storage/repositories/tokens.repository.ts): token pairs and families, the one-statement
// exchange of a refresh token, codes taken once, and expiry.
import { expect } from 'vitest'
import { newCompany, uniq, defineContract, type Repos } from './store.js'

type NewToken = Parameters<Repos['tokens']['insertAll']>[0][number]
const FAR = 4_000_000_000_000

/** An access and refresh token of a new client, inserted (under `parent` when given). */
async function pair (repos: Repos, parent?: string, family = uniq('fam'), expiresAt = FAR): Promise<{ access: NewToken, refresh: NewToken, inserted: boolean }> {
  const clientId = uniq('client')
  await repos.clients.put({ clientId, secretHash: null, name: 'c', userUid: null, redirectUris: [] }, 1)
  const [a, r] = [uniq('a'), uniq('r')]
  const access: NewToken = { hash: a, kind: 'access', clientId, userUid: null, pairHash: r, family, expiresAt }
  const refresh: NewToken = { hash: r, kind: 'refresh', clientId, userUid: null, pairHash: a, family, expiresAt }
  return { access, refresh, inserted: await repos.tokens.insertAll([access, refresh], 1_767_225_600_123, parent) }
}

export const tokensContract = defineContract('TokensRepository', {
  'inserts a pair, revokes it by either token': async ({ repos }) => {
    const { access, refresh, inserted } = await pair(repos)
    expect(inserted).toBe(true)
    expect(await repos.tokens.find(access.hash)).toEqual({ ...access, usedAt: null })
    await repos.tokens.revoke(refresh.hash)
    expect(await repos.tokens.find(access.hash)).toBeUndefined()
    expect(await repos.tokens.find(refresh.hash)).toBeUndefined()
  },

  'inserts under a parent only while it exists; marks a refresh token used once, deleting its access token': async ({ repos }) => {
    const first = await pair(repos)
    const child = await pair(repos, first.refresh.hash, first.refresh.family)
    expect(child.inserted).toBe(true)
    expect(await repos.tokens.markUsed(first.refresh.hash, 5000)).toBe(true)
    expect(await repos.tokens.markUsed(first.refresh.hash, 6000)).toBe(false)
    expect(await repos.tokens.markUsed(first.access.hash, 6000)).toBe(false)
    expect(await repos.tokens.find(first.access.hash)).toBeUndefined()
    expect((await repos.tokens.find(first.refresh.hash))?.usedAt).toBe(5000)
    const revoked = await repos.tokens.revokeFamily(first.refresh.family)
    expect(revoked.sort()).toEqual([first.refresh.hash, child.access.hash, child.refresh.hash].sort())
    expect((await pair(repos, first.refresh.hash)).inserted).toBe(false)
  },

  'takes a code once; deletes expired tokens and codes, counting both': async ({ repos }) => {
    const co = await newCompany(repos)
    const userUid = uniq('user')
    await repos.users.insert({ uid: userUid, email: `${userUid}@x`, name: 'u', phoneNumber: null, passwordHash: null, companyUid: co }, 1)
    const clientId = uniq('client')
    await repos.clients.put({ clientId, secretHash: null, name: 'c', userUid: null, redirectUris: [] }, 1)
    const code = { hash: uniq('code'), clientId, userUid, redirectUri: 'https://x/cb?a=1', expiresAt: 1000, codeChallenge: null }
    await repos.tokens.insertCode(code, 1)
    expect(await repos.tokens.takeCode(code.hash)).toEqual(code)
    expect(await repos.tokens.takeCode(code.hash)).toBeUndefined()
    await repos.tokens.insertCode({ ...code, hash: uniq('code'), codeChallenge: 'abc' }, 1)
    const old = await pair(repos, undefined, uniq('fam'), 2000)
    expect(await repos.tokens.deleteExpired(1999)).toBe(1) // the code expiring at 1000
    expect(await repos.tokens.deleteExpired(2000)).toBe(2)
    expect(await repos.tokens.find(old.access.hash)).toBeUndefined()
  }
})
