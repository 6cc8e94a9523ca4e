// GET /health and GET /ready (docs/monitoring.md): open, outside /api/v1 (no token, no rate limit); /ready answers
// 503 naming the check that failed: device listeners not started, the store closed, a migration missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'

describe('a started service', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, env: { RATE_LIMIT_PER_S: '1' } }) })
  afterAll(async () => { await stack.close() })

  it('is alive: GET /health answers 200 {"status":"ok"} without a token', async () => {
    const res = await fetch(`${stack.httpUrl}/health`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('is ready: store, migrations and the MQTT and M3DA listeners pass', async () => {
    const res = await fetch(`${stack.httpUrl}/ready`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok', checks: { store: 'ok', migrations: 'ok', mqtt: 'ok', m3da: 'ok', lwm2m: 'ok', lwm2ms: 'ok' } })
  })

  it('answers probes beyond the API rate limit (1 request per second here)', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, async (_, i) => (await fetch(`${stack.httpUrl}/${i % 2 === 0 ? 'health' : 'ready'}`)).status))
    expect(answers).toEqual(Array(10).fill(200))
  })

  it('answers 503 naming the migrations once one is missing', async () => {
    const { rows } = await stack.db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1')
    const last = rows[0]?.name ?? ''
    await stack.db.query('DELETE FROM schema_migrations WHERE name = $1', [last])
    try {
      const res = await fetch(`${stack.httpUrl}/ready`)
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ status: 'unavailable', failed: ['migrations'], checks: { store: 'ok', migrations: 'failed', mqtt: 'ok', m3da: 'ok', lwm2m: 'ok', lwm2ms: 'ok' } })
    } finally {
      await stack.db.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [last, Date.now()])
    }
  })
})

describe('a service whose device listeners are not started', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack() }) // built, not listening
  afterAll(async () => { await stack.close() })

  it('is alive but not ready: 503 with the device listeners\' checks failed', async () => {
    expect((await stack.api.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    const res = await stack.api.inject({ method: 'GET', url: '/ready' })
    expect(res.statusCode).toBe(503)
    expect(res.json()).toEqual({ status: 'unavailable', failed: ['mqtt', 'm3da', 'lwm2m', 'lwm2ms'], checks: { store: 'ok', migrations: 'ok', mqtt: 'failed', m3da: 'failed', lwm2m: 'failed', lwm2ms: 'failed' } })
  })
})

describe('a service whose store is gone', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true }) })
  afterAll(async () => { await stack.close() })

  it('is alive but not ready: 503 with the store and migrations checks failed', async () => {
    await stack.db.close()
    const health = await fetch(`${stack.httpUrl}/health`)
    expect(health.status).toBe(200)
    const res = await fetch(`${stack.httpUrl}/ready`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ status: 'unavailable', failed: ['store', 'migrations'], checks: { store: 'failed', migrations: 'failed', mqtt: 'ok', m3da: 'ok', lwm2m: 'ok', lwm2ms: 'ok' } })
  })
})
