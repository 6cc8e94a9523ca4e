// GET /api/v1/stream across two services, beside test/int/stream/stream-events.test.ts, which reads it on one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { createDevice, deviceFetch } from '../helpers/devices.js'
import { createSystems, postLabel, started } from '../helpers/operations.js'
import { openStream } from '../helpers/stream.js'
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/env.js'

// Across processes (docs/architecture.md#one-process-by-default-scaled-out-by-environment): two services on one
// PostgreSQL database and one Redis (REDIS_URL), as a cluster runs them. A device's message committed by one service,
// the commStatus it sets, and the progress of an operation run by it reach the streams opened on the other, over Redis
// pub/sub. These runs need TEST_DATABASE_URL and TEST_REDIS_URL; without them they are left out locally, but with
// CI=true they run and fail (a CI run never passes by leaving the servers out: docs/testing.md).
// The one environment read of this file: whether this is a CI run (test/helpers/env.ts holds the server URLs).
const CI = process.env.CI === 'true'
const servers = (TEST_DATABASE_URL !== undefined && TEST_REDIS_URL !== undefined) || CI ? ['PostgreSQL and Redis'] : []

describe.each(servers)('two services on %s', () => {
  let one: Stack
  let two: Stack
  beforeAll(async () => {
    if (TEST_DATABASE_URL === undefined || TEST_REDIS_URL === undefined) throw new Error('TEST_DATABASE_URL and TEST_REDIS_URL are needed')
    const channel = `fleet-test:events:${Math.random().toString(36).slice(2)}`
    const env = { REDIS_URL: TEST_REDIS_URL, STREAM_RECHECK_MS: '200' }
    one = await startStack({ listen: true, db: 'postgres', env, eventsChannel: channel })
    two = await startStack({ listen: true, env, eventsChannel: channel, storeOf: one })
  }, 180_000)
  afterAll(async () => {
    await two?.close()
    await one?.close()
  })

  it('a message committed by one service reaches a stream on the other, with its points and commStatus', async () => {
    const d = await createDevice(one)
    const c = await openStream(two, two.adminToken)
    expect(await c.ask({ action: 'subscribe', systems: { uids: [d.uid] } })).toMatchObject({ event: 'subscribed', systems: 1 })
    const res = await deviceFetch(one, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: '{"temp": 19.5}' })
    expect(res.status).toBe(200)
    expect(await c.take((m) => m.event === 'message' && m.system === d.uid)).toMatchObject({ protocol: 'REST' })
    expect(await c.take((m) => m.event === 'points' && m.system === d.uid)).toMatchObject({ dataId: 'temp', v: 19.5 })
    expect(await c.take((m) => m.event === 'commStatus' && m.system === d.uid)).toMatchObject({ status: 'OK' })
    await c.close()
  })

  it('an operation\'s progress reaches a stream on the other service, up to FINISHED', async () => {
    const uids = await createSystems(one, 5, 'cluster')
    const c = await openStream(two, two.adminToken)
    expect(await c.ask({ action: 'subscribe', operations: { all: true } })).toMatchObject({ event: 'subscribed' })
    const op = await started(postLabel(one, { criteria: { uids }, labels: { add: ['cluster'] } }))
    const done = await c.take((m) => m.event === 'operation' && m.uid === op && m.state === 'FINISHED', 30_000)
    expect(done.counters).toContainEqual({ state: 'SUCCESS', count: 5 })
    await c.close()
  })
})
