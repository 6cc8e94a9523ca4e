// Device listeners behind a TCP proxy (ingest/proxy-protocol.ts): with MQTT_PROXY_PROTOCOL and M3DA_PROXY_PROTOCOL
// on, the client address of each connection's PROXY protocol header is the one the company's deviceIpFiltering
// judges; a connection without a header, or whose header is late, is closed and counted. The test is the proxy:
// it connects from 127.0.0.1 (TRUST_PROXY) and writes the header itself before the device's first bytes.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, endAll, publish, telemetryCounts, tryConnect, type Device } from '../../helpers/devices.js'
import { metricValue } from '../../helpers/raw-mqtt.js'
import { m3daApplication, m3daSystem } from '../m3da/m3da-fixtures.js'
import { sendUnsecured, tcpLink } from '../m3da/m3da-device.js'
import { V2_SIGNATURE } from '../../../protocols/proxy/header.js'

const ALLOWED = '203.0.113.7'
const OTHER = '198.51.100.9'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({
    listen: true,
    env: { TRUST_PROXY: '127.0.0.1,::1', MQTT_PROXY_PROTOCOL: 'true', M3DA_PROXY_PROTOCOL: 'true', PROXY_PROTOCOL_TIMEOUT_MS: '300' }
  })
  const res = await stack.call(stack.adminToken, {
    method: 'PUT',
    url: `/api/v1/company/${stack.companyUid}`,
    payload: { deviceIpFiltering: true, deviceIpFilters: { ipAddresses: [ALLOWED], startIPAddress: null, endIPAddress: null } }
  })
  expect(res.statusCode).toBe(200)
}, 120_000)
afterAll(async () => { await stack.close() })

/** A version 2 PROXY header for a TCP/IPv4 client. */
function v2Header (client: string, port = 40000): Buffer {
  const block = [...client.split('.').map(Number), 127, 0, 0, 1, port >> 8, port & 0xff, 0x07, 0x5b]
  return Buffer.concat([Buffer.from(V2_SIGNATURE), Buffer.from([0x21, 0x11, 0, block.length]), Buffer.from(block)])
}
const v1Header = (client: string): Buffer => Buffer.from(`PROXY TCP4 ${client} 127.0.0.1 40000 1883\r\n`)

/** An MQTT login through "the proxy": the header, then mqtt.js's CONNECT on the same socket. */
async function mqttVia (header: Buffer, d: Device, version: 4 | 5): Promise<number | 'accepted'> {
  const stream = () => { const s = connect(stack.ports.mqtt ?? 0, '127.0.0.1'); s.write(header); return s }
  const o = await tryConnect(stack.mqttUrl, { version, username: d.serial, password: d.mqttPassword ?? '', stream })
  if (!o.ok) return o.code ?? -1
  expect(await publish(o.client, `${d.serial}/messages/json`, '{"a": 1}')).toBe(0)
  await endAll(o.client)
  return 'accepted'
}

const refusals = async (transport: string, reason: string): Promise<number> => await metricValue(stack, 'fleet_proxy_protocol_refused_total', { transport, reason })

describe('MQTT behind a proxy', () => {
  it('the address of a version 2 or version 1 header is the one the device IP filter sees', async () => {
    const d = await createDevice(stack)
    expect(await mqttVia(v2Header(OTHER), d, 4)).toBe(5)
    expect(await mqttVia(v2Header(OTHER), d, 5)).toBe(0x87)
    expect(await mqttVia(v2Header(ALLOWED), d, 4)).toBe('accepted')
    expect(await mqttVia(v1Header(ALLOWED), d, 5)).toBe('accepted')
    expect((await telemetryCounts(stack, d.uid)).messages).toBe(2)
  })

  it('a connection without a header is closed before its CONNECT is read, and counted', async () => {
    const before = await refusals('mqtt', 'invalid_header')
    const d = await createDevice(stack)
    const o = await tryConnect(stack.mqttUrl, { username: d.serial, password: d.mqttPassword ?? '' })
    expect(o.ok).toBe(false)
    expect(await refusals('mqtt', 'invalid_header')).toBe(before + 1)
  })

  it('a header that does not come in time closes the connection', async () => {
    const before = await refusals('mqtt', 'timeout')
    const s = connect(stack.ports.mqtt ?? 0, '127.0.0.1')
    s.on('error', () => {})
    s.write(v2Header(ALLOWED).subarray(0, 10))
    await new Promise<void>((resolve) => { s.once('close', () => { resolve() }) })
    expect(await refusals('mqtt', 'timeout')).toBe(before + 1)
  })
})

describe('M3DA behind a proxy', () => {
  it('the address of the header is the one the device IP filter sees', async () => {
    const open = await m3daApplication(stack, { authentication: 'none' })
    const s = await m3daSystem(stack, { applications: [open] })
    const refused = await tcpLink(stack, 5000, v2Header(OTHER))
    expect((await sendUnsecured(refused, s.serial, [])).status).toBe(403)
    await refused.close()
    const allowed = await tcpLink(stack, 5000, v1Header(ALLOWED))
    expect((await sendUnsecured(allowed, s.serial, [])).status).toBe(200)
    await allowed.close()
  })

  it('a connection without a header is closed and counted', async () => {
    const before = await refusals('m3da', 'invalid_header')
    const s = connect(stack.ports.m3da ?? 0, '127.0.0.1')
    s.on('error', () => {})
    s.write(Buffer.from([0xe0, 0x00, 0x00]))
    await new Promise<void>((resolve) => { s.once('close', () => { resolve() }) })
    expect(await refusals('m3da', 'invalid_header')).toBe(before + 1)
  })
})
