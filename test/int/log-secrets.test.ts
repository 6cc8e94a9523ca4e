// Secrets never reach the log (docs/configuration.md): the service runs with the logger bin/ builds, at trace
// level, writing to a captured stream; every token flow of docs/api.md#get-a-token and device REST calls go
// through real sockets, and then no password, client secret, token, code or Basic credential may be in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../bin/logger.js'
import { ADMIN_EMAIL, startStack, type Stack } from '../helpers/stack.js'
import { createUser, seed, uniq, type TestUser } from '../helpers/factories.js'
import { createDevice, deviceFetch, type Device } from '../helpers/devices.js'

const lines: string[] = []
const capture = { write (line: string): void { lines.push(line) } }

const APP = 'log-test-app'
const APP_SECRET = uniq('app-secret')
const REDIRECT = 'https://app.example/callback'

let stack: Stack
let user: TestUser
let device: Device
/** Every secret a flow used or received: none may be in the log. */
const secrets = new Set<string>()

beforeAll(async () => {
  stack = await startStack({ listen: true, log: createLogger({ LOG_LEVEL: 'trace', LOG_FORMAT: 'json' }, capture) })
  await seed(stack, { clients: [{ clientId: APP, clientSecret: APP_SECRET, name: 'Log test', user: ADMIN_EMAIL, redirectUris: [REDIRECT], implicitGrant: true }] })
  user = await createUser(stack)
  device = await createDevice(stack)
  for (const s of [APP_SECRET, user.password, user.token, device.restPassword ?? '']) secrets.add(s)
  secrets.add(Buffer.from(`${APP}:${APP_SECRET}`).toString('base64'))
  secrets.add(Buffer.from(`${device.serial}:${device.restPassword ?? ''}`).toString('base64'))
})
afterAll(async () => { await stack.close() })

const basic = `Basic ${Buffer.from(`${APP}:${APP_SECRET}`).toString('base64')}`
const form = (fields: Record<string, string>): RequestInit =>
  ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() })

/** Calls the service over HTTP; remembers the tokens it answers as secrets. */
async function call (path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(stack.httpUrl + path, { redirect: 'manual', ...init })
  const text = await res.clone().text()
  try {
    const body = JSON.parse(text) as Record<string, unknown>
    for (const k of ['access_token', 'refresh_token']) if (typeof body[k] === 'string') secrets.add(body[k])
  } catch {}
  return res
}
const tokens = async (res: Response): Promise<{ access_token: string, refresh_token: string }> => await res.json() as never

describe('the log at trace level', () => {
  it('holds none of the secrets of the token flows and device calls, while it does log the requests', async () => {
    const q = (fields: Record<string, string>): string => new URLSearchParams(fields).toString()
    const creds = { client_id: APP, client_secret: APP_SECRET }

    // password grant: everything in the query (GET), then in a form (POST)
    const viaQuery = await tokens(await call(`/api/oauth/token?${q({ grant_type: 'password', username: user.email, password: user.password, ...creds })}`))
    await call('/api/oauth/token', form({ grant_type: 'password', username: user.email, password: user.password, ...creds }))
    // a wrong password and a wrong client secret (the rejected paths log too)
    const wrong = uniq('wrong-password')
    secrets.add(wrong)
    await call(`/api/oauth/token?${q({ grant_type: 'password', username: user.email, password: wrong, ...creds })}`)
    await call(`/api/oauth/token?${q({ grant_type: 'client_credentials', client_id: APP, client_secret: wrong })}`)
    // client_credentials with Basic, and with the secret in a form
    await call('/api/oauth/token', { ...form({ grant_type: 'client_credentials' }), headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' } })
    const viaForm = await tokens(await call('/api/oauth/token', form({ grant_type: 'client_credentials', ...creds })))
    // refresh_token in the query, then in a form, then replayed
    const refreshed = await tokens(await call(`/api/oauth/token?${q({ grant_type: 'refresh_token', refresh_token: viaQuery.refresh_token, ...creds })}`))
    await call('/api/oauth/token', form({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token, ...creds }))
    await call(`/api/oauth/token?${q({ grant_type: 'refresh_token', refresh_token: viaQuery.refresh_token, ...creds })}`)
    // authorization_code: the sign-in form, then the code in the query of the token request
    const signIn = { response_type: 'code', client_id: APP, redirect_uri: REDIRECT, state: 'st', username: user.email, password: user.password }
    const redirected = await call('/api/oauth/authorize', form(signIn))
    expect(redirected.status).toBe(302)
    const code = new URL(String(redirected.headers.get('location'))).searchParams.get('code') ?? ''
    secrets.add(code)
    expect((await call(`/api/oauth/token?${q({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...creds })}`)).status).toBe(200)
    // the implicit grant: the token comes back in the Location header's fragment
    const implicit = await call('/api/oauth/authorize', form({ ...signIn, response_type: 'token' }))
    const fragment = new URLSearchParams(new URL(String(implicit.headers.get('location'))).hash.slice(1))
    secrets.add(fragment.get('access_token') ?? '')
    // an access token in the query and in the header; an unknown one; then logout by the query
    expect((await call(`/api/v1/users/current?access_token=${viaForm.access_token}`)).status).toBe(200)
    expect((await call('/api/v1/users/current', { headers: { authorization: `Bearer ${viaForm.access_token}` } })).status).toBe(200)
    const forged = uniq('forged-token')
    secrets.add(forged)
    expect((await call(`/api/v1/systems?access_token=${forged}`)).status).toBe(401)
    expect((await call(`/api/oauth/expire?access_token=${viaForm.access_token}`)).status).toBe(200)
    // error paths: an unknown route with a token in its query, a broken JSON body holding a password
    expect((await call(`/api/v1/nowhere?access_token=${forged}`)).status).toBe(404)
    const broken = await call('/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"grant_type":"password","password":"${wrong}",` })
    expect(broken.status).toBeGreaterThanOrEqual(400)
    expect(broken.status).toBeLessThan(500)
    // device REST calls with their Basic header, right and wrong
    const payload = JSON.stringify([{ 'machine.temperature': [{ timestamp: Date.now(), value: 21 }] }])
    expect((await deviceFetch(stack, 'POST', '/device/messages', { user: device.serial, password: device.restPassword ?? '', body: payload })).status).toBe(200)
    expect((await deviceFetch(stack, 'GET', '/device/tasks', { user: device.serial, password: device.restPassword ?? '' })).status).toBe(200)
    expect((await deviceFetch(stack, 'GET', '/device/tasks', { user: device.serial, password: wrong })).status).toBe(401)

    const log = lines.join('')
    expect(log).toContain('/api/oauth/token?grant_type=password') // the requests are logged ...
    expect(log).toContain('password=[redacted]') // ... with their secrets masked
    for (const s of secrets) {
      expect(s.length).toBeGreaterThan(6)
      expect(log, `a secret (${s.slice(0, 4)}…) is in the log`).not.toContain(s)
      expect(log).not.toContain(encodeURIComponent(s))
    }
    for (const line of lines) JSON.parse(line) // still JSON lines
  })
})
