// Signing in to the console in Chromium: the console sends the browser to the service's own sign-in page
// with a PKCE challenge (docs/api.md#get-a-token, RFC 7636), and exchanges the code with the verifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../../helpers/stack.js'

let h: Harness
beforeAll(async () => { h = await startHarness() })
afterAll(async () => { await h?.close() })

describe('the console\'s sign-in', { timeout: 60_000 }, () => {
  it('goes through the sign-in page with an S256 challenge and exchanges the code with its verifier', async () => {
    const tab = await h.open()
    const { page } = tab
    const tokenRequests: string[] = []
    page.on('request', (r) => { if (r.url().endsWith('/api/oauth/token')) tokenRequests.push(r.postData() ?? '') })

    await page.goto(`${h.stack.httpUrl}/console/`)
    await page.getByLabel('E-mail').waitFor()
    const authorize = new URL(page.url())
    expect(authorize.pathname).toBe('/api/oauth/authorize')
    expect(authorize.searchParams.get('response_type')).toBe('code')
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${h.stack.httpUrl}/console/`)
    await screenshot(page, 'sign-in')
    // The console's own sign-in: sign-in words (no consent to another application), in the console's colours.
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor()
    expect(await page.textContent('body')).not.toContain('on your behalf')
    expect(await page.getByRole('button', { name: 'Sign in' }).evaluate((b) => b.ownerDocument.defaultView?.getComputedStyle(b).backgroundColor)).toBe('rgb(43, 108, 176)')

    await page.getByLabel('E-mail').fill(ADMIN_EMAIL)
    await page.getByLabel('Password').fill(ADMIN_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('main').waitFor()
    await page.waitForURL((u) => u.pathname === '/console/' && !u.searchParams.has('code'))

    const exchange = new URLSearchParams(tokenRequests[0] ?? '')
    expect(exchange.get('grant_type')).toBe('authorization_code')
    expect(exchange.get('code_verifier')).toMatch(/^[A-Za-z0-9._~-]{43,128}$/)
    expect(exchange.has('client_secret')).toBe(false) // a public client: a page cannot keep a secret
    // The console opens on the fleet, and the code is gone from the address bar (it is single-use anyway).
    expect(new URL(page.url()).hash).toMatch(/^#\/fleet/)
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    expect(tab.errors).toEqual([])
  })

  it('stays signed in on reload, and keeps the route asked for before signing in', async () => {
    const tab = await h.open()
    await signIn(tab, h.stack, undefined, '#/operations')
    expect(new URL(tab.page.url()).hash).toBe('#/operations')
    await tab.page.reload()
    await tab.page.getByRole('main').waitFor()
    expect(new URL(tab.page.url()).pathname).toBe('/console/')
    expect(tab.errors).toEqual([])
  })

  it('signs out: the token is revoked and the console asks to sign in again', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack)
    // lib/auth.ts keeps the tokens in the tab's sessionStorage.
    const stored = await page.evaluate('sessionStorage.getItem("fleet.console.tokens")')
    const token = (JSON.parse(String(stored)) as { access: string }).access
    expect((await h.stack.call(token, { method: 'GET', url: '/api/v1/users/current' })).statusCode).toBe(200)

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor()
    await expect.poll(async () => (await h.stack.call(token, { method: 'GET', url: '/api/v1/users/current' })).statusCode, SOON).toBe(401)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByLabel('E-mail').waitFor()
    expect(tab.errors).toEqual([])
  })

  it('refuses a wrong password on the sign-in page with a sentence, and signs in at the next try', async () => {
    const tab = await h.open()
    const { page } = tab
    await page.goto(`${h.stack.httpUrl}/console/`)
    await page.getByLabel('E-mail').fill(ADMIN_EMAIL)
    await page.getByLabel('Password').fill('not-the-password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(async () => await page.getByRole('alert').textContent(), SOON).toMatch(/\w+ \w+/)
    await page.getByLabel('Password').fill(ADMIN_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('main').waitFor()
  })
})
