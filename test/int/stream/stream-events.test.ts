// GET /api/v1/stream (docs/stream.md): what a subscriber receives as it is committed. Devices send
// over MQTT and the REST device API, the sweep changes commStatus, and a label operation runs, all through the
// service's own paths; a real `ws` client reads the stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, deviceFetch, endAll, publish, settle, type Device } from '../../helpers/devices.js'
import { createSystems, postLabel, started, waitFinished } from '../../helpers/operations.js'
import { openStream, type Json, type StreamClient } from '../../helpers/stream.js'
import { putSystem } from '../../helpers/systems.js'

let stack: Stack
// Starting a stack and signing in take long on a loaded machine: the hooks get more than the default minute.
beforeAll(async () => { stack = await startStack({ listen: true, env: { STREAM_RECHECK_MS: '200' } }) }, 180_000)
afterAll(async () => { await stack.close() })

async function stream (): Promise<StreamClient> {
  const c = await openStream(stack, stack.adminToken)
  return c
}

async function subscribed (c: StreamClient, command: Json): Promise<Json> {
  const answer = await c.ask({ action: 'subscribe', ...command })
  expect(answer, JSON.stringify(answer)).toMatchObject({ event: 'subscribed' })
  return answer
}

/** REST device data (docs/devices.md): answers once committed. */
async function restData (d: Device, body: Json): Promise<void> {
  const res = await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: JSON.stringify(body) })
  expect(res.status).toBe(200)
}

const ofSystem = (uid: string, event: string) => (m: Json): boolean => m.event === event && m.system === uid

describe('devices', () => {
  it('a device publishes over MQTT: the subscriber receives the message, its points and commStatus OK', async () => {
    const d = await createDevice(stack)
    const c = await stream()
    const answer = await subscribed(c, { systems: { uids: [d.uid] } })
    expect(answer).toMatchObject({ subscription: expect.any(String), systems: 1 })
    const mqtt = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4 })
    const ts = Date.now() - 1000
    expect(await publish(mqtt, `${d.serial}/messages/json`, JSON.stringify([{ 'machine.temperature': [{ timestamp: ts, value: 21.5 }] }, { _RSSI: [{ timestamp: ts, value: -71 }] }]))).toBe(0)
    await endAll(mqtt)

    const message = await c.take(ofSystem(d.uid, 'message'))
    expect(message).toEqual({ event: 'message', system: d.uid, uid: expect.any(String), protocol: 'MQTT', timestamp: ts })
    const points = [await c.take(ofSystem(d.uid, 'points')), await c.take(ofSystem(d.uid, 'points'))]
    expect(points).toEqual(expect.arrayContaining([
      { event: 'points', system: d.uid, dataId: 'machine.temperature', ts, v: 21.5 },
      { event: 'points', system: d.uid, dataId: '_RSSI', ts, v: -71 }
    ]))
    const status = await c.take(ofSystem(d.uid, 'commStatus'))
    expect(status).toEqual({ event: 'commStatus', system: d.uid, status: 'OK', lastCommDate: expect.any(Number) })
    // What the stream said is what the API now answers.
    const api = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${d.uid}` })).json()
    expect(api).toMatchObject({ commStatus: 'OK', lastCommDate: status.lastCommDate })
    const messages = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${d.uid}/messages` })).json()
    expect(messages.messages.map((m: Json) => m.uid)).toEqual([message.uid])
    await c.close()
  })

  it('dataIds narrow the points; messages and commStatus still come', async () => {
    const d = await createDevice(stack)
    const c = await stream()
    await subscribed(c, { systems: { uids: [d.uid] }, dataIds: ['temp'] })
    await restData(d, { temp: 1, hum: 2 })
    await c.take(ofSystem(d.uid, 'commStatus'))
    expect(c.received.filter((m) => m.event === 'points')).toEqual([{ event: 'points', system: d.uid, dataId: 'temp', ts: expect.any(Number), v: 1 }])
    expect(c.received.filter((m) => m.event === 'message')).toHaveLength(1)
    await c.close()
  })

  it('follows a label and criteria as GET /systems reads them, with systems that join later', async () => {
    const [a, b, other] = [await createDevice(stack), await createDevice(stack), await createDevice(stack)]
    expect((await putSystem(stack, a.uid, { labels: ['north'] })).statusCode).toBe(200)
    const c = await stream()
    expect(await subscribed(c, { systems: { label: 'north' } })).toMatchObject({ systems: 1 })
    expect(await subscribed(c, { systems: { criteria: { gateway: `serialNumber:${b.serial}` } } })).toMatchObject({ systems: 1 })
    await restData(other, { x: 0 })
    await restData(a, { x: 1 })
    await restData(b, { x: 2 })
    await c.take(ofSystem(a.uid, 'points'))
    await c.take(ofSystem(b.uid, 'points'))
    // The label's members are read again every STREAM_RECHECK_MS: `other` joins once labelled.
    expect((await putSystem(stack, other.uid, { labels: ['north'] })).statusCode).toBe(200)
    for (let i = 0; ; i++) {
      await restData(other, { x: 10 + i })
      const got = await c.take(ofSystem(other.uid, 'points'), 500).catch(() => undefined)
      if (got !== undefined) { expect(got.v).toBeGreaterThanOrEqual(10); break }
      if (i > 40) throw new Error('a system labelled later never joined the label subscription')
    }
    // Nothing about `other` came before it was labelled (its first value was 0).
    expect(c.received.some((m) => m.system === other.uid && m.v === 0)).toBe(false)
    await c.close()
  })

  it('criteria {} follows every system of the company; unsubscribe stops the events', async () => {
    const d = await createDevice(stack)
    const c = await stream()
    const sub = await subscribed(c, { systems: { criteria: {} } })
    expect(sub.systems).toBeNull()
    await restData(d, { v: 1 })
    await c.take(ofSystem(d.uid, 'points'))
    expect(await c.ask({ action: 'unsubscribe', subscription: sub.subscription })).toMatchObject({ event: 'unsubscribed', subscription: sub.subscription })
    expect(await c.ask({ action: 'unsubscribe', subscription: sub.subscription })).toMatchObject({ event: 'error', error: 'request.invalid' })
    // A second stream still following everything tells when the next message is committed.
    const witness = await stream()
    await subscribed(witness, { systems: { criteria: {} } })
    await restData(d, { v: 2 })
    await witness.take(ofSystem(d.uid, 'points'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(c.received.filter((m) => m.event === 'points' && m.v === 2)).toEqual([])
    await c.close()
    await witness.close()
  })

  it('the sweep\'s WARNING and ERROR reach the subscriber', async () => {
    const d = await createDevice(stack)
    await restData(d, { v: 1 })
    await settle(stack) // its commStatus OK is written (and sent) before the sweeps below
    const c = await stream()
    await subscribed(c, { systems: { uids: [d.uid] } })
    const hour = 3600_000
    await stack.db.query('UPDATE system_state SET last_comm_date = $2 WHERE system_uid = $1', [d.uid, Date.now() - 1.5 * hour])
    await stack.ctx.services.sweepCommStatus()
    expect(await c.take(ofSystem(d.uid, 'commStatus'))).toMatchObject({ status: 'WARNING' })
    await stack.db.query('UPDATE system_state SET last_comm_date = $2 WHERE system_uid = $1', [d.uid, Date.now() - 3 * hour])
    await stack.ctx.services.sweepCommStatus()
    expect(await c.take(ofSystem(d.uid, 'commStatus'))).toMatchObject({ status: 'ERROR' })
    await restData(d, { v: 2 })
    expect(await c.take(ofSystem(d.uid, 'commStatus'))).toMatchObject({ status: 'OK' })
    await c.close()
  })
})

describe('operations', () => {
  it('an operation\'s progress reaches the subscriber, up to FINISHED with its counters', async () => {
    const uids = await createSystems(stack, 30, 'streamed')
    const all = await stream()
    await subscribed(all, { operations: { all: true } })
    const op = await started(postLabel(stack, { criteria: { uids }, labels: { add: ['seen'] } }))
    const finished = await all.take((m) => m.event === 'operation' && m.uid === op && m.state === 'FINISHED', 20_000)
    expect(finished).toEqual({
      event: 'operation',
      uid: op,
      type: 'SYSTEM_LABEL',
      state: 'FINISHED',
      counters: expect.arrayContaining([{ state: 'SUCCESS', count: 30 }, { state: 'FAILURE', count: 0 }])
    })
    expect(finished.counters).toHaveLength(6)
    // By uid: the answer carries where the operation is now.
    const one = await stream()
    const answer = await subscribed(one, { operations: { uids: [op] } })
    expect(await one.take((m) => m.event === 'operation')).toMatchObject({ uid: op, state: 'FINISHED' })
    expect(answer.subscription).toBeDefined()
    expect(await one.ask({ action: 'subscribe', operations: { uids: ['no-such-operation'] } })).toMatchObject({ event: 'error', error: 'operation.unknown', errorParameters: ['no-such-operation'] })
    await waitFinished(stack, op)
    await all.close()
    await one.close()
  })
})
