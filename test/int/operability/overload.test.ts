// Load shedding (docs/monitoring.md): API requests past the admission's places wait a bounded time
// and are answered 503 service.unavailable with Retry-After when none frees up, without being run; past the event
// loop delay threshold a request is answered 503 at once; /health, /ready and /metrics keep answering, and routes
// outside /api take no place. Slow and busy requests come from routes of the test, added through buildApi's plugins,
// held by a gate the test opens: nothing here depends on the machine's speed. (The test stack turns load shedding
// off; these tests turn it on in an API of their own.)
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApi } from '../../../api/app.js'
import type { AppContext } from '../../../core/context.js'
import type { Config } from '../../../core/config.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { eventually } from '../../helpers/devices.js'

interface Gate { entered: number, release: () => void, wait: Promise<void> }

function gate (): Gate {
  let release = (): void => {}
  const wait = new Promise<void>((resolve) => { release = resolve })
  return { entered: 0, release, wait }
}

/**
 * The stack's API again, on its own port, with `over` configuration, a GET /api/slow (an API request: it takes a
 * place) and a GET /outside/slow (outside /api, as the device routes), both waiting for the gate.
 */
async function apiWith (stack: Stack, over: Partial<Config>, g: { current: Gate }, more?: (app: FastifyInstance) => Promise<void>): Promise<{ url: string, app: FastifyInstance }> {
  const ctx: AppContext = { ...stack.ctx, config: Object.freeze({ ...stack.ctx.config, ...over }) }
  const app = await buildApi(ctx, {
    docs: false,
    plugins: [async (a) => {
      const slow = async (): Promise<{ ok: boolean }> => { g.current.entered++; await g.current.wait; return { ok: true } }
      a.get('/api/slow', { config: { public: true } }, slow)
      a.get('/outside/slow', { config: { public: true } }, slow)
      await more?.(a)
    }]
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, app }
}

const shedBody = { error: 'service.unavailable', errorParameters: [] }
/** Load shedding on with only the signal a test looks at. */
const admissionOnly = { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: 0, OVERLOAD_TARGET_MS: 0 }

async function metric (url: string, line: RegExp): Promise<boolean> {
  return line.test(await (await fetch(`${url}/metrics`)).text())
}

describe('OVERLOAD_MAX_IN_FLIGHT without a line (OVERLOAD_MAX_QUEUE_MS=0)', () => {
  let stack: Stack
  let api: { url: string, app: FastifyInstance }
  const g = { current: gate() }
  beforeAll(async () => {
    stack = await startStack()
    api = await apiWith(stack, { ...admissionOnly, OVERLOAD_MAX_IN_FLIGHT: 2, OVERLOAD_MAX_QUEUE_MS: 0, OVERLOAD_RETRY_AFTER_S: 3 }, g)
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
    const slow = [fetch(`${api.url}/api/slow`), fetch(`${api.url}/api/slow`)]
    slow.forEach((p) => { p.catch(() => {}) }) // awaited below; a failed test must not leave them unhandled
    await eventually(async () => g.current.entered === 2, 10_000, 'both slow requests in')

    const shed = await user()
    expect(shed.status).toBe(503)
    expect(shed.headers.get('retry-after')).toBe('3')
    expect(await shed.json()).toEqual(shedBody)
    expect((await fetch(`${api.url}/api/slow`)).status).toBe(503)
    expect(g.current.entered).toBe(2)
    // A route outside /api (as the device routes) takes no place of the API's.
    const outside = fetch(`${api.url}/outside/slow`)
    await eventually(async () => g.current.entered === 3, 10_000, 'the request outside /api served')

    // What an operator looks at is never shed.
    for (const path of ['/health', '/ready', '/metrics']) expect((await fetch(`${api.url}${path}`)).status).toBe(200)
    const metrics = await (await fetch(`${api.url}/metrics`)).text()
    expect(metrics).toMatch(/^fleet_http_requests_shed_total\{reason="in_flight"\} [2-9]\d*$/m)

    g.current.release()
    expect((await Promise.all([...slow, outside])).map((r) => r.status)).toEqual([200, 200, 200])
    expect((await user()).status).toBe(200)
  })

  it('frees the slot of a client that went away', async () => {
    g.current = gate()
    const aborts = [new AbortController(), new AbortController()]
    const gone = aborts.map(async (a) => await fetch(`${api.url}/api/slow`, { signal: a.signal }).catch(() => undefined))
    await eventually(async () => g.current.entered === 2, 10_000, 'both slow requests in')
    expect((await user()).status).toBe(503)
    for (const a of aborts) a.abort()
    await Promise.all(gone)
    await eventually(async () => (await user()).status === 200, 10_000, 'a place free again')
    g.current.release()
  })
})

describe('OVERLOAD_MAX_QUEUE_MS', () => {
  let stack: Stack
  const open: Array<{ app: FastifyInstance }> = []
  beforeAll(async () => { stack = await startStack() })
  afterAll(async () => {
    for (const api of open) { api.app.server.closeAllConnections(); await api.app.close() }
    await stack.close()
  })
  const headers = (): Record<string, string> => ({ authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' })
  const createSystem = async (url: string, name: string): Promise<Response> => await fetch(`${url}/api/v1/systems`, { method: 'POST', headers: headers(), body: JSON.stringify({ name }) })
  const systemsNamed = async (name: string): Promise<number> => (await stack.db.query('SELECT uid FROM systems WHERE name = $1', [name])).rows.length
  /** An API with one place, taken by a GET /api/slow held until the gate opens. */
  async function oneBusyPlace (queueMs: number): Promise<{ url: string, g: { current: Gate }, slow: Promise<Response> }> {
    const g = { current: gate() }
    const api = await apiWith(stack, { ...admissionOnly, OVERLOAD_MAX_IN_FLIGHT: 1, OVERLOAD_MAX_QUEUE_MS: queueMs, OVERLOAD_RETRY_AFTER_S: 2 }, g)
    open.push(api)
    const slow = fetch(`${api.url}/api/slow`)
    slow.catch(() => {}) // awaited by the test; a failed test must not leave it unhandled
    await eventually(async () => g.current.entered === 1, 10_000, 'the slow request in')
    return { url: api.url, g, slow }
  }

  it('answers 503 with Retry-After to a request that found no place within its wait, and does not run it', async () => {
    const { url, g, slow } = await oneBusyPlace(100)
    const refused = await createSystem(url, 'queued-and-refused')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('2')
    expect(await refused.json()).toEqual(shedBody)
    expect(await metric(url, /^fleet_http_requests_shed_total\{reason="queue_timeout"\} 1$/m)).toBe(true)
    // What an operator looks at is never held in line.
    for (const path of ['/health', '/ready']) expect((await fetch(`${url}${path}`)).status).toBe(200)

    g.current.release()
    expect((await slow).status).toBe(200)
    expect(await systemsNamed('queued-and-refused')).toBe(0)
    // The place is free again: the same request is served.
    expect((await createSystem(url, 'queued-and-refused')).status).toBe(200)
    expect(await systemsNamed('queued-and-refused')).toBe(1)
  })

  it('serves a waiting request once a place frees up within its wait', async () => {
    const { url, g, slow } = await oneBusyPlace(60_000)
    const waiting = createSystem(url, 'queued-and-served')
    await eventually(async () => await metric(url, /^fleet_http_admission_requests\{state="waiting"\} 1$/m), 10_000, 'the request in line')
    expect(await systemsNamed('queued-and-served')).toBe(0)
    g.current.release()
    expect((await waiting).status).toBe(200)
    expect((await slow).status).toBe(200)
    expect(await systemsNamed('queued-and-served')).toBe(1)
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
    await eventually(async () => await new Promise<boolean>((resolve) => { api.app.server.getConnections((_, n) => { resolve(n === 3) }) }), 10_000, 'the three connections accepted')
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
