// Refresh token rotation with reuse detection (RFC 9700 §4.14.2): a refresh token
// presented a second time revokes every token issued from it, the whole family.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

interface Pair { access_token: string, refresh_token: string }
const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`

async function grant (payload: Record<string, string>): Promise<LightMyRequestResponse> {
  return await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: { authorization: basic }, payload })
}
const refresh = async (t: string): Promise<LightMyRequestResponse> => await grant({ grant_type: 'refresh_token', refresh_token: t })
const current = async (t: string): Promise<number> => (await stack.call(t, { method: 'GET', url: '/api/v1/users/current' })).statusCode

describe('refresh token reuse', () => {
  it('revokes the whole family when a used refresh token comes back', async () => {
    const first = (await grant({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })).json() as Pair
    const once = await refresh(first.refresh_token)
    expect(once.statusCode).toBe(200)
    const second = once.json() as Pair
    const third = (await refresh(second.refresh_token)).json() as Pair // the family grows by rotation
    expect(await current(third.access_token)).toBe(200)

    const replay = await refresh(first.refresh_token)
    expect(replay.statusCode).toBe(400)
    expect(replay.json().error).toBe('invalid_grant')

    // Everything issued from the first grant on is revoked: the current pair as well.
    expect(await current(third.access_token)).toBe(401)
    expect((await refresh(third.refresh_token)).json().error).toBe('invalid_grant')
    expect((await refresh(second.refresh_token)).json().error).toBe('invalid_grant')
  })

  it('revokes the pair obtained from the first refresh (the test of the issue)', async () => {
    const first = (await grant({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })).json() as Pair
    const second = (await refresh(first.refresh_token)).json() as Pair
    expect(await current(second.access_token)).toBe(200)
    expect((await refresh(first.refresh_token)).json().error).toBe('invalid_grant')
    expect(await current(second.access_token)).toBe(401)
    const again = await refresh(second.refresh_token)
    expect(again.statusCode).toBe(400)
    expect(again.json().error).toBe('invalid_grant')
  })

  it('revokes a pair being issued while an older token of the family is replayed', async () => {
    for (let round = 0; round < 5; round++) {
      const first = (await grant({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })).json() as Pair
      const second = (await refresh(first.refresh_token)).json() as Pair
      const [next] = await Promise.all([refresh(second.refresh_token), refresh(first.refresh_token)])
      if (next.statusCode === 200) expect(await current((next.json() as Pair).access_token)).toBe(401)
      else expect(next.json().error).toBe('invalid_grant')
    }
  })

  it('leaves other families alone', async () => {
    const mine = (await grant({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })).json() as Pair
    const other = (await grant({ grant_type: 'client_credentials' })).json() as Pair
    await refresh(mine.refresh_token)
    await refresh(mine.refresh_token)
    expect(await current(other.access_token)).toBe(200)
    expect((await refresh(other.refresh_token)).statusCode).toBe(200)
  })

  it('lets at most one of two concurrent exchanges of one refresh token through, then revokes what it got', async () => {
    for (let round = 0; round < 5; round++) {
      const first = (await grant({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })).json() as Pair
      const [a, b] = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)])
      // The replay may come before the winner's pair is stored: then both are refused.
      expect([a.statusCode, b.statusCode]).toContain(400)
      expect([a.statusCode, b.statusCode].filter((s) => s === 200).length).toBeLessThanOrEqual(1)
      for (const won of [a, b].filter((r) => r.statusCode === 200).map((r) => r.json() as Pair)) {
        expect(await current(won.access_token)).toBe(401)
        expect((await refresh(won.refresh_token)).statusCode).toBe(400)
      }
    }
  })
})
