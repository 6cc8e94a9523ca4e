import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`

describe('/api/oauth/token', () => {
  it('issues a token by the password grant with client credentials in the query (GET)', async () => {
    const qs = new URLSearchParams({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })
    const res = await stack.api.inject({ method: 'GET', url: `/api/oauth/token?${qs.toString()}` })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: '' })
    expect(typeof body.access_token).toBe('string')
    expect(typeof body.refresh_token).toBe('string')
    const me = await stack.call(body.access_token, { method: 'GET', url: '/api/v1/users/current' })
    expect(me.json().email).toBe(ADMIN_EMAIL)
  })

  it('accepts client credentials in a Basic header and a form body (POST)', async () => {
    const res = await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials' }).toString()
    })
    expect(res.statusCode).toBe(200)
    const me = await stack.call(res.json().access_token, { method: 'GET', url: '/api/v1/users/current' })
    expect(me.json().email).toBe(ADMIN_EMAIL) // the client acts as its owner
  })

  it('refreshes a token and retires the old pair', async () => {
    const first = (await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: { authorization: basic }, payload: { grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).json()
    const res = await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: { authorization: basic }, payload: { grant_type: 'refresh_token', refresh_token: first.refresh_token } })
    expect(res.statusCode).toBe(200)
    expect((await stack.call(res.json().access_token, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(200)
    expect((await stack.call(first.access_token, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(401)
    const again = await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: { authorization: basic }, payload: { grant_type: 'refresh_token', refresh_token: first.refresh_token } })
    expect(again.statusCode).toBe(400)
    expect(again.json().error).toBe('invalid_grant')
  })

  it('answers RFC 6749 errors', async () => {
    const badPw = await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: { authorization: basic }, payload: { grant_type: 'password', username: ADMIN_EMAIL, password: 'wrong' } })
    expect(badPw.statusCode).toBe(400)
    expect(badPw.json()).toMatchObject({ error: 'invalid_grant' })
    const badClient = await stack.api.inject({ method: 'POST', url: '/api/oauth/token', payload: { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: 'nope' } })
    expect(badClient.statusCode).toBe(401)
    expect(badClient.json().error).toBe('invalid_client')
    const badGrant = await stack.api.inject({ method: 'POST', url: '/api/oauth/token', headers: { authorization: basic }, payload: { grant_type: 'implicit' } })
    expect(badGrant.json().error).toBe('unsupported_grant_type')
  })
})

describe('bearer tokens', () => {
  it('accepts the access_token query parameter and refuses a missing or unknown token with 401', async () => {
    const ok = await stack.api.inject({ method: 'GET', url: `/api/v1/users/current?access_token=${stack.adminToken}` })
    expect(ok.statusCode).toBe(200)
    const none = await stack.api.inject({ method: 'GET', url: '/api/v1/users/current' })
    expect(none.statusCode).toBe(401)
    expect(none.json().error).toBe('invalid_token')
    const bad = await stack.api.inject({ method: 'GET', url: '/api/v1/users/current', headers: { authorization: 'Bearer nope' } })
    expect(bad.statusCode).toBe(401)
  })

  it('logs out with /api/oauth/expire', async () => {
    const t = await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const res = await stack.api.inject({ method: 'GET', url: `/api/oauth/expire?access_token=${t}` })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toBe('logout.successful')
    expect((await stack.call(t, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(401)
  })

  it('expires the token named in the query, not the bearer header sent beside it', async () => {
    const named = await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const header = await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const res = await stack.api.inject({ method: 'POST', url: `/api/oauth/expire?access_token=${named}`, headers: { authorization: `Bearer ${header}` } })
    expect(res.json()).toBe('logout.successful')
    expect((await stack.call(named, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(401)
    expect((await stack.call(header, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(200)
    const garbage = await stack.api.inject({ method: 'POST', url: '/api/oauth/expire?access_token=not-a-token', headers: { authorization: `Bearer ${header}` } })
    expect(garbage.json()).toBe('logout.successful')
    expect((await stack.call(header, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(200)
  })

  it('stores tokens only as hashes', async () => {
    const t = await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const { rows } = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens WHERE hash = $1', [t])
    expect(rows[0]?.n).toBe(0)
  })
})
