// GET /metrics (docs/monitoring.md): Prometheus text after real traffic (an MQTT publish with mqtt.js, a refused
// payload, an API call, an operation), and the optional bearer protection (METRICS_TOKEN).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, publish } from '../../helpers/devices.js'
import { postLabel, started, until, waitFinished } from '../../helpers/operations.js'

/** The value of one sample of the exposition text (0 when the series is absent). */
function sample (text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue
    const [series, value] = [line.slice(0, line.lastIndexOf(' ')), line.slice(line.lastIndexOf(' ') + 1)]
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) return Number(value)
  }
  return 0
}

async function scrape (stack: Stack, headers: Record<string, string> = {}): Promise<{ status: number, text: string, type: string }> {
  const res = await fetch(`${stack.httpUrl}/metrics`, { headers })
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' }
}

describe('metrics after real traffic', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true }) })
  afterAll(async () => { await stack.close() })

  it('count HTTP requests by route pattern and status, device messages accepted and refused, devices, tasks, queue and store', async () => {
    const before = (await scrape(stack)).text
    const device = await createDevice(stack)
    const client = await connectDevice(stack.mqttUrl, device.serial, device.mqttPassword ?? '')
    try {
      const topic = `${device.serial}/messages/json`
      expect(await publish(client, topic, JSON.stringify({ 'machine.temperature': 21.5 }))).toBe(0)
      expect(await publish(client, topic, '{not json')).toBe(0) // refused and counted, connection kept
      const res = await fetch(`${stack.httpUrl}/api/v1/systems/${device.uid}`, { headers: { authorization: `Bearer ${stack.adminToken}` } })
      expect(res.status).toBe(200)
      await waitFinished(stack, await started(postLabel(stack, { labels: { add: ['metrics'] }, criteria: { uids: [device.uid] } })))
      // One more, an hour ahead: its task waits, PENDING, in an operation not finished.
      await started(postLabel(stack, { labels: { add: ['later'] }, criteria: { uids: [device.uid] }, scheduledTime: Date.now() + 3_600_000 }))

      const { status, text, type } = await scrape(stack)
      expect(status).toBe(200)
      expect(type).toMatch(/^text\/plain/)
      // The route pattern, never the raw URL with its uid.
      expect(sample(text, 'fleet_http_request_duration_seconds_count', { route: '/api/v1/systems/:uid', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1)
      expect(text).not.toContain(device.uid)
      expect(sample(text, 'fleet_ingest_messages_accepted_total', { protocol: 'MQTT' }) - sample(before, 'fleet_ingest_messages_accepted_total', { protocol: 'MQTT' })).toBe(1)
      expect(sample(text, 'fleet_ingest_messages_refused_total', { protocol: 'MQTT' })).toBeGreaterThanOrEqual(1)
      expect(sample(text, 'fleet_ingest_batch_size_count')).toBeGreaterThanOrEqual(1)
      expect(sample(text, 'fleet_ingest_commit_duration_seconds_count')).toBeGreaterThanOrEqual(1)
      expect(text).toMatch(/^fleet_ingest_buffer_depth 0$/m)
      expect(sample(text, 'fleet_devices_connected', { protocol: 'MQTT', version: '3.1.1' })).toBe(1)
      expect(sample(text, 'fleet_operation_tasks_total', { type: 'SYSTEM_LABEL', state: 'SUCCESS' })).toBe(1)
      expect(sample(text, 'fleet_operation_tasks_open', { type: 'SYSTEM_LABEL', state: 'PENDING' })).toBe(1)
      expect(sample(text, 'fleet_operation_tasks_open', { type: 'SYSTEM_LABEL', state: 'SUCCESS' })).toBe(0)
      expect(text).toMatch(/^fleet_queue_jobs\{state="waiting"\} \d+$/m)
      expect(sample(text, 'fleet_store_pool_connections', { store: stack.db.kind, state: 'total' })).toBeGreaterThanOrEqual(1)
      expect(text).toMatch(/^fleet_store_pool_waiting\{store="(pglite|postgres)"\} \d+$/m)
      expect(text).toMatch(/^fleet_store_queries_in_flight\{store="(pglite|postgres)"\} \d+$/m)
      expect(text).toContain('fleet_process_cpu_seconds_total')
      expect(text).toContain('fleet_nodejs_eventloop_lag_seconds')
    } finally {
      await endAll(client)
    }
    // The device gauge follows the disconnection.
    await until('the device gone from the gauge', async () => sample((await scrape(stack)).text, 'fleet_devices_connected', { version: '3.1.1' }) === 0)
  })

  it('label an unknown URL as unmatched, not by its path', async () => {
    const res = await fetch(`${stack.httpUrl}/no/such/path-x1y2z3`)
    expect(res.status).toBe(404)
    const { text } = await scrape(stack)
    expect(sample(text, 'fleet_http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1)
    expect(text).not.toContain('path-x1y2z3')
  })
})

describe('METRICS_TOKEN', () => {
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, env: { METRICS_TOKEN: 'scrape-secret-123' } }) })
  afterAll(async () => { await stack.close() })

  it('refuses a scrape without the token or with another one (401 invalid_token), and never echoes the token', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong' }, { authorization: 'Basic c2NyYXBlLXNlY3JldC0xMjM=' }, { authorization: `Bearer ${stack.adminToken}` }]) {
      const { status, text } = await scrape(stack, headers)
      expect(status).toBe(401)
      expect(JSON.parse(text)).toMatchObject({ error: 'invalid_token' })
      expect(text).not.toContain('scrape-secret-123')
    }
  })

  it('answers the metrics with the token', async () => {
    const { status, text } = await scrape(stack, { authorization: 'Bearer scrape-secret-123' })
    expect(status).toBe(200)
    expect(text).toContain('fleet_http_request_duration_seconds')
  })
})
