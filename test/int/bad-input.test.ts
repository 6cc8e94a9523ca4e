// Bad input never answers 5xx and never changes the store (docs/api.md#using-the-api).
// A property-based walk of every route of the OpenAPI document (/api/docs/json), as an authenticated administrator
// over real HTTP: one path parameter, query parameter or JSON body at a time gets a generated bad value (NUL bytes,
// numbers no column holds, `__proto__` / `constructor`, wrong types, long and odd unicode text, arrays where scalars
// go), the others stay well-formed so that the bad value gets deep. Every answer is below 500, every 4xx is a JSON
// error body of the conventions' shape, and every answer other than a 2xx left the store exactly as it was. The
// device routes (/device/*) get the same treatment with bad Basic logins and bodies.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, CLIENT_ID, CLIENT_SECRET, type Stack } from '../helpers/stack.js'
import { createUser } from '../helpers/factories.js'
import { createSystem } from '../helpers/systems.js'
import { createDevice, deviceFetch, eventually, settle, type Device } from '../helpers/devices.js'
import { badJson, badText, BodyArbitraries, encodeQueryValue, NASTY_NUMBER_TEXTS, type JsonSchema } from '../helpers/bad-values.js'
import { changedTables, snapshot, storeTables, type Snapshot } from '../helpers/store-snapshot.js'

/** Runs per route: about 50 routes, so a few hundred requests, well under a minute on the embedded store. */
const RUNS_PER_ROUTE = 12
const DEVICE_RUNS = 60

interface Route { method: string, path: string, op: JsonSchema }
interface Sent { method: string, url: string, body?: string, headers?: Record<string, string> }

let stack: Stack
let dev: Device
let doc: { paths: Record<string, Record<string, JsonSchema>>, components?: { schemas?: Record<string, JsonSchema> } }
let tables: string[]
let before: Snapshot
const uids: Record<string, string> = {}

beforeAll(async () => {
  stack = await startStack({ listen: true })
  dev = await createDevice(stack)
  uids.system = dev.uid
  uids.victimSystem = (await createSystem(stack, { name: 'victim' })).uid
  uids.victimUser = (await createUser(stack, { rights: ['entities.systems.view'] })).uid
  const stored = await deviceFetch(stack, 'POST', '/device/messages', { user: dev.serial, password: dev.restPassword ?? '', body: '{"fuzz.temperature": 21.5}' })
  expect(stored.status).toBe(200)
  await settle(stack)
  const messages = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${dev.uid}/messages` })
  uids.message = (messages.json() as { messages: Array<{ uid: string }> }).messages[0]?.uid ?? 'none'
  const label = await stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/label', payload: { labels: { add: ['fuzz'] }, criteria: { uids: [dev.uid] } } })
  uids.operation = (label.json() as { operation: string }).operation
  const apps = await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/applications?size=1' })
  uids.application = (apps.json() as { items: Array<{ uid: string }> }).items[0]?.uid ?? 'none'
  doc = (await stack.api.inject({ method: 'GET', url: '/api/docs/json' })).json()
  tables = await storeTables(stack.db)
  before = await quiet()
}, 120_000)
afterAll(async () => { await stack.close() })

/** Jobs of the operations engine due or running (the periodic sweeps aside): work that will change the store. */
async function jobsDue (): Promise<number> {
  const { rows } = await stack.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM jobs WHERE repeat_every_ms IS NULL AND attempt < max_attempts
     AND (run_at <= $1 OR locked_until IS NOT NULL)`, [Date.now()])
  return rows[0]?.n ?? 0
}

/**
 * The store once background work (operation tasks, derived device state) has stopped changing it: the ingest
 * drained, no engine job due or running, and the store as it was at the previous look.
 */
async function quiet (): Promise<Snapshot> {
  await settle(stack)
  let last = await snapshot(stack.db, tables)
  let changed: string[] = []
  return await eventually(async () => {
    await settle(stack)
    const due = await jobsDue()
    const next = await snapshot(stack.db, tables)
    changed = changedTables(last, next)
    last = next
    return due === 0 && changed.length === 0 ? next : undefined
  }, { timeoutMs: 5000, intervalMs: 100, what: 'the store to stop changing', seen: () => `last changed: ${changed.join(', ')}` })
}

function routes (): Route[] {
  const out: Route[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) if (method !== 'parameters') out.push({ method: method.toUpperCase(), path, op })
  }
  return out
}

/** A well-formed value of a path parameter: what exists, and for writes, an entity that may be spoiled. */
function pathValue (r: Route, name: string): string {
  const write = r.method !== 'GET'
  if (name === 'messageUid') return uids.message ?? 'none'
  if (name === 'name') return 'logo'
  if (r.path.startsWith('/api/v1/users/')) return write ? uids.victimUser ?? '' : stack.adminUid
  if (r.path.startsWith('/api/v1/company/')) return stack.companyUid
  if (r.path.startsWith('/api/v1/systems/')) return write ? uids.victimSystem ?? '' : uids.system ?? ''
  if (r.path.startsWith('/api/v1/operations/')) return uids.operation ?? ''
  if (r.path.startsWith('/api/v1/applications/')) return uids.application ?? ''
  return 'none'
}

/** The query parameters without which the route refuses before it reads the others. */
function baseQuery (r: Route): Record<string, string> {
  if (r.path === '/api/v1/systems/data/fleet') return { targetIds: stack.companyUid, dataIds: 'fuzz.temperature' }
  if (r.path.startsWith('/api/v1/systems/data/')) return { targetIds: uids.system ?? '', dataIds: 'fuzz.temperature' }
  if (r.path === '/api/oauth/token') return { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
  return {}
}

type Mutation =
  | { at: 'path', name: string, value: string }
  | { at: 'query', name: string, values: string[] }
  | { at: 'body', value: unknown }
  | { at: 'raw-body', text: string }

/** One bad value somewhere in a request of the route. */
function mutations (r: Route, bodies: BodyArbitraries): fc.Arbitrary<Mutation> {
  const params = (r.op.parameters ?? []) as Array<{ in: string, name: string, schema?: JsonSchema }>
  const query = [...params.filter((p) => p.in === 'query'), { in: 'query', name: 'unknownParameter' }]
  const out: Array<fc.Arbitrary<Mutation>> = [
    fc.constantFrom(...query).chain((p) => {
      // A numeric parameter mostly gets numbers no column holds; any parameter may get any bad text.
      const numeric = p.schema?.type === 'integer' || p.schema?.type === 'number'
      const value = numeric ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBER_TEXTS) }, { weight: 1, arbitrary: badText }) : badText
      return fc.record({ at: fc.constant('query' as const), name: fc.constant(p.name), values: fc.array(value, { minLength: 1, maxLength: 2 }) })
    })
  ]
  const path = params.filter((p) => p.in === 'path').map((p) => p.name)
  if (path.length > 0) out.push(fc.record({ at: fc.constant('path' as const), name: fc.constantFrom(...path), value: badText }))
  const json = r.op.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined
  if (r.method !== 'GET') {
    out.push(fc.record({ at: fc.constant('body' as const), value: json === undefined ? badJson : bodies.bad(json) }))
    out.push(fc.record({ at: fc.constant('raw-body' as const), text: fc.constantFrom('', ' ', '{', '[1,', 'null', '"\\u0000"', '{"a":1}{') }))
  }
  return fc.oneof(...out)
}

function request (r: Route, m: Mutation): Sent {
  const path = r.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeQueryValue(m.at === 'path' && m.name === name ? m.value : pathValue(r, name)))
  const query = Object.entries(baseQuery(r)).filter(([k]) => m.at !== 'query' || k !== m.name).map(([k, v]) => `${k}=${encodeQueryValue(v)}`)
  if (m.at === 'query') for (const v of m.values) query.push(`${m.name}=${encodeQueryValue(v)}`)
  const url = path + (query.length > 0 ? `?${query.join('&')}` : '')
  // The OAuth endpoints are open, and a bearer token sent to /api/oauth/expire is the token it revokes.
  const headers: Record<string, string> = r.path.startsWith('/api/oauth/') ? {} : { authorization: `Bearer ${stack.adminToken}` }
  if (m.at === 'body') return { method: r.method, url, body: JSON.stringify(m.value) ?? 'null', headers: { ...headers, 'content-type': 'application/json' } }
  if (m.at === 'raw-body') return { method: r.method, url, body: m.text, headers: { ...headers, 'content-type': 'application/json' } }
  return { method: r.method, url, headers }
}

/** Sends it and checks the three properties; after a success the store it left is the new reference. */
async function check (sent: Sent): Promise<void> {
  const what = `${sent.method} ${sent.url.slice(0, 300)} ${sent.body?.slice(0, 300) ?? ''}`
  const res = await fetch(stack.httpUrl + sent.url, { method: sent.method, headers: sent.headers, ...(sent.body === undefined ? {} : { body: sent.body }) })
  const text = await res.text()
  expect(res.status, `${what} → ${text.slice(0, 200)}`).toBeLessThan(500)
  // The walk is signed in as the administrator throughout: a 401 would mean it lost its token and tests nothing.
  if (sent.url.startsWith('/api/v1/')) expect(res.status, `${what} → ${text.slice(0, 200)}`).not.toBe(401)
  // The sign-in page of the authorization endpoint speaks to a person in a browser: its refusals are HTML pages
  // (RFC 6749 §4.1.2.1: a bad client or redirect URI is shown to the user, never redirected).
  const html = sent.url.startsWith('/api/oauth/authorize') && (res.headers.get('content-type') ?? '').startsWith('text/html')
  if (res.status >= 400 && !html) {
    let body: { error?: unknown, errorParameters?: unknown, error_description?: unknown }
    try { body = JSON.parse(text) } catch { throw new Error(`${what} → ${res.status} answered no JSON: ${text.slice(0, 200)}`) }
    expect(typeof body.error, what).toBe('string')
    // docs/api.md#using-the-api: {error, errorParameters}; a refused token and the OAuth endpoints use RFC 6749's.
    if (body.error_description === undefined) expect(Array.isArray(body.errorParameters) && body.errorParameters.every((p) => typeof p === 'string'), `${what} → ${text.slice(0, 200)}`).toBe(true)
  }
  if (res.status >= 200 && res.status < 300) {
    before = await quiet()
    return
  }
  const after = await snapshot(stack.db, tables)
  expect(changedTables(before, after), `${what} → ${res.status} ${text.slice(0, 200)} changed the store`).toEqual([])
}

describe('every route of the OpenAPI document, with bad values', () => {
  it('answers below 500, a JSON error body for every 4xx, and leaves the store as it was unless it succeeded', async () => {
    const all = routes().filter((r) => !r.path.startsWith('/device/'))
    expect(all.length).toBeGreaterThan(30)
    const bodies = new BodyArbitraries(doc.components?.schemas ?? {}, ['fuzz', uids.system ?? '', stack.companyUid, uids.operation ?? ''])
    for (const r of all) {
      await fc.assert(fc.asyncProperty(mutations(r, bodies), async (m) => { await check(request(r, m)) }), { numRuns: RUNS_PER_ROUTE })
    }
  }, 120_000)
})

describe('the device routes, with bad Basic logins and bodies', () => {
  const text = (s: string): string => Buffer.from(s, 'utf8').toString('base64')
  const login = fc.oneof(
    fc.constant('ADoA'), // "\0:\0"
    fc.tuple(badText, badText).map(([u, p]) => text(`${u}:${p}`)),
    badText.map((p) => text(`${dev.serial}:${p}`)),
    badText.map((u) => text(`${u}:${dev.restPassword ?? ''}`)),
    fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString('base64')),
    fc.constantFrom('', '=', '!!!', 'Og==')
  )
  const body = fc.oneof(
    badJson.map((v) => JSON.stringify(v) ?? 'null'),
    fc.constantFrom('', '{', '[{"x":[{"timestamp":"\\u0000","value":1}]}]', '{"\\u0000":1}', '[{"uid":"\\u0000","status":"OK"}]', '{"t":1e309}'),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1'))
  )

  it('answers below 500 and changes nothing for a refused login or payload', async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(['POST', '/device/messages'], ['GET', '/device/tasks'], ['POST', '/device/acks']), login, body, fc.constantFrom(undefined, '2', '\u00e9'),
      async ([method, url], auth, payload, version) => {
        const headers: Record<string, string> = { authorization: `Basic ${auth}`, 'content-type': 'application/json' }
        if (version !== undefined) headers['device-rest-version'] = version
        await check({ method: method ?? 'GET', url: url ?? '/', headers, ...(method === 'POST' ? { body: payload } : {}) })
      }), { numRuns: DEVICE_RUNS })
  }, 60_000)

  it('a valid device with a NUL byte in its payload is refused with a code, and nothing is stored', async () => {
    const auth = text(`${dev.serial}:${dev.restPassword ?? ''}`)
    for (const payload of ['{"fuzz.\\u0000": 1}', '{"fuzz.text": "a\\u0000b"}', '[{"uid":"a\\u0000b","status":"OK"}]']) {
      await check({ method: 'POST', url: payload.startsWith('[') ? '/device/acks' : '/device/messages', body: payload, headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' } })
    }
  })
})
