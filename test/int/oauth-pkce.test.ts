// PKCE (RFC 7636, S256 only) on the authorization_code grant and the web console's public client:
// `fleet-console` has no secret, exists in every store, redirects to the console's own address, and gets tokens only
// with a code_verifier matching the challenge given at /api/oauth/authorize.
import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, startStack, type Stack } from '../helpers/stack.js'
import { seed } from '../helpers/factories.js'

const CONSOLE = 'fleet-console'
const HOST = 'fleet.test:8080'
const CONSOLE_URI = `http://${HOST}/console/`
const APP = 'pkce-app'
const APP_SECRET = 'pkce-app-secret'
const APP_URI = 'https://app.example/cb'

const verifier = (): string => randomBytes(32).toString('base64url')
const challengeOf = (v: string): string => createHash('sha256').update(v).digest('base64url')

let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { PUBLIC_URL: `http://${HOST}` } }) // console-origin.test.ts: the Host header alone is not believed
  await seed(stack, { clients: [{ clientId: APP, clientSecret: APP_SECRET, user: ADMIN_EMAIL, redirectUris: [APP_URI] }] })
})
afterAll(async () => { await stack.close() })

const form = (fields: Record<string, string>): { headers: Record<string, string>, payload: string } =>
  ({ headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() })

async function authorize (s: Stack, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await s.api.inject({ method: 'POST', url: '/api/oauth/authorize', ...form({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD, ...fields }) })
}

/** Signs the admin in for the console with a fresh verifier; answers the code and the verifier. */
async function consoleCode (s = stack, redirectUri = CONSOLE_URI): Promise<{ code: string, verifier: string }> {
  const v = verifier()
  const res = await authorize(s, { response_type: 'code', client_id: CONSOLE, redirect_uri: redirectUri, code_challenge: challengeOf(v), code_challenge_method: 'S256' })
  expect(res.statusCode, res.body).toBe(302)
  return { code: new URL(String(res.headers.location)).searchParams.get('code') ?? '', verifier: v }
}

async function token (s: Stack, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await s.api.inject({ method: 'POST', url: '/api/oauth/token', ...form(fields) })
}

const consoleToken = async (fields: Record<string, string>): Promise<LightMyRequestResponse> =>
  await token(stack, { grant_type: 'authorization_code', client_id: CONSOLE, redirect_uri: CONSOLE_URI, ...fields })

const refusal = (res: LightMyRequestResponse): { status: number, error: string } => ({ status: res.statusCode, error: res.json().error })

describe('the console client', () => {
  it('exists after the first start, without secret, and is not created twice by a second start on the store', async () => {
    const rows = async () => (await stack.db.query<{ secret_hash: string | null }>('SELECT secret_hash FROM api_clients WHERE client_id = $1', [CONSOLE])).rows
    expect(await rows()).toEqual([{ secret_hash: null }])
    const again = await startStack({ storeOf: stack })
    await again.close()
    expect(await rows()).toHaveLength(1)
  })

  it('is created at the start of an existing store that lacks it', async () => {
    await stack.db.query('DELETE FROM api_clients WHERE client_id = $1', [CONSOLE])
    const again = await startStack({ storeOf: stack })
    await again.close()
    expect((await stack.db.query('SELECT 1 FROM api_clients WHERE client_id = $1', [CONSOLE])).rows).toHaveLength(1)
  })

  it('signs in with PKCE: the code and its verifier give tokens, and the refresh token works without secret', async () => {
    const page = await stack.api.inject({
      method: 'GET',
      headers: { host: HOST },
      url: `/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: CONSOLE, code_challenge: challengeOf(verifier()), code_challenge_method: 'S256' }).toString()}`
    })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain(`name="redirect_uri" value="${CONSOLE_URI}"`)
    expect(page.body).toContain('name="code_challenge_method" value="S256"')
    const { code, verifier: v } = await consoleCode()
    const issued = await consoleToken({ code, code_verifier: v })
    expect(issued.statusCode, issued.body).toBe(200)
    const me = await stack.call(issued.json().access_token, { method: 'GET', url: '/api/v1/users/current' })
    expect(me.json().email).toBe(ADMIN_EMAIL)
    const refreshed = await token(stack, { grant_type: 'refresh_token', client_id: CONSOLE, refresh_token: issued.json().refresh_token })
    expect(refreshed.statusCode, refreshed.body).toBe(200)
  })

  it('redirects to <PUBLIC_URL>/console/ when PUBLIC_URL is set, and no longer to the request\'s origin', async () => {
    const behind = await startStack({ storeOf: stack, env: { PUBLIC_URL: 'https://fleet.example.com/ops' } })
    try {
      const { code, verifier: v } = await consoleCode(behind, 'https://fleet.example.com/ops/console/')
      const issued = await token(behind, { grant_type: 'authorization_code', client_id: CONSOLE, redirect_uri: 'https://fleet.example.com/ops/console/', code, code_verifier: v })
      expect(issued.statusCode, issued.body).toBe(200)
      const res = await authorize(behind, { response_type: 'code', client_id: CONSOLE, redirect_uri: CONSOLE_URI, code_challenge: challengeOf(verifier()), code_challenge_method: 'S256' })
      expect(res.statusCode).toBe(400)
      expect(res.headers.location).toBeUndefined()
    } finally { await behind.close() }
  })
})

describe('refusals', () => {
  it('refuses a wrong verifier and a missing one with invalid_grant, and the code is spent', async () => {
    const { code, verifier: v } = await consoleCode()
    expect(refusal(await consoleToken({ code, code_verifier: verifier() }))).toEqual({ status: 400, error: 'invalid_grant' })
    expect(refusal(await consoleToken({ code, code_verifier: v }))).toEqual({ status: 400, error: 'invalid_grant' })
    const missing = await consoleCode()
    expect(refusal(await consoleToken({ code: missing.code }))).toEqual({ status: 400, error: 'invalid_grant' })
    const malformed = await consoleCode()
    expect(refusal(await consoleToken({ code: malformed.code, code_verifier: 'short' }))).toEqual({ status: 400, error: 'invalid_grant' })
  })

  it('sends the plain method, a challenge without method and a public client without challenge back as invalid_request', async () => {
    const v = verifier()
    const cases: Array<Record<string, string>> = [{ code_challenge: v, code_challenge_method: 'plain' }, { code_challenge: challengeOf(v) }, {}, { code_challenge: 'short', code_challenge_method: 'S256' }]
    for (const pkce of cases) {
      const res = await authorize(stack, { response_type: 'code', client_id: CONSOLE, redirect_uri: CONSOLE_URI, state: 's1', ...pkce })
      expect(res.statusCode).toBe(302)
      const to = new URL(String(res.headers.location))
      expect(to.origin + to.pathname).toBe(CONSOLE_URI)
      expect(Object.fromEntries(to.searchParams)).toMatchObject({ error: 'invalid_request', state: 's1' })
      expect(to.searchParams.get('code')).toBeNull()
    }
  })

  it('uses a code once', async () => {
    const { code, verifier: v } = await consoleCode()
    expect((await consoleToken({ code, code_verifier: v })).statusCode).toBe(200)
    expect(refusal(await consoleToken({ code, code_verifier: v }))).toEqual({ status: 400, error: 'invalid_grant' })
  })

  it('refuses another client\'s code, and a redirect URI other than the one of the authorization request', async () => {
    const mine = await consoleCode()
    const other = await token(stack, { grant_type: 'authorization_code', client_id: APP, client_secret: APP_SECRET, redirect_uri: CONSOLE_URI, code: mine.code, code_verifier: mine.verifier })
    expect(refusal(other)).toEqual({ status: 400, error: 'invalid_grant' })
    const v = verifier()
    const res = await authorize(stack, { response_type: 'code', client_id: APP, redirect_uri: APP_URI, code_challenge: challengeOf(v), code_challenge_method: 'S256' })
    const appCode = new URL(String(res.headers.location)).searchParams.get('code') ?? ''
    expect(refusal(await consoleToken({ code: appCode, code_verifier: v }))).toEqual({ status: 400, error: 'invalid_grant' })
    const wrongUri = await consoleCode()
    expect(refusal(await consoleToken({ code: wrongUri.code, code_verifier: wrongUri.verifier, redirect_uri: 'http://elsewhere.test/console/' })))
      .toEqual({ status: 400, error: 'invalid_grant' })
  })

  it('never redirects to a URI that is neither registered nor the console\'s own address', async () => {
    const res = await authorize(stack, { response_type: 'code', client_id: CONSOLE, redirect_uri: 'https://evil.example/console/', code_challenge: challengeOf(verifier()), code_challenge_method: 'S256' })
    expect(res.statusCode).toBe(400)
    expect(res.headers.location).toBeUndefined()
  })

  it('keeps a public client from the password and client_credentials grants, and from a secret it does not have', async () => {
    const password = await token(stack, { grant_type: 'password', client_id: CONSOLE, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    expect(refusal(password)).toEqual({ status: 400, error: 'unauthorized_client' })
    expect(refusal(await token(stack, { grant_type: 'client_credentials', client_id: CONSOLE }))).toEqual({ status: 400, error: 'unauthorized_client' })
    const { code, verifier: v } = await consoleCode()
    expect(refusal(await consoleToken({ code, code_verifier: v, client_secret: 'guess' }))).toEqual({ status: 401, error: 'invalid_client' })
    // A confidential client still needs its secret.
    expect(refusal(await token(stack, { grant_type: 'password', client_id: CLIENT_ID, username: ADMIN_EMAIL, password: ADMIN_PASSWORD }))).toEqual({ status: 401, error: 'invalid_client' })
  })
})

describe('a confidential client', () => {
  it('may use PKCE with its secret, and a verifier for a code without challenge is refused', async () => {
    const v = verifier()
    const res = await authorize(stack, { response_type: 'code', client_id: APP, redirect_uri: APP_URI, code_challenge: challengeOf(v), code_challenge_method: 'S256' })
    const code = new URL(String(res.headers.location)).searchParams.get('code') ?? ''
    const ok = await token(stack, { grant_type: 'authorization_code', client_id: APP, client_secret: APP_SECRET, redirect_uri: APP_URI, code, code_verifier: v })
    expect(ok.statusCode, ok.body).toBe(200)
    const plain = await authorize(stack, { response_type: 'code', client_id: APP, redirect_uri: APP_URI })
    const plainCode = new URL(String(plain.headers.location)).searchParams.get('code') ?? ''
    const extra = await token(stack, { grant_type: 'authorization_code', client_id: APP, client_secret: APP_SECRET, redirect_uri: APP_URI, code: plainCode, code_verifier: v })
    expect(refusal(extra)).toEqual({ status: 400, error: 'invalid_grant' })
  })
})
