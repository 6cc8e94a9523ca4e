// Callbacks checked when the operation is created, and their delivery shown on the operation
// (docs/operations.md#bulk-operations; §Operations: the operation JSON). A loopback, private or link-local host (or a
// name resolving to one) is refused with 400 callback.forbidden naming the host and CALLBACK_ALLOW_PRIVATE, and no
// operation is created; with CALLBACK_ALLOW_PRIVATE=true it is accepted, and `callbackDelivery` follows the tries made
// to a real HTTP receiver on 127.0.0.1:0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { closedPort, listenLocal, type Receiver } from '../../helpers/http-receiver.js'
import {
  countOperations, createSystems, postDelete, postExport, postLabel, started, waitOperation, type OperationJson
} from '../../helpers/operations.js'

interface Delivery { attempts: number, lastStatus: number | null, lastError: string | null, lastAttemptAt: number | null, delivered: boolean }
const delivery = (op: OperationJson): Delivery => op.callbackDelivery as Delivery

// The receiver: a path under /fail/ answers 500, any other 204.
let receiver: Receiver
let origin: string
let hits = 0
beforeAll(async () => {
  receiver = await listenLocal((req, res) => {
    req.resume()
    req.on('end', () => {
      hits++
      res.writeHead(req.url?.startsWith('/fail/') === true ? 500 : 204)
      res.end()
    })
  })
  origin = receiver.origin
})
afterAll(async () => { await receiver.close() })

describe('without CALLBACK_ALLOW_PRIVATE: refused at creation', () => {
  let stack: Stack
  let label: string
  let system: string
  beforeAll(async () => {
    stack = await startStack()
    label = uniq('cbf')
    system = (await createSystems(stack, 2, label, [label]))[0] ?? ''
  })
  afterAll(async () => { await stack?.close() })

  const forbidden = async (res: Promise<{ statusCode: number, json: () => any, body: string }>, host: string): Promise<void> => {
    const before = await countOperations(stack)
    const r = await res
    expect(r.statusCode).toBe(400)
    expect(r.json()).toEqual({ error: 'callback.forbidden', errorParameters: [host, 'CALLBACK_ALLOW_PRIVATE'] })
    expect(await countOperations(stack)).toBe(before)
  }

  it('a loopback, private or link-local address, or a name resolving to loopback, for label, delete and export', async () => {
    const hitsBefore = hits
    const label_ = (callback: string) => postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback })
    await forbidden(label_(`http://${origin}/hook`), '127.0.0.1')
    await forbidden(label_('http://localhost:8080/hook'), 'localhost')
    await forbidden(label_('https://10.1.2.3/hook'), '10.1.2.3')
    await forbidden(label_('http://192.168.1.20/hook'), '192.168.1.20')
    await forbidden(label_('http://169.254.169.254/latest/meta-data'), '169.254.169.254')
    await forbidden(label_('http://[::1]:9000/hook'), '::1')
    await forbidden(label_('http://[::ffff:127.0.0.1]/hook'), '::ffff:7f00:1')
    await forbidden(postDelete(stack, { systems: { label }, callback: `http://${origin}/hook` }), '127.0.0.1')
    await forbidden(postExport(stack, system, { data: ['x'], callback: 'http://127.0.0.2/hook' }), '127.0.0.2')
    expect(hits).toBe(hitsBefore)
  })

  it('never echoes the password of the URL', async () => {
    const res = await postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback: `http://user:s3cret-pw@${origin}/hook` })
    expect(res.statusCode).toBe(400)
    expect(res.body).not.toContain('s3cret-pw')
  })

  it('a URL that is not http(s): 400 callback.invalid, no operation', async () => {
    const before = await countOperations(stack)
    for (const callback of ['ftp://example.com/hook', 'not a url', 'file:///etc/passwd']) {
      const res = await postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback })
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toBe('callback.invalid')
    }
    expect(await countOperations(stack)).toBe(before)
  })

  it('an empty callback is none; an operation without callback shows callbackDelivery null', async () => {
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback: '' }))
    const op = await waitOperation(stack, uid, (o) => o.state === 'FINISHED')
    expect(op.callback).toBeNull()
    expect(op.callbackDelivery).toBeNull()
  })
})

describe('with CALLBACK_ALLOW_PRIVATE=true: accepted, delivery shown on the operation', () => {
  let stack: Stack
  let label: string
  beforeAll(async () => {
    stack = await startStack({ env: { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_RETRY_BASE_MS: '100' } })
    label = uniq('cbd')
    await createSystems(stack, 2, label, [label])
  })
  afterAll(async () => { await stack?.close() })

  it('after successful deliveries: attempts, lastStatus 204, no error, delivered', async () => {
    const before = Date.now()
    const uid = await started(postLabel(stack, { labels: { add: ['x'] }, criteria: { labels: [label] }, callback: `http://${origin}/ok/${uniq('a')}` }))
    // IN_PROGRESS and FINISHED: two events, each delivered at the first try.
    const op = await waitOperation(stack, uid, (o) => o.state === 'FINISHED' && delivery(o).attempts >= 2)
    expect(delivery(op)).toEqual({ attempts: 2, lastStatus: 204, lastError: null, lastAttemptAt: expect.any(Number), delivered: true })
    expect(delivery(op).lastAttemptAt).toBeGreaterThanOrEqual(before)
  })

  it('after failing deliveries: attempts grow with the retries, lastStatus 500, lastError, not delivered', async () => {
    const uid = await started(postDelete(stack, { systems: { label }, callback: `http://${origin}/fail/${uniq('f')}` }))
    const op = await waitOperation(stack, uid, (o) => delivery(o).attempts >= 3, 10_000, 'three tries')
    expect(delivery(op)).toMatchObject({ lastStatus: 500, lastError: 'http 500', delivered: false })
  })

  it('a receiver that is not listening: no status, the network error', async () => {
    const port = await closedPort()
    const [system = ''] = await createSystems(stack, 1, uniq('cbx'))
    const uid = await started(postExport(stack, system, { data: ['x'], callback: `http://127.0.0.1:${port}/gone` }))
    const op = await waitOperation(stack, uid, (o) => delivery(o).attempts >= 1)
    expect(delivery(op)).toMatchObject({ lastStatus: null, lastError: 'ECONNREFUSED', delivered: false })
  })
})
