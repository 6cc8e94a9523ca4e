// Password guessing is throttled (issue 8): per account and per client address, 5 failures (the default) and then
// a wait that doubles with each further failure; during it the token endpoint answers 429 rate.limit.exceeded with
// Retry-After (conventions.md §Errors) without checking the credentials. The service's clock is moved, not waited on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { createUser, seed, uniq } from '../helpers/factories.js'

// A clock that stands still unless a test moves it: a slow machine must not end a wait on its own.
const start = Date.now()
let offset = 0
const clock = { now: () => start + offset }
const ADDRESS_FAILURES = 8

let stack: Stack
beforeAll(async () => { stack = await startStack({ clock, env: { LOGIN_THROTTLE_ADDRESS_FAILURES: String(ADDRESS_FAILURES) } }) })
afterAll(async () => { await stack.close() })

let addresses = 0
/** Each test its own client address, so that only its own tries count against it. */
const newAddress = (): string => `10.0.0.${++addresses}`

async function passwordGrant (username: string, password: string, address: string): Promise<LightMyRequestResponse> {
  return await stack.api.inject({
    method: 'POST',
    url: '/api/oauth/token',
    remoteAddress: address,
    payload: { grant_type: 'password', username, password, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
  })
}

function expectWait (res: LightMyRequestResponse, seconds: number): void {
  expect(res.statusCode).toBe(429)
  expect(res.json()).toEqual({ error: 'rate.limit.exceeded', errorParameters: [] })
  expect(res.headers['retry-after']).toBe(String(seconds))
}

describe('per account', () => {
  it('answers the sixth wrong try 429 with Retry-After; refuses even the right password during the wait; lets it in after', async () => {
    const user = await createUser(stack)
    const address = newAddress()
    for (let i = 0; i < 5; i++) expect((await passwordGrant(user.email, 'wrong', address)).json().error).toBe('invalid_grant')
    expectWait(await passwordGrant(user.email, 'wrong', address), 1)
    expectWait(await passwordGrant(user.email, user.password, address), 1)
    offset += 1000
    expect((await passwordGrant(user.email, user.password, address)).statusCode).toBe(200)
    // The success forgot the account's failures: five more wrong tries are answered before the next wait (from
    // another address, whose own count stays below its limit).
    const other = newAddress()
    for (let i = 0; i < 5; i++) expect((await passwordGrant(user.email, 'wrong', other)).statusCode).toBe(400)
    expectWait(await passwordGrant(user.email, user.password, other), 1)
  })

  it('doubles the wait with each further failure, whatever the address', async () => {
    const user = await createUser(stack)
    for (let i = 0; i < 5; i++) await passwordGrant(user.email, 'wrong', newAddress())
    for (const wait of [1, 2, 4, 8]) {
      expectWait(await passwordGrant(user.email, 'wrong', newAddress()), wait)
      offset += wait * 1000
      expect((await passwordGrant(user.email, 'wrong', newAddress())).statusCode).toBe(400)
    }
  })

  it('throttles an unknown account the same way: a wait does not tell which accounts exist', async () => {
    const address = newAddress()
    const nobody = `${uniq('nobody')}@test.local`
    for (let i = 0; i < 5; i++) expect((await passwordGrant(nobody, 'wrong', address)).json().error).toBe('invalid_grant')
    expectWait(await passwordGrant(nobody, 'wrong', address), 1)
    expectWait(await passwordGrant(nobody.toUpperCase(), 'wrong', newAddress()), 1) // e-mail case does not matter
  })

  it('holds a burst of concurrent guesses too: at most five are checked', async () => {
    const user = await createUser(stack)
    const answers = await Promise.all(Array.from({ length: 12 }, async () => await passwordGrant(user.email, 'wrong', newAddress())))
    expect(answers.filter((r) => r.statusCode === 400)).toHaveLength(5)
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(7)
  })
})

describe('per address', () => {
  it('makes one address wait after failures on many accounts; other addresses go on', async () => {
    const user = await createUser(stack)
    const address = newAddress()
    for (let i = 0; i < ADDRESS_FAILURES; i++) {
      expect((await passwordGrant(`${uniq('spray')}@test.local`, 'guess', address)).statusCode).toBe(400)
    }
    expectWait(await passwordGrant(user.email, user.password, address), 1)
    expect((await passwordGrant(user.email, user.password, newAddress())).statusCode).toBe(200)
    offset += 1000
    expect((await passwordGrant(user.email, user.password, address)).statusCode).toBe(200)
  })

  it('counts wrong client secrets against the address, and successes not at all', async () => {
    const address = newAddress()
    const clientGrant = async (secret: string): Promise<LightMyRequestResponse> => await stack.api.inject({
      method: 'POST', url: '/api/oauth/token', remoteAddress: address, payload: { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: secret }
    })
    for (let i = 0; i < ADDRESS_FAILURES + 2; i++) expect((await clientGrant(CLIENT_SECRET)).statusCode).toBe(200)
    for (let i = 0; i < ADDRESS_FAILURES; i++) expect((await clientGrant('wrong')).statusCode).toBe(401)
    expectWait(await clientGrant(CLIENT_SECRET), 1)
  })
})

describe('the sign-in page of /api/oauth/authorize', () => {
  it('shares the account\'s failures and shows the wait with 429 and Retry-After', async () => {
    const redirectUri = 'https://app.example/cb'
    await seed(stack, { clients: [{ clientId: 'web', clientSecret: 'web-secret', user: ADMIN_EMAIL, redirectUris: [redirectUri] }] })
    const user = await createUser(stack)
    const address = newAddress()
    for (let i = 0; i < 5; i++) await passwordGrant(user.email, 'wrong', address)
    const res = await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/authorize',
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: redirectUri, username: user.email, password: user.password }).toString()
    })
    expect(res.statusCode).toBe(429)
    expect(res.headers['retry-after']).toBe('1')
    expect(res.headers.location).toBeUndefined()
    expect(res.body).toContain('Too many failed sign-ins: try again in 1 s.')
  })
})
