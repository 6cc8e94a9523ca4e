// What real AirVantage clients send (docs/api.md#using-the-api), over real HTTP: the Go client posts its
// operation cancel with `Content-Type: application/json` and no body; the Clojure client joins paths with a
// duplicate slash (`/api//v1/...`, `/api//oauth/token`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'
import { createSystem } from '../helpers/systems.js'

let stack: Stack

beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

async function send (method: string, path: string, opts: { body?: string, type?: string, token?: string | null } = {}): Promise<{ status: number, body: any }> {
  const headers: Record<string, string> = {}
  if (opts.token !== null) headers.authorization = `Bearer ${opts.token ?? stack.adminToken}`
  if (opts.type !== undefined) headers['content-type'] = opts.type
  const res = await fetch(stack.httpUrl + path, { method, headers, ...(opts.body === undefined ? {} : { body: opts.body }) })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/** A label operation scheduled a day ahead, so that it is still there to cancel. */
async function scheduledOperation (): Promise<string> {
  const s = await createSystem(stack, { name: 'quirk' })
  const res = await send('POST', '/api/v1/operations/systems/label', {
    type: 'application/json',
    body: JSON.stringify({ labels: { add: ['later'] }, criteria: { uids: [s.uid] }, scheduledTime: Date.now() + 86_400_000 })
  })
  expect(res.status).toBe(200)
  return res.body.operation
}

describe('Content-Type: application/json with an empty body is no body', () => {
  it('POST /operations/{uid}/cancel as the Go client sends it answers the cancelled operation', async () => {
    const uid = await scheduledOperation()
    const res = await send('POST', `/api/v1/operations/${uid}/cancel`, { type: 'application/json', body: '' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ uid, state: 'FINISHED' })
    expect(res.body.counters).toContainEqual({ state: 'CANCELLED', count: 1 })
  })

  it('also with a charset, white space only, or on a DELETE', async () => {
    const uid = await scheduledOperation()
    expect((await send('POST', `/api/v1/operations/${uid}/cancel`, { type: 'application/json; charset=utf-8', body: ' \r\n' })).status).toBe(200)
    const s = await createSystem(stack, { name: 'quirk-delete' })
    expect((await send('DELETE', `/api/v1/systems/${s.uid}`, { type: 'application/json', body: '' })).status).toBe(200)
    expect((await send('GET', `/api/v1/systems/${s.uid}`)).body.error).toBe('system.unknown')
  })

  it('a route that needs a body still refuses an empty one with request.invalid, and creates nothing', async () => {
    const before = (await send('GET', '/api/v1/systems?size=0')).body.count
    for (const body of ['', ' ']) {
      const res = await send('POST', '/api/v1/systems', { type: 'application/json', body })
      expect(res).toEqual({ status: 400, body: { error: 'request.invalid', errorParameters: ['body', 'must be object'] } })
    }
    expect((await send('GET', '/api/v1/systems?size=0')).body.count).toBe(before)
  })

  it('a body that is not JSON is still refused with request.invalid', async () => {
    const res = await send('POST', '/api/v1/systems', { type: 'application/json', body: '{"name":' })
    expect(res).toEqual({ status: 400, body: { error: 'request.invalid', errorParameters: ['body', 'not valid JSON'] } })
  })
})

describe('duplicate slashes are merged', () => {
  it('GET /api//v1/users/current, and more slashes elsewhere', async () => {
    for (const path of ['/api//v1/users/current', '//api/v1//users/current', '/api/v1/users//current']) {
      const res = await send('GET', path)
      expect(res.status, path).toBe(200)
      expect(res.body.email).toBe(ADMIN_EMAIL)
    }
  })

  it('POST /api//oauth/token (the Clojure client) issues a token that works', async () => {
    const form = new URLSearchParams({ grant_type: 'password', username: ADMIN_EMAIL, password: ADMIN_PASSWORD, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })
    const res = await send('POST', '/api//oauth/token', { token: null, type: 'application/x-www-form-urlencoded', body: form.toString() })
    expect(res.status).toBe(200)
    expect((await send('GET', '/api//v1//systems', { token: res.body.access_token })).status).toBe(200)
  })

  it('an unknown route is still 404 not.found', async () => {
    expect(await send('GET', '/api//v1/nothing-here')).toEqual({ status: 404, body: { error: 'not.found', errorParameters: ['/api//v1/nothing-here'] } })
  })
})
