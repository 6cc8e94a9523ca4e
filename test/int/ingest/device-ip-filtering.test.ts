// The company's deviceIpFiltering (docs/api.md#users-and-companies, docs/devices.md): a device connecting from an
// address outside deviceIpFilters is refused: MQTT at CONNECT (3.1.1: 5 not authorized; 5: 0x87), REST with
// 403 ip.forbidden. Good logins are cached 5 s (devices.service.ts), so each phase uses devices not yet logged in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser } from '../../helpers/factories.js'
import { createDevice, deviceFetch, endAll, publish, telemetryCounts, tryConnect, wsUrl, type Device } from '../../helpers/devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

async function setFiltering (on: boolean, filters: { ipAddresses?: string[], startIPAddress?: string | null, endIPAddress?: string | null }): Promise<void> {
  const res = await stack.call(stack.adminToken, {
    method: 'PUT',
    url: `/api/v1/company/${stack.companyUid}`,
    payload: { deviceIpFiltering: on, deviceIpFilters: { ipAddresses: [], startIPAddress: null, endIPAddress: null, ...filters } }
  })
  expect(res.statusCode).toBe(200)
  expect(res.json().deviceIpFiltering).toBe(on)
}

async function mqttOutcome (d: Device, version: 4 | 5, ws = false): Promise<number | 'accepted'> {
  const o = await tryConnect(ws ? wsUrl(stack) : stack.mqttUrl, { version, username: d.serial, password: d.mqttPassword ?? '' })
  if (!o.ok) return o.code ?? -1
  expect(await publish(o.client, `${d.serial}/messages/json`, '{"a": 1}')).toBe(0)
  await endAll(o.client)
  return 'accepted'
}

const restStatus = async (d: Device, method: 'GET' | 'POST', path: string): Promise<{ status: number, body: unknown }> => {
  const res = await deviceFetch(stack, method, path, { user: d.imei, password: d.restPassword ?? '', ...(method === 'POST' ? { body: path === '/device/acks' ? '[{"uid": "t", "status": "OK"}]' : '{"a": 1}' } : {}) })
  return { status: res.status, body: res.body }
}

describe('deviceIpFiltering', () => {
  it('127.0.0.1 not allowed: MQTT refused at CONNECT (TCP and WebSocket), REST 403 ip.forbidden, nothing stored', async () => {
    await setFiltering(true, { ipAddresses: ['10.1.2.3'], startIPAddress: '192.168.0.1', endIPAddress: '192.168.0.255' })
    const d = await createDevice(stack)
    expect(await mqttOutcome(d, 4)).toBe(5)
    expect(await mqttOutcome(d, 4, true)).toBe(5)
    expect(await mqttOutcome(d, 5)).toBe(0x87)
    expect(await mqttOutcome(d, 5, true)).toBe(0x87)
    const forbidden = { status: 403, body: { error: 'ip.forbidden', errorParameters: [] } }
    expect(await restStatus(d, 'POST', '/device/messages')).toEqual(forbidden)
    expect(await restStatus(d, 'GET', '/device/tasks')).toEqual(forbidden)
    expect(await restStatus(d, 'POST', '/device/acks')).toEqual(forbidden)
    expect(await telemetryCounts(stack, d.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
    // Bad credentials are still answered as such (401), whatever the address.
    expect((await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: 'wrong' })).status).toBe(401)
  })

  it('devices of another company are not concerned by this company\'s filters', async () => {
    const other = await createUser(stack, { company: 'Unfiltered Company', rights: ['entities.systems.create', 'entities.systems.view'] })
    const d = await createDevice(stack, { token: other.token })
    expect(await mqttOutcome(d, 4)).toBe('accepted')
    expect((await restStatus(d, 'POST', '/device/messages')).status).toBe(200)
  })

  it('127.0.0.1 listed: accepted; inside the range: accepted', async () => {
    await setFiltering(true, { ipAddresses: ['10.1.2.3', '127.0.0.1'] })
    const d = await createDevice(stack)
    expect(await mqttOutcome(d, 4)).toBe('accepted')
    expect(await mqttOutcome(d, 5, true)).toBe('accepted')
    expect((await restStatus(d, 'POST', '/device/messages')).status).toBe(200)
    await setFiltering(true, { startIPAddress: '127.0.0.0', endIPAddress: '127.0.0.10' })
    const e = await createDevice(stack)
    expect(await mqttOutcome(e, 5)).toBe('accepted')
    expect((await restStatus(e, 'GET', '/device/tasks')).status).toBe(200)
    expect((await telemetryCounts(stack, d.uid)).messages).toBe(3)
  })

  it('filtering off: the same addresses are accepted again', async () => {
    await setFiltering(true, { ipAddresses: ['10.1.2.3'] })
    const d = await createDevice(stack)
    expect(await mqttOutcome(d, 4)).toBe(5)
    await setFiltering(false, { ipAddresses: ['10.1.2.3'] })
    expect(await mqttOutcome(d, 4)).toBe('accepted')
    expect((await restStatus(d, 'POST', '/device/messages')).status).toBe(200)
  })
})
