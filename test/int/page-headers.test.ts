// The service's own HTML pages (api/page-headers.ts): the sign-in page and Swagger UI carry a CSP, refuse framing
// (X-Frame-Options DENY, frame-ancestors 'none') and sniffing (nosniff).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_EMAIL, startStack, type Stack } from '../helpers/stack.js'
import { seed } from '../helpers/factories.js'
import { PAGE_STYLE_SOURCE } from '../../api/routes/authorize-page.js'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
  await seed(stack, { clients: [{ clientId: 'web', clientSecret: 'web-secret', user: ADMIN_EMAIL, redirectUris: ['https://app.example/cb'] }] })
})
afterAll(async () => { await stack.close() })

function expectNoFramingNoSniffing (res: LightMyRequestResponse): string {
  expect(res.headers['x-frame-options']).toBe('DENY')
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  const csp = String(res.headers['content-security-policy'])
  expect(csp).toContain("frame-ancestors 'none'")
  return csp
}

describe('the sign-in page', () => {
  it('allows its own style only, no script, and the form to post here and go on to the client', async () => {
    const query = new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: 'https://app.example/cb' }).toString()
    const res = await stack.api.inject({ method: 'GET', url: `/api/oauth/authorize?${query}` })
    expect(res.statusCode).toBe(200)
    const csp = expectNoFramingNoSniffing(res)
    expect(csp).toBe(`default-src 'none'; style-src ${PAGE_STYLE_SOURCE}; form-action 'self' https://app.example; frame-ancestors 'none'; base-uri 'none'`)
    expect(res.headers['referrer-policy']).toBe('no-referrer')
  })

  it('keeps them on a refusal and on a wrong password', async () => {
    const refused = await stack.api.inject({ method: 'GET', url: '/api/oauth/authorize?client_id=nobody' })
    expect(refused.statusCode).toBe(400)
    expect(expectNoFramingNoSniffing(refused)).toContain("form-action 'self';")
    const wrong = await stack.api.inject({
      method: 'POST',
      url: '/api/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: 'https://app.example/cb', username: ADMIN_EMAIL, password: 'wrong', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }).toString()
    })
    expect(wrong.statusCode).toBe(401)
    expect(expectNoFramingNoSniffing(wrong)).toContain("form-action 'self' https://app.example;")
  })
})

describe('Swagger UI', () => {
  it('serves its page and files with its CSP, framed by no one, without upgrading its own files to https', async () => {
    for (const url of ['/api/docs', '/api/docs/', '/api/docs/static/swagger-initializer.js', '/api/docs/json']) {
      const res = await stack.api.inject({ method: 'GET', url })
      expect(res.statusCode, url).toBe(200)
      const csp = expectNoFramingNoSniffing(res)
      expect(csp).toContain("script-src 'self'")
      expect(csp).not.toContain('upgrade-insecure-requests')
    }
  })
})
