// CORS_ORIGINS (docs/monitoring.md): a browser preflight (OPTIONS with Origin and Access-Control-Request-Method)
// is answered with the CORS headers, Authorization included, before authentication; unset, no CORS header at all.
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'

type Headers = Record<string, string | string[] | undefined>

/** A raw HTTP request (fetch would not let a test set Origin freely). */
async function call (url: string, method: string, headers: Record<string, string>): Promise<{ status: number, headers: Headers }> {
  return await new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.resume()
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers }) })
    })
    req.on('error', reject)
    req.end()
  })
}

const APP = 'https://console.example.com'
const preflight = { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' }

describe('CORS_ORIGINS set', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, env: { CORS_ORIGINS: `${APP}, https://other.example.com` } }) })
  afterAll(async () => { await stack.close() })

  it('answers a preflight of an API route with the allowed origin, methods and headers (Authorization too)', async () => {
    const res = await call(`${stack.httpUrl}/api/v1/systems`, 'OPTIONS', preflight)
    expect(res.status).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST')
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization')
    expect(res.headers['access-control-max-age']).toBe('600')
  })

  it('answers the preflight of the token endpoint too', async () => {
    const res = await call(`${stack.httpUrl}/api/oauth/token`, 'OPTIONS', preflight)
    expect(res.status).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
  })

  it('puts the origin on the actual answer and exposes Retry-After and X-Request-Id', async () => {
    const res = await call(`${stack.httpUrl}/api/v1/users/current`, 'GET', { origin: APP, authorization: `Bearer ${stack.adminToken}` })
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('retry-after')
  })

  it('gives an origin not in the list no allow-origin header', async () => {
    const res = await call(`${stack.httpUrl}/api/v1/systems`, 'OPTIONS', { ...preflight, origin: 'https://evil.example.net' })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('CORS_ORIGINS=*', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, env: { CORS_ORIGINS: '*' } }) })
  afterAll(async () => { await stack.close() })

  it('allows any origin', async () => {
    const res = await call(`${stack.httpUrl}/api/v1/systems`, 'OPTIONS', { ...preflight, origin: 'https://anyone.example.org' })
    expect(res.status).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe('*')
  })
})

describe('CORS_ORIGINS unset', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true }) })
  afterAll(async () => { await stack.close() })

  it('sends no CORS header', async () => {
    const res = await call(`${stack.httpUrl}/api/v1/users/current`, 'GET', { origin: APP, authorization: `Bearer ${stack.adminToken}` })
    expect(res.status).toBe(200)
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  })
})
