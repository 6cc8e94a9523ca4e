// The bad inputs that answered 500 (docs/api.md#using-the-api), one by one over real HTTP: each now answers 400
// with a code (docs/api.md#using-the-api) that says where the request is wrong, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, CLIENT_ID, type Stack } from '../helpers/stack.js'
import { createDevice, settle, tryConnect, type Device } from '../helpers/devices.js'
import { snapshot, storeTables, changedTables, type Snapshot } from '../helpers/store-snapshot.js'

let stack: Stack
let dev: Device
let tables: string[]
let before: Snapshot

beforeAll(async () => {
  stack = await startStack({ listen: true })
  dev = await createDevice(stack)
  tables = await storeTables(stack.db)
})
afterAll(async () => { await stack.close() })

interface Answer { status: number, body: { error?: string, errorParameters?: string[] } }

async function send (method: string, path: string, opts: { body?: string, auth?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: opts.auth ?? `Bearer ${stack.adminToken}` }
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(stack.httpUrl + path, { method, headers, ...(opts.body === undefined ? {} : { body: opts.body }) })
  return { status: res.status, body: await res.json() as Answer['body'] }
}

/** Sends the request and expects 400 `code`, the first parameter `where`, and a store left as it was. */
async function refused (method: string, path: string, code: string, where: string | RegExp, opts: { body?: string, auth?: string } = {}): Promise<string[]> {
  before = await snapshot(stack.db, tables)
  const res = await send(method, path, opts)
  expect({ status: res.status, error: res.body.error }, `${method} ${path}`).toEqual({ status: 400, error: code })
  expect(res.body.errorParameters?.[0]).toMatch(where)
  expect(changedTables(before, await snapshot(stack.db, tables))).toEqual([])
  return res.body.errorParameters ?? []
}

const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`

describe('a NUL byte in any string', () => {
  it('of the query, a path uid or a JSON body answers request.invalid naming where', async () => {
    expect(await refused('GET', '/api/v1/systems?name=a%00b', 'request.invalid', 'query.name')).toEqual(['query.name', 'a NUL byte (U+0000) is not allowed in text'])
    await refused('GET', '/api/v1/users?email=%00', 'request.invalid', 'query.email')
    await refused('GET', '/api/v1/systems/a%00b', 'request.invalid', 'params.uid')
    await refused('POST', '/api/v1/operations/%00/cancel', 'request.invalid', 'params.uid')
    await refused('POST', '/api/v1/systems', 'request.invalid', 'body.name', { body: JSON.stringify({ name: 'fuzz\u0000' }) })
    await refused('PUT', `/api/v1/company/${stack.companyUid}`, 'request.invalid', 'body.address', { body: JSON.stringify({ address: '\u0000' }) })
    await refused('POST', '/api/v1/operations/systems/swapsim', 'request.invalid', 'body.systems', { body: JSON.stringify({ systems: { a: '\u0000' } }) })
    // In a key too: a map of the body is read key by key.
    await refused('POST', '/api/v1/operations/systems/swapsim', 'request.invalid', 'body.systems', { body: JSON.stringify({ systems: { 'a\u0000': 'b' } }) })
  })

  it('of a Basic login, the device\'s (`ADoA` is "\\0:\\0") and the OAuth client\'s, answers request.invalid', async () => {
    for (const path of ['/device/messages', '/device/acks']) await refused('POST', path, 'request.invalid', 'authorization', { auth: 'Basic ADoA', body: '{"t": 1}' })
    await refused('GET', '/device/tasks', 'request.invalid', 'authorization', { auth: basic(`${dev.serial}:pass\u0000word`) })
    await refused('POST', '/api/oauth/token?grant_type=client_credentials', 'request.invalid', 'authorization', { auth: 'Basic ADoA' })
  })

  it('of the OAuth parameters answers request.invalid', async () => {
    await refused('GET', `/api/oauth/token?grant_type=password&username=%00&password=x&client_id=${CLIENT_ID}&client_secret=x`, 'request.invalid', 'query.username')
  })

  it('of an MQTT login is refused as a bad username (CONNACK 4), not as a store failure (3)', async () => {
    for (const username of ['\u0000', `${dev.serial}\u0000`]) {
      const r = await tryConnect(stack.mqttUrl, { username, password: dev.mqttPassword ?? '', version: 4 })
      expect(r.ok ? 'connected' : r.code).toBe(4)
    }
  })

  it('the same device with a clean login still works', async () => {
    const res = await fetch(`${stack.httpUrl}/device/messages`, { method: 'POST', headers: { authorization: basic(`${dev.serial}:${dev.restPassword ?? ''}`), 'content-type': 'application/json' }, body: '{"t": 1}' })
    expect(res.status).toBe(200)
    await settle(stack) // its derived state (lastCommDate, last values) is written after the answer
  })
})

describe('numbers the store cannot hold', () => {
  it('an offset beyond int4 answers request.invalid naming the bound, on every list', async () => {
    for (const list of ['/api/v1/systems', '/api/v1/users', '/api/v1/operations', '/api/v1/applications']) {
      const params = await refused('GET', `${list}?offset=99999999999999999999`, 'request.invalid', 'querystring/offset')
      expect(params[1]).toBe('must be <= 2147483647')
    }
    await refused('GET', '/api/v1/systems?offset=1e309', 'request.invalid', 'querystring/offset')
    await refused('GET', '/api/v1/systems?offset=-1', 'request.invalid', 'querystring/offset')
  })

  it('a timestamp of 1e309 (Infinity) or beyond the dates a client can mean answers request.invalid', async () => {
    await refused('GET', '/api/v1/systems?lastCommAfter=1e309', 'request.invalid', 'querystring/lastCommAfter')
    await refused('GET', '/api/v1/operations?createdBefore=Infinity', 'request.invalid', 'querystring/createdBefore')
    await refused('GET', `/api/v1/systems/data/raw?targetIds=${dev.uid}&dataIds=t&from=1e309`, 'request.invalid', 'querystring/from')
    await refused('GET', `/api/v1/systems/${dev.uid}/messages?to=-1e19`, 'request.invalid', 'querystring/to')
    await refused('POST', '/api/v1/operations/systems/label', 'request.invalid', 'body/scheduledTime',
      { body: JSON.stringify({ labels: { add: ['x'] }, criteria: { uids: [dev.uid] }, scheduledTime: 1e300 }) })
    // JSON.parse reads 1e309 as Infinity.
    for (const field of ['scheduledTime', 'timeout']) {
      await refused('POST', '/api/v1/operations/systems/label', 'request.invalid', `body/${field}`,
        { body: `{"labels": {"add": ["x"]}, "criteria": {"uids": ["${dev.uid}"]}, "${field}": 1e309}` })
    }
  })

  it('a size beyond int4 is clamped to 500 (conventions.md §Lists), not refused', async () => {
    const res = await send('GET', '/api/v1/systems?size=99999999999999999999')
    expect(res.status).toBe(200)
    expect((res.body as { size?: number }).size).toBe(1)
  })
})

describe('fn=__proto__ and fn=constructor (plain-object lookups by user input)', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('fn=%s on aggregated and fleet data, and fleetFn, answer request.invalid', async (fn) => {
    const aggregated = await refused('GET', `/api/v1/systems/data/aggregated?targetIds=${dev.uid}&dataIds=t&fn=${fn}`, 'request.invalid', 'fn')
    expect(aggregated).toEqual(['fn', fn, 'one of mean, min, max, sum, stddev, ss, cnt (or count, standarddeviation)'])
    await refused('GET', `/api/v1/systems/data/fleet?targetIds=${stack.companyUid}&dataIds=t&fn=${fn}`, 'request.invalid', 'fn')
    await refused('GET', `/api/v1/systems/data/fleet?targetIds=${stack.companyUid}&dataIds=t&fleetFn=${fn}`, 'request.invalid', 'fleetFn')
  })

  it.each(['__proto__', 'constructor', 'toString'])('a map parameter key %s answers request.invalid with the keys there are', async (key) => {
    for (const param of ['gateway', 'subscription', 'application', 'data']) {
      const params = await refused('GET', `/api/v1/systems?${param}=${key}:x`, 'request.invalid', param)
      expect(params.slice(1)).toEqual([key, expect.stringMatching(/^keys: \w+, /)])
    }
  })

  it.each(['__proto__', 'constructor', 'imie'])('a criteria key %s of a bulk operation answers request.invalid and selects nothing', async (key) => {
    for (const part of ['gateway', 'subscription', 'application', 'data']) {
      const criteria = JSON.parse(`{"${part}": {"${key}": "x"}}`) as unknown
      // A `__proto__` key is refused by the JSON parser itself, before any route reads it.
      const where = key === '__proto__' ? 'body' : `criteria.${part}`
      const params = await refused('POST', '/api/v1/operations/systems/delete', 'request.invalid', where, { body: JSON.stringify({ systems: { criteria } }) })
      expect(params[1]).toBe(key === '__proto__' ? 'a __proto__ or constructor.prototype key is not allowed' : key)
    }
  })
})

describe('what the router refuses', () => {
  it('a path segment longer than 100 characters, or not valid percent-encoding, answers request.invalid', async () => {
    expect(await refused('GET', `/api/v1/systems/${'x'.repeat(101)}`, 'request.invalid', 'path')).toEqual(['path', 'a path segment is longer than 100 characters'])
    expect((await send('GET', `/api/v1/systems/${'x'.repeat(100)}`)).body.error).toBe('system.unknown')
    await refused('GET', '/api/v1/systems/%E0%A4%A', 'request.invalid', 'path')
  })
})
