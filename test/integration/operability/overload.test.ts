// Load shedding (issue 8, Overload): past the in-flight cap or the event loop delay threshold a request is answered at
// once with 503 service.unavailable and Retry-After, while /health, /ready and /metrics keep answering; once the load
// is gone, requests are served again. Slow and busy requests come from routes of the test, added through buildApi's
// plugins. (The test stack turns the event loop check off; these tests turn it on in an API of their own.)
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApi } from '../../../api/app.js'
import type { AppContext } from '../../../core/context.js'
import type { Config } from '../../../core/config.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { until } from '../../helpers/operations.js'

interface Gate { entered: number, release: () => void, wait: Promise<void> }

function gate (): Gate {
  let release = (): void => {}
  const wait = new Promise<void>((resolve) => { release = resolve })
  return { entered: 0, release, wait }
}

/** The stack's API again, on its own port, with `over` configuration and a GET /slow that waits for the gate. */
async function apiWith (stack: Stack, over: Partial<Config>, g: { current: Gate }, more?: (app: FastifyInstance) => Promise<void>): Promise<{ url: string, app: FastifyInstance }> {
  const ctx: AppContext = { ...stack.ctx, config: Object.freeze({ ...stack.ctx.config, ...over }) }
  const app = await buildApi(ctx, {
    docs: false,
    plugins: [async (a) => {
      a.get('/slow', { config: { public: true } }, async () => { g.current.entered++; await g.current.wait; return { ok: true } })
      await more?.(a)
    }]
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, app }
}

const shedBody = { error: 'service.unavailable', errorParameters: [] }

describe('OVERLOAD_MAX_IN_FLIGHT', () => {
  let stack: Stack
  let api: { url: string, app: FastifyInstance }
  const g = { current: gate() }
  beforeAll(async () => {
    stack = await startStack()
    api = await apiWith(stack, { OVERLOAD_MAX_IN_FLIGHT: 2, OVERLOAD_RETRY_AFTER_S: 3 }, g)
  })
  afterAll(async () => {
    g.current.release()
    // The sockets of the clients that went away may still count as busy: close them outright.
    api.app.server.closeAllConnections()
    await api.app.close()
    await stack.close()
  })
  const user = async (): Promise<Response> => await fetch(`${api.url}/api/v1/users/current`, { headers: { authorization: `Bearer ${stack.adminToken}` } })

  it('sheds a request past the cap at once with 503 and Retry-After, and serves again once the load is gone', async () => {
    const slow = [fetch(`${api.url}/slow`), fetch(`${api.url}/slow`)]
    slow.forEach((p) => { p.catch(() => {}) }) // awaited below; a failed test must not leave them unhandled
    await until('both slow requests in', () => g.current.entered === 2)

    const t = performance.now()
    const shed = await user()
    expect(performance.now() - t).toBeLessThan(1000)
    expect(shed.status).toBe(503)
    expect(shed.headers.get('retry-after')).toBe('3')
    expect(await shed.json()).toEqual(shedBody)
    expect((await fetch(`${api.url}/slow`)).status).toBe(503)

    // What an operator looks at is never shed.
    for (const path of ['/health', '/ready', '/metrics']) expect((await fetch(`${api.url}${path}`)).status).toBe(200)
    const metrics = await (await fetch(`${api.url}/metrics`)).text()
    expect(metrics).toMatch(/^fleet_http_requests_shed_total\{reason="in_flight"\} [2-9]\d*$/m)

    g.current.release()
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200])
    expect((await user()).status).toBe(200)
  })

  it('frees the slot of a client that went away', async () => {
    g.current = gate()
    const aborts = [new AbortController(), new AbortController()]
    const gone = aborts.map(async (a) => await fetch(`${api.url}/slow`, { signal: a.signal }).catch(() => undefined))
    await until('both slow requests in', () => g.current.entered === 2)
    expect((await user()).status).toBe(503)
    for (const a of aborts) a.abort()
    await Promise.all(gone)
    await until('a slot free again', async () => (await user()).status === 200)
    g.current.release()
  })
})

/** A raw connection to the API, accepted by the server before it resolves. */
async function rawConnection (api: { url: string, app: FastifyInstance }): Promise<Socket> {
  const { hostname, port } = new URL(api.url)
  const socket = connect(Number(port), hostname)
  socket.setEncoding('utf8')
  await once(socket, 'connect')
  return socket
}

/** Reads one HTTP answer: its status, its head and its body. */
async function answer (socket: Socket): Promise<{ status: number, head: string, body: string }> {
  let text = ''
  for await (const chunk of socket) {
    text += chunk as string
    const end = text.indexOf('\r\n\r\n')
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1)
    if (end >= 0 && length >= 0 && text.length >= end + 4 + length) break
  }
  const [head = '', body = ''] = text.split('\r\n\r\n')
  return { status: Number(head.slice(9, 12)), head: head.toLowerCase(), body }
}

describe('OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', () => {
  let stack: Stack
  let api: { url: string, app: FastifyInstance }
  beforeAll(async () => {
    stack = await startStack()
    api = await apiWith(stack, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: 200 }, { current: gate() }, async (a) => {
      // 600 ms of work that never lets the loop turn, as a batch of requests on the embedded store does.
      a.get('/busy', { config: { public: true } }, async () => { const end = Date.now() + 600; while (Date.now() < end) { /* busy */ } return { ok: true } })
    })
  })
  afterAll(async () => { await api.app.close(); await stack.close() })

  it('sheds a request read after the loop went 600 ms without turning, answers the probes, then serves again', async () => {
    const auth = { authorization: `Bearer ${stack.adminToken}` }
    const sockets = await Promise.all([0, 1, 2].map(async () => await rawConnection(api)))
    await until('the three connections accepted', async () => await new Promise<boolean>((resolve) => { api.app.server.getConnections((_, n) => { resolve(n === 3) }) }))
    // Written in one go, the three requests are readable together: the server reads them in one loop turn, in this
    // order, and the second and third find the loop 600 ms late.
    const requests = ['/busy', '/api/v1/users/current', '/health']
    requests.forEach((path, i) => sockets[i]?.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${auth.authorization}\r\n\r\n`))
    const [busy, shed, health] = await Promise.all(sockets.map(answer))
    sockets.forEach((s) => s.destroy())
    expect([busy?.status, shed?.status, health?.status]).toEqual([200, 503, 200])
    expect(shed?.head).toContain('retry-after: 1')
    expect(JSON.parse(shed?.body ?? '')).toEqual(shedBody)
    // The loop turns again: served.
    expect((await fetch(`${api.url}/api/v1/users/current`, { headers: auth })).status).toBe(200)
    const metrics = await (await fetch(`${api.url}/metrics`)).text()
    expect(metrics).toMatch(/^fleet_http_requests_shed_total\{reason="event_loop_delay"\} 1$/m)
  })
})
