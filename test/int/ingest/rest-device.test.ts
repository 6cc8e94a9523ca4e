// The REST device API (docs/protocols/README.md.md §3.2): HTTP Basic with the serial number or IMEI and
// communication.rest.password; POST /device/messages (Device-REST-Version: 2 for the timestamp-keyed form),
// GET /device/tasks, POST /device/acks. 200 only once committed; a malformed body is 400 with the codec's reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { putSystem } from '../../helpers/systems.js'
import {
  createDevice, deviceFetch, insertTask, messagesOf, pointsOf, refusedCount, taskState, telemetryCounts, type Device
} from '../../helpers/devices.js'

let stack: Stack
let dev: Device
beforeAll(async () => {
  stack = await startStack({ listen: true })
  dev = await createDevice(stack)
})
afterAll(async () => { await stack.close() })

const EMPTY = { messages: 0, points: 0, last: 0, acks: 0 }
const post = async (d: Device, body: string | Buffer, opts: { user?: string, headers?: Record<string, string>, path?: string } = {}): ReturnType<typeof deviceFetch> =>
  await deviceFetch(stack, 'POST', opts.path ?? '/device/messages', { user: opts.user ?? d.serial, password: d.restPassword ?? '', body, headers: opts.headers })

describe('POST /device/messages', () => {
  it('stores the list form and the flat form (no version header); the row is readable right after the 200', async () => {
    const d = await createDevice(stack)
    const list = await post(d, JSON.stringify([{ 'machine.temperature': [{ timestamp: 1_416_324_560_869, value: 42.2 }, { timestamp: 1_416_324_560_869, value: 42.2 }] }]))
    expect(list.status).toBe(200)
    // No polling: the 200 comes after the commit.
    expect((await messagesOf(stack, d.uid)).map((m) => [m.protocol, m.ts, m.nbDataPoints])).toEqual([['REST', 1_416_324_560_869, 2]])
    const before = Date.now()
    const flat = await post(d, JSON.stringify({ 'machine.humidity': 70 }), { user: d.imei })
    expect(flat.status).toBe(200)
    const msgs = await messagesOf(stack, d.uid)
    expect(msgs.length).toBe(2)
    const [p] = await pointsOf(stack, d.uid, msgs[1]?.uid)
    expect(p).toMatchObject({ dataId: 'machine.humidity', num: 70 })
    expect(p?.ts).toBeGreaterThanOrEqual(before)
    expect(p?.ts).toBe(msgs[1]?.receivedAt)
  })

  it('Device-REST-Version: 2 reads the timestamp-keyed form; a non-numeric key is then refused', async () => {
    const d = await createDevice(stack)
    const v2 = { 'device-rest-version': '2' }
    const ok = await post(d, JSON.stringify({ 1_349_907_137_000: { 'machine.temperature': 23.2, 'machine.humidity': 70 }, 1_349_908_137_000: { 'machine.temperature': 24.5 } }), { headers: v2 })
    expect(ok.status).toBe(200)
    const [m] = await messagesOf(stack, d.uid)
    expect(m).toMatchObject({ protocol: 'REST', ts: 1_349_908_137_000, nbDataPoints: 3 })
    expect((await pointsOf(stack, d.uid)).map((x) => [x.dataId, x.ts, x.num])).toEqual([
      ['machine.humidity', 1_349_907_137_000, 70], ['machine.temperature', 1_349_907_137_000, 23.2], ['machine.temperature', 1_349_908_137_000, 24.5]
    ])
    // With the header, an object is read as timestamp-keyed whatever its keys (protocols/airvantage README).
    const flatAsV2 = await post(d, JSON.stringify({ 'machine.temperature': 1 }), { headers: v2 })
    expect({ status: flatAsV2.status, body: flatAsV2.body }).toEqual({ status: 400, body: { error: 'payload.invalid.timestamp', errorParameters: [] } })
    expect((await messagesOf(stack, d.uid)).length).toBe(1)
  })

  it('accepts any content type (or none): the body is the device payload', async () => {
    const d = await createDevice(stack)
    expect((await post(d, '{"a": 1}', { headers: { 'content-type': 'text/plain' } })).status).toBe(200)
    expect((await post(d, Buffer.from('{"a": 2}'), { headers: { 'content-type': 'application/octet-stream' } })).status).toBe(200)
    expect((await messagesOf(stack, d.uid)).length).toBe(2)
  })

  const MALFORMED: Array<[string, string | Buffer, string]> = [
    ['bad JSON', '{"a": ', 'payload.invalid.json'],
    ['not UTF-8', Buffer.from([0xc0, 0xaf]), 'payload.invalid.utf8'],
    ['wrong shape', '"text"', 'payload.invalid.shape'],
    ['object value', '{"a": {"b": 1}}', 'payload.invalid.value'],
    ['empty body', '', 'payload.empty'],
    ['too many points', JSON.stringify([{ a: Array.from({ length: 10_001 }, (_, i) => ({ timestamp: i + 1e12, value: i })) }]), 'payload.too.many.points'],
    ['just over 1 MiB', JSON.stringify({ a: 'x'.repeat(1024 * 1024) }), 'payload.too.large'],
    ['far over 1 MiB', JSON.stringify({ a: 'x'.repeat(3 * 1024 * 1024) }), 'payload.too.large']
  ]
  for (const [name, body, reason] of MALFORMED) {
    it(`400 ${reason} (${name}), nothing stored, counted`, async () => {
      const before = refusedCount(stack, `REST:${reason}`)
      const res = await post(dev, body)
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: reason, errorParameters: [] } })
      expect(await telemetryCounts(stack, dev.uid)).toEqual(EMPTY)
      expect(refusedCount(stack, `REST:${reason}`)).toBe(before + 1)
    })
  }
})

describe('401 for bad or missing credentials', () => {
  it('wrong password, unknown user, MQTT password, no header, not Basic, no password on the system', async () => {
    const noRest = await createDevice(stack, { restPassword: null })
    const cases: Array<[string, Record<string, string>]> = [
      ['wrong password', { authorization: 'Basic ' + Buffer.from(`${dev.serial}:nope`).toString('base64') }],
      ['unknown user', { authorization: 'Basic ' + Buffer.from(`NOBODY:${dev.restPassword ?? ''}`).toString('base64') }],
      ['the MQTT password', { authorization: 'Basic ' + Buffer.from(`${dev.imei}:${dev.mqttPassword ?? ''}`).toString('base64') }],
      ['no header', {}],
      ['bearer', { authorization: `Bearer ${stack.adminToken}` }],
      ['no colon', { authorization: 'Basic ' + Buffer.from(dev.serial).toString('base64') }],
      ['system without REST password', { authorization: 'Basic ' + Buffer.from(`${noRest.serial}:`).toString('base64') }],
      ['system without REST password, its MQTT password', { authorization: 'Basic ' + Buffer.from(`${noRest.serial}:${noRest.mqttPassword ?? ''}`).toString('base64') }]
    ]
    for (const [name, headers] of cases) {
      for (const [method, path] of [['POST', '/device/messages'], ['GET', '/device/tasks'], ['POST', '/device/acks']] as const) {
        const res = await deviceFetch(stack, method, path, { headers, ...(method === 'POST' ? { body: '{"a": 1}' } : {}) })
        expect({ name, path, status: res.status, body: res.body }).toEqual({ name, path, status: 401, body: { error: 'device.unauthorized', errorParameters: [] } })
      }
    }
    expect(await telemetryCounts(stack, dev.uid)).toEqual(EMPTY)
    expect(await telemetryCounts(stack, noRest.uid)).toEqual(EMPTY)
  })

  it('a password change through PUT /api/v1/systems/{uid}: the new one works at once', async () => {
    const d = await createDevice(stack)
    expect((await putSystem(stack, d.uid, { communication: { rest: { password: 'new-rest-password' } } })).statusCode).toBe(200)
    const res = await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: 'new-rest-password', body: '{"a": 1}' })
    expect(res.status).toBe(200)
    // The old one was never used, so nothing of it is cached: refused at once.
    expect((await post(d, '{"a": 1}')).status).toBe(401)
  })
})

describe('tasks and acks', () => {
  it('GET /device/tasks answers the pending tasks oldest first and marks them SENT; acks finish them', async () => {
    const d = await createDevice(stack)
    const none = await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: d.restPassword ?? '' })
    expect({ status: none.status, body: none.body }).toEqual({ status: 200, body: [] })
    const t2 = await insertTask(stack, d.uid, { timestamp: 2, write: [{ 'machine.threshold': 25 }] }, { createdAt: 2000, protocol: 'REST' })
    const t1 = await insertTask(stack, d.uid, { timestamp: 1, read: ['machine.temperature'] }, { createdAt: 1000, protocol: 'REST' })
    const other = await createDevice(stack)
    await insertTask(stack, other.uid, { timestamp: 1, read: ['x'] }, { protocol: 'REST' })
    await insertTask(stack, d.uid, { timestamp: 3, read: ['over.mqtt'] }) // another transport's: not polled here
    const res = await deviceFetch(stack, 'GET', '/device/tasks', { user: d.imei, password: d.restPassword ?? '' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { uid: t1, timestamp: 1, read: ['machine.temperature'] },
      { uid: t2, timestamp: 2, write: [{ 'machine.threshold': 25 }] }
    ])
    expect((await taskState(stack, t1))?.state).toBe('SENT')
    expect((await taskState(stack, t1))?.sentAt).toBeGreaterThan(0)
    const ack = await post(d, JSON.stringify([{ uid: t1, status: 'OK' }, { uid: t2, status: 'ERROR', message: 'read only' }]), { path: '/device/acks' })
    expect(ack.status).toBe(200)
    expect(await taskState(stack, t1)).toMatchObject({ state: 'OK' })
    expect(await taskState(stack, t2)).toMatchObject({ state: 'ERROR', message: 'read only' })
    const { rows } = await stack.db.query<{ task_uid: string, protocol: string }>('SELECT task_uid, protocol FROM device_acks WHERE system_uid = $1 ORDER BY id', [d.uid])
    expect(rows).toEqual([{ task_uid: t1, protocol: 'REST' }, { task_uid: t2, protocol: 'REST' }])
    const after = await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: d.restPassword ?? '' })
    expect(after.body).toEqual([])
    expect((await messagesOf(stack, d.uid)).length).toBe(0)
  })

  it('a task polled and not acknowledged is answered again at the next poll (its answer may have been lost), until acked', async () => {
    const d = await createDevice(stack)
    const t = await insertTask(stack, d.uid, { timestamp: 1, command: { id: 'system.reboot', params: { delay: 5 } } }, { protocol: 'REST' })
    const expected = [{ uid: t, timestamp: 1, command: { id: 'system.reboot', params: { delay: 5 } } }]
    const poll = async (): Promise<unknown> => (await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: d.restPassword ?? '' })).body
    expect(await poll()).toEqual(expected)
    expect(await poll()).toEqual(expected)
    expect((await taskState(stack, t))?.state).toBe('SENT')
    expect((await post(d, JSON.stringify([{ uid: t, status: 'OK' }]), { path: '/device/acks' })).status).toBe(200)
    expect(await poll()).toEqual([])
  })

  it('a malformed ack body is 400 with the codec reason and records nothing', async () => {
    const d = await createDevice(stack)
    const t = await insertTask(stack, d.uid, { timestamp: 1, read: ['x'] }, { protocol: 'REST' })
    for (const [body, reason] of [['[]', 'payload.empty'], ['[{"uid": "x", "status": "MAYBE"}]', 'ack.invalid.status'], ['{"status": "OK"}', 'ack.invalid.uid'], ['[1]', 'ack.invalid.shape']]) {
      const res = await post(d, body ?? '', { path: '/device/acks' })
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: reason, errorParameters: [] } })
    }
    expect((await taskState(stack, t))?.state).toBe('PENDING')
    expect(await telemetryCounts(stack, d.uid)).toEqual(EMPTY)
  })
})
