// The console's address (core/domain/console-client.ts): from PUBLIC_URL, or from the Host header only when it names
// the listener the request came to; never the Host header alone. Real HTTP requests on 127.0.0.1 with a Host header
// of the test's choosing (fetch would not send one).
import { request as httpRequest } from 'node:http'
import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, ADMIN_PASSWORD, startStack, type Stack } from '../helpers/stack.js'

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string }

/** One request with the given Host header to the stack's HTTP port. */
async function send (stack: Stack, method: string, path: string, host: string, form?: Record<string, string>): Promise<Answer> {
  const body = form === undefined ? undefined : new URLSearchParams(form).toString()
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${stack.httpUrl}${path}`, {
      method,
      headers: { host, ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => { text += c }).on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }) })
    })
    req.on('error', reject)
    req.end(body)
  })
}

const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url')
const consoleRequest = { response_type: 'code', client_id: 'fleet-console', code_challenge: challenge, code_challenge_method: 'S256' }
const query = (q: Record<string, string>): string => `/api/oauth/authorize?${new URLSearchParams(q).toString()}`

describe('without PUBLIC_URL', () => {
  let stack: Stack
  let port = ''
  beforeAll(async () => {
    stack = await startStack({ listen: true, transports: [] })
    port = new URL(stack.httpUrl).port
  })
  afterAll(async () => { await stack.close() })

  it('sends a console sign-in to the address the service was reached at: 127.0.0.1 and localhost with its port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const page = await send(stack, 'GET', query(consoleRequest), host)
      expect(page.status, host).toBe(200)
      expect(page.body).toContain(`name="redirect_uri" value="http://${host}/console/"`)
      const signedIn = await send(stack, 'POST', '/api/oauth/authorize', host, { ...consoleRequest, redirect_uri: `http://${host}/console/`, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
      expect(signedIn.status).toBe(302)
      expect(String(signedIn.headers.location)).toMatch(new RegExp(`^http://${host}/console/\\?code=`))
    }
  })

  it('never to another Host: Host evil.test gets neither a code nor a token', async () => {
    for (const host of ['evil.test', `evil.test:${port}`, '127.0.0.1:1', `127.0.0.1.evil.test:${port}`]) {
      const page = await send(stack, 'GET', query(consoleRequest), host)
      expect(page.status, host).toBe(400)
      expect(page.body).toContain('set PUBLIC_URL')
      for (const type of ['code', 'token']) {
        const posted = await send(stack, 'POST', '/api/oauth/authorize', host,
          { ...consoleRequest, response_type: type, redirect_uri: `http://${host}/console/`, username: ADMIN_EMAIL, password: ADMIN_PASSWORD })
        expect(posted.status, `${host} ${type}`).toBe(400)
        expect(posted.headers.location).toBeUndefined()
      }
    }
  })

  it('puts only the listener\'s own address into the console\'s CSP, never a Host it does not know', async () => {
    const own = await send(stack, 'GET', '/console/', `127.0.0.1:${port}`)
    expect(own.headers['content-security-policy']).toContain(`connect-src 'self' ws://127.0.0.1:${port} wss://127.0.0.1:${port};`)
    const evil = await send(stack, 'GET', '/console/', "evil.test;script-src 'unsafe-inline'")
    expect(evil.status).toBe(200)
    const csp = String(evil.headers['content-security-policy'])
    expect(csp).toContain("connect-src 'self';")
    expect(csp).not.toContain('evil')
    expect(csp).not.toContain('unsafe-inline')
  })
})

describe('with PUBLIC_URL', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, transports: [], env: { PUBLIC_URL: 'https://fleet.example.com/ops' } }) })
  afterAll(async () => { await stack.close() })

  it('takes the console\'s address from it, whatever the Host header says', async () => {
    const page = await send(stack, 'GET', query(consoleRequest), 'evil.test')
    expect(page.status).toBe(200)
    expect(page.body).toContain('name="redirect_uri" value="https://fleet.example.com/ops/console/"')
    const csp = String((await send(stack, 'GET', '/console/', 'evil.test')).headers['content-security-policy'])
    expect(csp).toContain("connect-src 'self' ws://fleet.example.com wss://fleet.example.com;")
  })
})
