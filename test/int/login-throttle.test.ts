// Password and client secret guessing is throttled (docs/security.md#sign-in-throttling): 5 failures (the default) on
// one account from one address, or many from one address, or many on one account from all addresses together, and then
// a wait that doubles with each further failure; during it the token endpoint answers 429 rate.limit.exceeded with
// Retry-After without checking the credentials. The guesser waits, not the owner signing in from elsewhere; `fleet
// admin unlock` (unlockSignIn) clears an account. The service's clock is moved, not waited on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { createUser, seed, uniq } from '../helpers/factories.js'
import { unlockSignIn } from '../../core/services/sign-in-unlock.js'
import { createRepositories } from '../../storage/repositories/index.js'

// A clock that stands still unless a test moves it: a slow machine must not end a wait on its own.
const start = Date.now()
let offset = 0
const clock = { now: () => start + offset }
const ADDRESS_FAILURES = 8
const ACCOUNT_FAILURES = 12

let stack: Stack
beforeAll(async () => {
  stack = await startStack({
    clock,
    env: { LOGIN_THROTTLE_ADDRESS_FAILURES: String(ADDRESS_FAILURES), LOGIN_THROTTLE_ACCOUNT_FAILURES: String(ACCOUNT_FAILURES) }
  })
})
afterAll(async () => { await stack.close() })

let addresses = 0
/** Each try its own client address when a test wants so: only its own tries count against it. */
const newAddress = (): string => `10.0.${Math.floor(++addresses / 250)}.${addresses % 250}`

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

describe('per account and address', () => {
  it('answers the sixth wrong try 429 with Retry-After; refuses even the right password from there; lets it in after', async () => {
    const user = await createUser(stack)
    const address = newAddress()
    for (let i = 0; i < 5; i++) expect((await passwordGrant(user.email, 'wrong', address)).json().error).toBe('invalid_grant')
    expectWait(await passwordGrant(user.email, 'wrong', address), 1)
    expectWait(await passwordGrant(user.email, user.password, address), 1)
    offset += 1000
    expect((await passwordGrant(user.email, user.password, address)).statusCode).toBe(200)
    // The success forgot this address's failures on the account (not the address's own count, which a guesser could
    // otherwise reset by signing in to an account of his): more wrong tries are checked before the next wait.
    for (let i = 0; i < 3; i++) expect((await passwordGrant(user.email, 'wrong', address)).statusCode).toBe(400)
  })

  it('lets the owner in from another address while the guesser waits', async () => {
    const user = await createUser(stack)
    const guesser = newAddress()
    for (let i = 0; i < 20; i++) await passwordGrant(user.email, 'guess', guesser)
    expectWait(await passwordGrant(user.email, user.password, guesser), 1)
    expect((await passwordGrant(user.email, user.password, newAddress())).statusCode).toBe(200)
  })

  it('doubles the guesser\'s wait with each further failure', async () => {
    const user = await createUser(stack)
    const address = newAddress()
    for (let i = 0; i < 5; i++) await passwordGrant(user.email, 'wrong', address)
    for (const wait of [1, 2, 4]) {
      expectWait(await passwordGrant(user.email, 'wrong', address), wait)
      offset += wait * 1000
      expect((await passwordGrant(user.email, 'wrong', address)).statusCode).toBe(400)
    }
  })

  it('throttles an unknown account the same way: a wait does not tell which accounts exist', async () => {
    const address = newAddress()
    const nobody = `${uniq('nobody')}@test.local`
    for (let i = 0; i < 5; i++) expect((await passwordGrant(nobody, 'wrong', address)).json().error).toBe('invalid_grant')
    expectWait(await passwordGrant(nobody, 'wrong', address), 1)
    expectWait(await passwordGrant(nobody.toUpperCase(), 'wrong', address), 1) // e-mail case does not matter
  })

  it('holds a burst of concurrent guesses too: at most five are checked', async () => {
    const user = await createUser(stack)
    const address = newAddress()
    const answers = await Promise.all(Array.from({ length: 12 }, async () => await passwordGrant(user.email, 'wrong', address)))
    expect(answers.filter((r) => r.statusCode === 400)).toHaveLength(5)
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(7)
  })
})

describe('per account, from all addresses together', () => {
  it('holds the account-wide limit against guesses from many addresses; the owner\'s success does not reset it', async () => {
    const user = await createUser(stack)
    for (let i = 0; i < ACCOUNT_FAILURES - 1; i++) expect((await passwordGrant(user.email, 'wrong', newAddress())).statusCode).toBe(400)
    expect((await passwordGrant(user.email, user.password, newAddress())).statusCode).toBe(200)
    expect((await passwordGrant(user.email, 'wrong', newAddress())).statusCode).toBe(400)
    expectWait(await passwordGrant(user.email, 'wrong', newAddress()), 1)
    expectWait(await passwordGrant(user.email, user.password, newAddress()), 1)
  })

  it('is cleared by an administrator (fleet admin unlock) for every address at once', async () => {
    const user = await createUser(stack)
    const owner = newAddress()
    for (let i = 0; i < 5; i++) await passwordGrant(user.email, 'wrong', owner)
    for (let i = 5; i < ACCOUNT_FAILURES; i++) await passwordGrant(user.email, 'wrong', newAddress())
    expectWait(await passwordGrant(user.email, user.password, newAddress()), 1)
    expectWait(await passwordGrant(user.email, user.password, owner), 1)

    const repos = createRepositories(stack.db)
    expect(await unlockSignIn(repos, user.email.toUpperCase(), clock.now())).toBe(true)
    expect(await unlockSignIn(repos, `${uniq('nobody')}@test.local`, clock.now())).toBe(false)
    expect((await passwordGrant(user.email, user.password, owner)).statusCode).toBe(200)
    expect((await passwordGrant(user.email, user.password, newAddress())).statusCode).toBe(200)
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
})

describe('client secrets', () => {
  const clientGrant = async (clientId: string, secret: string, address: string): Promise<LightMyRequestResponse> => await stack.api.inject({
    method: 'POST', url: '/api/oauth/token', remoteAddress: address, payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret }
  })

  it('counts wrong secrets against the client from that address, and successes not at all', async () => {
    const address = newAddress()
    for (let i = 0; i < ADDRESS_FAILURES + 2; i++) expect((await clientGrant(CLIENT_ID, CLIENT_SECRET, address)).statusCode).toBe(200)
    for (let i = 0; i < 5; i++) expect((await clientGrant(CLIENT_ID, 'wrong', address)).statusCode).toBe(401)
    expectWait(await clientGrant(CLIENT_ID, CLIENT_SECRET, address), 1)
    expect((await clientGrant(CLIENT_ID, CLIENT_SECRET, newAddress())).statusCode).toBe(200)
  })

  it('holds a client-wide limit against guesses from many addresses', async () => {
    const clientId = uniq('guessed')
    await seed(stack, { clients: [{ clientId, clientSecret: 'right-secret', user: ADMIN_EMAIL }] })
    for (let i = 0; i < ACCOUNT_FAILURES; i++) expect((await clientGrant(clientId, `guess-${i}`, newAddress())).statusCode).toBe(401)
    expectWait(await clientGrant(clientId, 'right-secret', newAddress()), 1)
    expect((await clientGrant(CLIENT_ID, CLIENT_SECRET, newAddress())).statusCode).toBe(200) // other clients go on
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
