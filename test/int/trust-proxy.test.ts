// Behind a reverse proxy (docs/security.md#behind-a-proxy): with TRUST_PROXY naming it, the client's address is the one
// the proxy writes in X-Forwarded-For, for sign-in throttling and a company's IP filters alike; from any other peer,
// and without TRUST_PROXY, the header is ignored. Real HTTP requests from 127.0.0.1, the "proxy".
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { createUser } from '../helpers/factories.js'

async function passwordGrant (stack: Stack, username: string, password: string, forwardedFor: string): Promise<Response> {
  return await fetch(`${stack.httpUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'x-forwarded-for': forwardedFor },
    body: new URLSearchParams({ grant_type: 'password', username, password, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })
  })
}

// The throttle's waits run on the service's clock: held still, a wait cannot run out while a loaded machine is slow to
// send the next request (the owner's try would then be let in, and the test would read that as no throttling).
const still = (): { now: () => number } => { const at = Date.now(); return { now: () => at } }

/** 20 wrong passwords from one forwarded address, then the owner's right one from another. */
async function ownerAfterGuesses (stack: Stack): Promise<number> {
  const user = await createUser(stack)
  for (let i = 0; i < 20; i++) await passwordGrant(stack, user.email, `guess-${i}`, '203.0.113.66')
  return (await passwordGrant(stack, user.email, user.password, '198.51.100.7')).status
}

describe('with TRUST_PROXY naming the proxy', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, transports: [], clock: still(), env: { TRUST_PROXY: '10.9.9.9, 127.0.0.0/8' } }) })
  afterAll(async () => { await stack.close() })

  it('throttles the forwarded address: 20 wrong passwords from one do not lock out a user signing in from another', async () => {
    expect(await ownerAfterGuesses(stack)).toBe(200)
    const user = await createUser(stack)
    for (let i = 0; i < 5; i++) expect((await passwordGrant(stack, user.email, 'wrong', '203.0.113.67')).status).toBe(400)
    expect((await passwordGrant(stack, user.email, user.password, '203.0.113.67')).status).toBe(429) // the guesser waits
  })

  it('applies a company\'s IP filters to the forwarded address; the last untrusted hop is the client', async () => {
    const me = await fetch(`${stack.httpUrl}/api/v1/company/${stack.companyUid}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.7' },
      body: JSON.stringify({ ipFiltering: true, ipFilters: { startIPAddress: null, endIPAddress: null, ipAddresses: ['192.0.2.7'] } })
    })
    expect(me.status, await me.text()).toBe(200)
    const users = async (forwardedFor: string): Promise<Response> =>
      await fetch(`${stack.httpUrl}/api/v1/users`, { headers: { authorization: `Bearer ${stack.adminToken}`, 'x-forwarded-for': forwardedFor } })
    expect((await users('192.0.2.7')).status).toBe(200)
    expect((await users('192.0.2.7, 10.9.9.9')).status).toBe(200) // through two trusted proxies
    const refused = await users('192.0.2.8')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ error: 'ip.forbidden', errorParameters: ['192.0.2.8'] })
    // A client cannot pass for an allowed address by writing the header itself: the proxy appends what it sees.
    expect((await users('192.0.2.7, 192.0.2.8')).status).toBe(403)
  })
})

describe('without TRUST_PROXY', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, transports: [], clock: still() }) })
  afterAll(async () => { await stack.close() })

  it('ignores X-Forwarded-For: every try counts against the peer\'s own address', async () => {
    expect(await ownerAfterGuesses(stack)).toBe(429) // the owner and the guesser are one address, 127.0.0.1
    for (let i = 0; i < 20; i++) await passwordGrant(stack, `nobody-${i}@test.local`, 'guess', `198.51.100.${i}`)
    expect((await passwordGrant(stack, ADMIN_EMAIL, ADMIN_PASSWORD, '198.51.100.200')).status).toBe(429)
  })
})
