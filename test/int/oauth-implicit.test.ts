// The implicit grant (RFC 6749 §4.2): /api/oauth/authorize with response_type=token signs the user in and
// redirects to a registered redirect URI with an access token in the fragment, for native applications.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, ADMIN_PASSWORD, startStack, type Stack } from '../helpers/stack.js'
import { seed } from '../helpers/factories.js'

const APP = 'android-app'
const REDIRECT = 'http://localhost:7777/oauth/done'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
  await seed(stack, { clients: [{ clientId: APP, clientSecret: 'android-secret', name: 'Phone app', user: ADMIN_EMAIL, redirectUris: [REDIRECT], implicitGrant: true }] })
})
afterAll(async () => { await stack.close() })

const request = { response_type: 'token', client_id: APP, redirect_uri: REDIRECT, state: 's 1&2' }

async function signIn (fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await stack.api.inject({
    method: 'POST',
    url: '/api/oauth/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString()
  })
}
const show = async (q: Record<string, string>): Promise<LightMyRequestResponse> =>
  await stack.api.inject({ method: 'GET', url: `/api/oauth/authorize?${new URLSearchParams(q).toString()}` })

describe('response_type=token', () => {
  it('shows the sign-in form carrying response_type=token', async () => {
    const res = await show(request)
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('name="response_type" value="token"')
  })

  it('redirects with the access token, its type, lifetime and the state in the fragment; the token works', async () => {
    const res = await signIn({ ...request, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    expect(res.statusCode).toBe(302)
    expect(res.headers['cache-control']).toBe('no-store')
    const to = new URL(String(res.headers.location))
    expect(to.origin + to.pathname).toBe(REDIRECT)
    expect(to.search).toBe('') // nothing in the query: a fragment is not sent to servers
    const fragment = Object.fromEntries(new URLSearchParams(to.hash.slice(1)))
    expect(fragment).toMatchObject({ token_type: 'bearer', expires_in: '3600', state: 's 1&2' })
    expect(fragment.refresh_token).toBeUndefined() // RFC 6749 §4.2.2: no refresh token
    const me = await stack.call(fragment.access_token ?? '', { method: 'GET', url: '/api/v1/users/current' })
    expect(me.statusCode).toBe(200)
    expect(me.json().email).toBe(ADMIN_EMAIL)
  })

  it('refuses an unregistered redirect URI on the page, never redirecting, and issues no token', async () => {
    const before = (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens')).rows[0]?.n
    for (const uri of ['http://localhost:7777/elsewhere', 'https://evil.example/cb']) {
      const page = await show({ ...request, redirect_uri: uri })
      expect(page.statusCode).toBe(400)
      expect(page.headers.location).toBeUndefined()
      const posted = await signIn({ ...request, redirect_uri: uri, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
      expect(posted.statusCode).toBe(400)
      expect(posted.headers.location).toBeUndefined()
      expect(posted.body).toContain('Authorization refused')
    }
    const unknownClient = await signIn({ ...request, client_id: 'nobody', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    expect(unknownClient.statusCode).toBe(400)
    expect(unknownClient.headers.location).toBeUndefined()
    expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens')).rows[0]?.n).toBe(before)
  })

  it('refuses an unknown response_type: sent back to the registered URI as unsupported_response_type, with no token', async () => {
    for (const type of ['id_token', 'token code', 'TOKEN']) {
      const res = await signIn({ ...request, response_type: type, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
      expect(res.statusCode).toBe(302)
      const to = new URL(String(res.headers.location))
      expect(to.origin + to.pathname).toBe(REDIRECT)
      expect(to.searchParams.get('error')).toBe('unsupported_response_type')
      expect(to.hash).toBe('')
    }
  })

  it('refuses a client not registered for the implicit grant: unauthorized_client to its URI, no form, no token', async () => {
    await seed(stack, { clients: [{ clientId: 'code-only', clientSecret: 'code-secret', user: ADMIN_EMAIL, redirectUris: [REDIRECT] }] })
    const before = (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens')).rows[0]?.n
    for (const res of [await show({ ...request, client_id: 'code-only' }), await signIn({ ...request, client_id: 'code-only', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })]) {
      expect(res.statusCode).toBe(302)
      const to = new URL(String(res.headers.location))
      expect(to.origin + to.pathname).toBe(REDIRECT)
      expect(Object.fromEntries(to.searchParams)).toMatchObject({ error: 'unauthorized_client', state: 's 1&2' })
      expect(to.hash).toBe('')
    }
    expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens')).rows[0]?.n).toBe(before)
    // The console (a public client) may not either: its tokens come from a code and its PKCE verifier.
    const consolePage = await show({ response_type: 'token', client_id: 'fleet-console', redirect_uri: 'http://fleet.test/console/' })
    expect(consolePage.headers.location ?? '').not.toContain('access_token')
  })

  it('shows the form again on a wrong password, with no redirect', async () => {
    const res = await signIn({ ...request, username: ADMIN_EMAIL, password: 'not-the-password' })
    expect(res.statusCode).toBe(401)
    expect(res.headers.location).toBeUndefined()
    expect(res.body).toContain('name="response_type" value="token"')
  })
})
