// The authorization_code grant (docs/api.md#get-a-token; RFC 6749 §4.1): /api/oauth/authorize signs the user
// in and redirects to a registered redirect URI with a one-time code; /api/oauth/token exchanges it, checking the
// redirect URI again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { seed } from '../helpers/factories.js'

const APP = 'web-console'
const APP_SECRET = 'web-console-secret'
const REDIRECT = 'https://console.example/callback?from=fleet'
const OTHER_REDIRECT = 'http://localhost:3000/cb'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
  await seed(stack, { clients: [{ clientId: APP, clientSecret: APP_SECRET, name: 'Web console', user: ADMIN_EMAIL, redirectUris: [REDIRECT, OTHER_REDIRECT] }] })
})
afterAll(async () => { await stack.close() })

const form = (fields: Record<string, string>): { headers: Record<string, string>, payload: string } =>
  ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() })

async function signIn (fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await stack.api.inject({ method: 'POST', url: '/api/oauth/authorize', ...form(fields) })
}

const request = { response_type: 'code', client_id: APP, redirect_uri: REDIRECT, state: 'xyz<&>' }

/** Signs the admin in and answers the code from the redirect. */
async function code (redirectUri = REDIRECT): Promise<string> {
  const res = await signIn({ ...request, redirect_uri: redirectUri, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  expect(res.statusCode).toBe(302)
  return new URL(String(res.headers.location)).searchParams.get('code') ?? ''
}

async function exchange (fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await stack.api.inject({ method: 'POST', url: '/api/oauth/token', ...form({ grant_type: 'authorization_code', client_id: APP, client_secret: APP_SECRET, ...fields }) })
}

describe('GET /api/oauth/authorize', () => {
  it('shows a sign-in form carrying the request, escaped', async () => {
    const res = await stack.api.inject({ method: 'GET', url: `/api/oauth/authorize?${new URLSearchParams(request).toString()}` })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.body).toContain('<form method="post" action="/api/oauth/authorize">')
    expect(res.body).toContain(`name="redirect_uri" value="${REDIRECT.replace('&', '&#38;')}"`)
    expect(res.body).toContain('name="state" value="xyz&#60;&#38;&#62;"')
    expect(res.body).not.toContain('xyz<&>')
  })

  it('refuses, without redirecting, an unknown client and a redirect URI the client did not register', async () => {
    for (const q of [{ ...request, client_id: 'nobody' }, { ...request, redirect_uri: 'https://evil.example/cb' }, { response_type: 'code' }]) {
      const res = await stack.api.inject({ method: 'GET', url: `/api/oauth/authorize?${new URLSearchParams(q).toString()}` })
      expect(res.statusCode).toBe(400)
      expect(res.headers.location).toBeUndefined()
    }
  })

  it('sends an unsupported response_type back to the client as an error', async () => {
    const res = await stack.api.inject({ method: 'GET', url: `/api/oauth/authorize?${new URLSearchParams({ ...request, response_type: 'id_token' }).toString()}` })
    expect(res.statusCode).toBe(302)
    const to = new URL(String(res.headers.location))
    expect(to.origin + to.pathname).toBe('https://console.example/callback')
    expect(Object.fromEntries(to.searchParams)).toMatchObject({ from: 'fleet', error: 'unsupported_response_type', state: 'xyz<&>' })
  })
})

describe('POST /api/oauth/authorize, then the token', () => {
  it('redirects with a code and the state, keeping the redirect URI\'s own query; the code gives the user\'s tokens', async () => {
    const res = await signIn({ ...request, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    expect(res.statusCode).toBe(302)
    const to = new URL(String(res.headers.location))
    expect(to.origin + to.pathname).toBe('https://console.example/callback')
    expect(to.searchParams.get('from')).toBe('fleet')
    expect(to.searchParams.get('state')).toBe('xyz<&>')
    const issued = await exchange({ code: to.searchParams.get('code') ?? '', redirect_uri: REDIRECT })
    expect(issued.statusCode, issued.body).toBe(200)
    expect(issued.json()).toMatchObject({ token_type: 'bearer', scope: '' })
    const me = await stack.call(issued.json().access_token, { method: 'GET', url: '/api/v1/users/current' })
    expect(me.json().email).toBe(ADMIN_EMAIL)
  })

  it('uses a code once; presented again, it revokes the tokens of its first exchange and their refreshes (RFC 6749 §4.1.2)', async () => {
    const c = await code()
    const first = await exchange({ code: c, redirect_uri: REDIRECT })
    expect(first.statusCode).toBe(200)
    const kept = (await exchange({ code: await code(), redirect_uri: REDIRECT })).json() // another code's tokens
    const refreshed = await stack.api.inject({
      method: 'POST', url: '/api/oauth/token', ...form({ grant_type: 'refresh_token', client_id: APP, client_secret: APP_SECRET, refresh_token: first.json().refresh_token })
    })
    expect(refreshed.statusCode).toBe(200)
    const me = async (token: string): Promise<number> => (await stack.call(token, { method: 'GET', url: '/api/v1/users/current' })).statusCode
    expect(await me(refreshed.json().access_token)).toBe(200)

    const again = await exchange({ code: c, redirect_uri: REDIRECT })
    expect({ status: again.statusCode, error: again.json().error }).toEqual({ status: 400, error: 'invalid_grant' })
    expect(await me(refreshed.json().access_token)).toBe(401)
    const refreshAgain = await stack.api.inject({
      method: 'POST', url: '/api/oauth/token', ...form({ grant_type: 'refresh_token', client_id: APP, client_secret: APP_SECRET, refresh_token: refreshed.json().refresh_token })
    })
    expect(refreshAgain.json().error).toBe('invalid_grant')
    expect(await me(kept.access_token)).toBe(200)
  })

  it('checks the redirect URI, the client and the expiry at the token step', async () => {
    const wrongUri = await exchange({ code: await code(), redirect_uri: OTHER_REDIRECT })
    expect(wrongUri.json().error).toBe('invalid_grant')
    const noUri = await exchange({ code: await code() })
    expect(noUri.json().error).toBe('invalid_grant')
    const otherClient = await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/token',
      ...form({ grant_type: 'authorization_code', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code: await code(), redirect_uri: REDIRECT })
    })
    expect(otherClient.json().error).toBe('invalid_grant')
    const expiring = await code(OTHER_REDIRECT)
    await stack.db.query('UPDATE oauth_codes SET expires_at = 0')
    expect((await exchange({ code: expiring, redirect_uri: OTHER_REDIRECT })).json().error).toBe('invalid_grant')
    const badSecret = await exchange({ code: await code(), redirect_uri: REDIRECT, client_secret: 'nope' })
    expect({ status: badSecret.statusCode, error: badSecret.json().error }).toEqual({ status: 401, error: 'invalid_client' })
    expect((await exchange({ redirect_uri: REDIRECT })).json().error).toBe('invalid_request')
  })

  it('shows the form again on bad credentials, keeping the request and the e-mail, and issues no code', async () => {
    const before = (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_codes')).rows[0]?.n
    const res = await signIn({ ...request, username: ADMIN_EMAIL, password: 'wrong' })
    expect(res.statusCode).toBe(401)
    expect(res.headers.location).toBeUndefined()
    expect(res.body).toContain('Wrong e-mail or password.')
    expect(res.body).toContain(`value="${ADMIN_EMAIL}"`)
    expect(res.body).toContain('name="client_id" value="web-console"')
    expect((await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_codes')).rows[0]?.n).toBe(before)
    const forged = await signIn({ ...request, redirect_uri: 'https://evil.example/cb', username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    expect(forged.statusCode).toBe(400)
    expect(forged.headers.location).toBeUndefined()
  })
})

describe('seed', () => {
  it('refuses a redirect URI that is not an absolute http(s) URL without a fragment', async () => {
    for (const uri of ['/relative', 'ftp://x.example/cb', 'https://x.example/cb#frag']) {
      await expect(seed(stack, { clients: [{ clientId: 'bad-app', clientSecret: 's', redirectUris: [uri] }] })).rejects.toThrow(/redirect URI/)
    }
  })
})
