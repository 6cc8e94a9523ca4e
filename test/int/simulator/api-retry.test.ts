// The simulator's API client comes back after a refusal that says nothing changed: 429 (rate limit) and 503 (shed
// under load, docs/api.md#using-the-api), waiting Retry-After. Under a loaded embedded store a 503 during
// registration used to end a whole simulated fleet's run.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { connectApi } from '../../../simulator/provision.js'

let server: Server | undefined
afterEach(async () => { await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined)) })

/** A service that refuses the first `refusals` API calls with `status`, then answers 200. */
async function serve (status: number, refusals: number): Promise<{ url: string, calls: () => number }> {
  let calls = 0
  server = createServer((req, res) => {
    if (req.url === '/api/oauth/token') {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 }))
      return
    }
    calls++
    if (calls <= refusals) {
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' })
      res.end(JSON.stringify({ error: status === 503 ? 'service.unavailable' : 'rate.limit.exceeded', errorParameters: [] }))
      return
    }
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ uid: 'abc' }))
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls }
}

describe('simulator API client', () => {
  it.each([503, 429])('retries a call refused with %i and answers the later success', async (status) => {
    const svc = await serve(status, 2)
    const api = await connectApi({ url: svc.url, clientId: 'c', clientSecret: 's' })
    const res = await api.request('POST', '/api/v1/systems', { name: 'x' })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ uid: 'abc' })
    expect(svc.calls()).toBe(3)
  })

  it('answers any other error at once', async () => {
    const svc = await serve(400, 1)
    const api = await connectApi({ url: svc.url, clientId: 'c', clientSecret: 's' })
    const res = await api.request('POST', '/api/v1/systems', { name: 'x' })
    expect(res.status).toBe(400)
    expect(svc.calls()).toBe(1)
  })
})
