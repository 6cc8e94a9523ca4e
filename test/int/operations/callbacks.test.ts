// Operation callbacks end to end (docs/operations.md#bulk-operations; docs/operations.md#bulk-operations): a real HTTP
// receiver on 127.0.0.1:0 gets a signed POST with Basic auth on every state change of the operation, a failing
// receiver is retried until it answers 2xx, and callbacks into loopback are refused at creation unless
// CALLBACK_ALLOW_PRIVATE.
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { recordingReceiver, type Receiver, type ReceivedRequest } from '../../helpers/http-receiver.js'
import { count, countOperations, createSystems, postDelete, postLabel, started, until, waitFinished } from '../../helpers/operations.js'

const SECRET = 'callback-test-secret'
const RETRY_BASE_MS = 100
const TASK_STATES = ['PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'BEING_CANCELLED', 'CANCELLED']

type Received = ReceivedRequest
interface StateEvent {
  name: string
  date: number
  content: { operation: string, operationType: string, state: string, counters: Array<{ state: string, count: number }>, total: number }
}

// The receiver: records every request; a path listed in `failures` answers 500 that many times first.
let receiver: Receiver & { received: Received[], failures: Map<string, number> }
let origin: string
let received: Received[] = []
let failures = new Map<string, number>()

beforeAll(async () => {
  receiver = await recordingReceiver()
  ;({ received, failures, origin } = receiver)
})
afterAll(async () => { await receiver.close() })

const at = (path: string): Received[] => received.filter((r) => r.path === path)
const events = (path: string): StateEvent[] => at(path).map((r) => JSON.parse(r.body) as StateEvent)
const statesAt = (path: string): string[] => events(path).sort((a, b) => a.date - b.date).map((e) => e.content.state)

/** Waits until the receiver has seen a FINISHED event on `path`. */
async function finishedEventAt (path: string): Promise<StateEvent> {
  await until(`a FINISHED callback on ${path}`, () => events(path).some((e) => e.content.state === 'FINISHED'), 10_000)
  return events(path).find((e) => e.content.state === 'FINISHED') as StateEvent
}

describe('with CALLBACK_ALLOW_PRIVATE and CALLBACK_SECRET', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack({ env: { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_SECRET: SECRET, CALLBACK_RETRY_BASE_MS: String(RETRY_BASE_MS) } })
  })
  afterAll(async () => { await stack.close() })

  it('POSTs the signed state event with Basic auth on creation (IN_PROGRESS) and at the end (FINISHED)', async () => {
    const label = uniq('cb')
    await createSystems(stack, 3, label, [label])
    const path = `/cb/${uniq('now')}`
    const callback = `http://hook%20user:p%40ss@${origin}${path}`
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback }))
    const op = await waitFinished(stack, uid)
    expect(op.callback).toBe(`http://hook%20user:***@${origin}${path}`) // the password is never shown back
    const finished = await finishedEventAt(path)
    await until('both events', () => at(path).length >= 2)

    expect(statesAt(path)).toEqual(['IN_PROGRESS', 'FINISHED'])
    for (const r of at(path)) {
      expect(r.method).toBe('POST')
      expect(r.headers['content-type']).toBe('application/json')
      expect(r.headers.authorization).toBe(`Basic ${Buffer.from('hook user:p@ss').toString('base64')}`)
      expect(r.headers['x-fleet-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`)
      const e = JSON.parse(r.body) as StateEvent
      expect(Object.keys(e).sort()).toEqual(['content', 'date', 'name'])
      expect(Object.keys(e.content).sort()).toEqual(['counters', 'operation', 'operationType', 'state', 'total'])
      expect(e).toMatchObject({ name: 'event.operation.state.changed', content: { operation: uid, operationType: 'SYSTEM_LABEL', total: 3 } })
      expect(e.content.counters.map((c) => c.state)).toEqual(TASK_STATES)
      expect(e.date).toBeGreaterThanOrEqual(op.createdAt)
    }
    expect(finished.date).toBeGreaterThanOrEqual(op.endDate ?? Infinity)
    expect(count(finished.content, 'SUCCESS')).toBe(3)
    const inProgress = events(path).find((e) => e.content.state === 'IN_PROGRESS')
    expect(inProgress?.content.counters.reduce((n, c) => n + c.count, 0)).toBe(3)
  })

  it('a scheduled operation calls back SCHEDULED, IN_PROGRESS then FINISHED; bulk delete calls back too', async () => {
    const label = uniq('cbs')
    await createSystems(stack, 2, label, [label])
    const path = `/cb/${uniq('sched')}`
    const scheduledTime = Date.now() + 1000
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback: `http://${origin}${path}`, scheduledTime }))
    await waitFinished(stack, uid)
    await finishedEventAt(path)
    await until('three events', () => at(path).length >= 3)
    expect(statesAt(path)).toEqual(['SCHEDULED', 'IN_PROGRESS', 'FINISHED'])
    const started_ = events(path).find((e) => e.content.state === 'IN_PROGRESS')
    expect(started_?.date).toBeGreaterThanOrEqual(scheduledTime)
    expect(at(path)[0]?.headers.authorization).toBeUndefined()

    const delPath = `/cb/${uniq('del')}`
    const del = await started(postDelete(stack, { systems: { label }, callback: `http://${origin}${delPath}` }))
    await waitFinished(stack, del)
    const e = await finishedEventAt(delPath)
    expect(e.content).toMatchObject({ operation: del, operationType: 'SYSTEM_DELETE', total: 2 })
  })

  it('retries a receiver that answers 500 until it answers 2xx, with the same signed body', async () => {
    const label = uniq('cbr')
    await createSystems(stack, 1, label, [label])
    const path = `/cb/${uniq('retry')}`
    const callback = `http://${origin}${path}`
    // Scheduled, so that the first event (SCHEDULED) is alone on the path while it fails twice.
    failures.set(path, 2)
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback, scheduledTime: Date.now() + 60_000 }))
    await until('the third try', () => at(path).length >= 3, 10_000)
    const tries = at(path)
    expect(tries.map((r) => JSON.parse(r.body).content.state)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED'])
    expect(new Set(tries.map((r) => r.body)).size).toBe(1)
    expect(new Set(tries.map((r) => r.headers['x-fleet-signature'])).size).toBe(1)
    // Exponential backoff from CALLBACK_RETRY_BASE_MS: at least base, then 2 × base between tries.
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThanOrEqual(RETRY_BASE_MS - 5)
    expect((tries[2]?.at ?? 0) - (tries[1]?.at ?? 0)).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS - 5)
    expect(failures.get(path)).toBe(0)
    // Delivered: the cancel's FINISHED event comes next, and the delivered one is not sent again.
    const res = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })
    expect(res.statusCode).toBe(200)
    await finishedEventAt(path)
    expect(statesAt(path)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED', 'FINISHED'])
  })
})

describe('without CALLBACK_ALLOW_PRIVATE (the default)', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ env: { CALLBACK_SECRET: SECRET } }) })
  afterAll(async () => { await stack.close() })

  it('refuses a loopback callback when the operation is created (400 callback.forbidden): no operation, nothing sent', async () => {
    const label = uniq('cbl')
    await createSystems(stack, 2, label, [label])
    const path = `/cb/${uniq('refused')}`
    const before = await countOperations(stack)
    const res = await postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback: `http://${origin}${path}`, notify: true })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'callback.forbidden', errorParameters: ['127.0.0.1', 'CALLBACK_ALLOW_PRIVATE'] })
    expect(await countOperations(stack)).toBe(before)
    expect(at(path)).toEqual([])
  })
})
