// The cap of connections not logged in per address (ingest/login-gate.ts, UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS):
// beyond it a new connection is closed at once and counted; MQTT over TCP and WebSocket count together, M3DA apart;
// a connection that logs in, or goes, leaves its place.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, eventually, publish, tryConnect, wsUrl, type Device } from '../../helpers/devices.js'
import { connectBytes, metricValue, rawPeer, type RawPeer } from '../../helpers/raw-mqtt.js'

const CAP = 3

let stack: Stack
let dev: Device
beforeAll(async () => {
  // The held connections must outlive the steps of a test on a loaded machine: long login deadlines.
  stack = await startStack({ listen: true, env: { UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: String(CAP), MQTT_CONNECT_TIMEOUT_MS: '60000', M3DA_LOGIN_TIMEOUT_MS: '60000' } })
  dev = await createDevice(stack)
})
afterAll(async () => { await stack.close() })

const capped = async (transport: string): Promise<number> =>
  await metricValue(stack, 'fleet_device_connections_closed_before_login_total', { transport, reason: 'per_address_cap' })

/** `n` connections to the port that send nothing, each accepted (answered nothing, still open) before the next. */
async function silent (port: number, n: number): Promise<RawPeer[]> {
  const peers: RawPeer[] = []
  for (let i = 0; i < n; i++) peers.push(await rawPeer(port))
  return peers
}

describe('connections not logged in, per address', () => {
  it('MQTT: beyond the cap a TCP or WebSocket connection is closed at once; the held ones are served', async () => {
    const port = stack.ports.mqtt ?? 0
    const before = await capped('mqtt')
    const held = await silent(port, CAP)
    const extra = await rawPeer(port)
    await extra.closed
    expect(extra.packets).toEqual([])
    const ws = await tryConnect(wsUrl(stack), { version: 4, username: dev.serial, password: dev.mqttPassword ?? '' })
    expect(ws.ok).toBe(false)
    expect(await capped('mqtt')).toBe(before + 2)
    // The held connections were kept: one logs in now, which leaves its place to a new device.
    const first = held[0] as RawPeer
    first.socket.write(connectBytes(4, { clientId: 'held-one', username: dev.serial, password: dev.mqttPassword ?? '' }))
    expect(await first.next('connack')).toMatchObject({ returnCode: 0 })
    const c = await eventually(async () => {
      const o = await tryConnect(wsUrl(stack), { version: 5, username: dev.serial, password: dev.mqttPassword ?? '' })
      return o.ok ? o.client : undefined
    }, 15_000, 'a place for a new connection') as MqttClient
    expect(await publish(c, `${dev.serial}/messages/json`, '{"a": 1}')).toBe(0)
    await endAll(c)
    for (const p of held) p.socket.destroy()
  })

  it('MQTT: a connection that goes leaves its place', async () => {
    const port = stack.ports.mqtt ?? 0
    const held = await silent(port, CAP)
    const extra = await rawPeer(port)
    await extra.closed
    for (const p of held) p.socket.destroy()
    const c = await eventually(async () => {
      const o = await tryConnect(stack.mqttUrl, { version: 4, username: dev.serial, password: dev.mqttPassword ?? '' })
      return o.ok ? o.client : undefined
    }, 15_000, 'the places to be left')
    await endAll(c)
  })

  it('logged-in connections do not count', async () => {
    const port = stack.ports.mqtt ?? 0
    const devices = []
    for (let i = 0; i < CAP + 2; i++) devices.push(await connectDevice(stack.mqttUrl, dev.serial, dev.mqttPassword ?? '', { version: 4 }))
    const before = await capped('mqtt')
    const held = await silent(port, CAP)
    const extra = await rawPeer(port)
    await extra.closed
    expect(await capped('mqtt')).toBe(before + 1) // the extra one only: the devices logged in left their places
    for (const p of held) p.socket.destroy()
    await endAll(...devices)
  })

  it('M3DA over TCP: its own count; beyond the cap a connection is closed at once', async () => {
    const port = stack.ports.m3da ?? 0
    const mqttHeld = await silent(stack.ports.mqtt ?? 0, CAP) // the MQTT places are full: M3DA's are not
    const before = await capped('m3da')
    const held = await silent(port, CAP)
    const extra = await rawPeer(port)
    await extra.closed
    expect(await capped('m3da')).toBe(before + 1) // the extra one only
    for (const p of [...held, ...mqttHeld]) p.socket.destroy()
  })
})
