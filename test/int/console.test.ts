// The web console's server side: /console/ serves the shell's page with a strict CSP, and the bundle of
// console/src/main.ts built in memory by esbuild; /users/current/companies feeds its company switcher.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../helpers/stack.js'
import { seed } from '../helpers/factories.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ env: { PUBLIC_URL: 'http://fleet.test:8080' } }) })
afterAll(async () => { await stack.close() })

describe('GET /console/', () => {
  it('redirects /console to /console/', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/console' })
    expect(res.statusCode).toBe(301)
    expect(res.headers.location).toBe('/console/')
  })

  it('gives the page, loading app.js and app.css, with a CSP allowing no inline script nor other origin', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/console/', headers: { host: 'fleet.test:8080' } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/html/)
    expect(res.body).toContain('<script type="module" src="app.js"></script>')
    expect(res.body).toContain('<link rel="stylesheet" href="app.css">')
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("connect-src 'self' ws://fleet.test:8080 wss://fleet.test:8080")
    expect(csp).not.toContain('unsafe-inline')
    expect(res.headers['x-frame-options']).toBe('DENY')
  })

  it('bundles the shell and its pages into app.js and their styles into app.css', async () => {
    const js = await stack.api.inject({ method: 'GET', url: '/console/app.js' })
    expect(js.statusCode).toBe(200)
    expect(js.headers['content-type']).toMatch(/^text\/javascript/)
    expect(js.body).toContain('fleet-console') // lib/auth.ts's client id
    expect(js.body).toContain('/api/v1/users/current/companies') // shell/session.ts
    expect(js.body).not.toMatch(/^import /m) // one file: nothing left to fetch
    const css = await stack.api.inject({ method: 'GET', url: '/console/app.css' })
    expect(css.statusCode).toBe(200)
    expect(css.headers['content-type']).toMatch(/^text\/css/)
    expect(css.body).toContain('.shell-header')
    expect(css.body).toContain('.uplot') // uPlot's CSS, imported by the system page's chart
  })

  it('answers 404 for a file it does not have', async () => {
    const res = await stack.api.inject({ method: 'GET', url: '/console/nothing.js' })
    expect(res.statusCode).toBe(404)
    expect(res.json().error).toBe('not.found')
  })
})

describe('GET /api/v1/users/current/companies', () => {
  it('lists the caller\'s companies, their own first, with whether they administer each', async () => {
    await seed(stack, {
      companies: [{ name: 'Acme' }],
      users: [{ email: 'ops@test.local', name: 'Ops', password: 'ops-password', companies: [{ company: COMPANY_NAME }, { company: 'Acme', administrator: true }] }]
    })
    const res = await stack.call(await stack.login('ops@test.local', 'ops-password'), { method: 'GET', url: '/api/v1/users/current/companies' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual([
      { uid: stack.companyUid, name: COMPANY_NAME, administrator: false, home: true },
      { uid: expect.any(String), name: 'Acme', administrator: true, home: false }
    ])
    expect((await stack.api.inject({ method: 'GET', url: '/api/v1/users/current/companies' })).statusCode).toBe(401)
  })
})
