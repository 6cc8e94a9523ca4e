// MQTT connections that do not log in (ingest/login-gate.ts, docs/devices.md): a connection not sent its CONNACK
// within MQTT_CONNECT_TIMEOUT_MS of opening is closed, whether its CONNECT is cut short or its login still pending;
// from the CONNACK on the keep alive applies, even to a device that never sends another packet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../core/ports/store.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, publish, type Device } from '../../helpers/devices.js'
import { connectBytes, metricValue, rawPeer } from '../../helpers/raw-mqtt.js'

// Long enough for a login on a loaded machine (a device's first envelope or CONNECT is answered within it).
const DEADLINE_MS = 2000
/** A login the store does not answer while `held` is set: the service's login statement for this identifier waits. */
const HELD_LOGIN = 'HELD-LOGIN'
let held: { release: () => void, promise: Promise<void> } | undefined

function holdingLogins (db: Db): Db {
  return {
    ...db,
    async query (sql, params) {
      const ids = params?.[0]
      if (held !== undefined && Array.isArray(ids) && ids.includes(HELD_LOGIN)) await held.promise
      return await db.query(sql, params)
    }
  }
}

let stack: Stack
let dev: Device
beforeAll(async () => {
  stack = await startStack({ listen: true, env: { MQTT_CONNECT_TIMEOUT_MS: String(DEADLINE_MS) }, wrapDb: holdingLogins })
  dev = await createDevice(stack)
})
afterAll(async () => { held?.release(); await stack.close() })

const timeouts = async (): Promise<number> => await metricValue(stack, 'fleet_device_connections_closed_before_login_total', { transport: 'mqtt', reason: 'login_timeout' })
const port = (): number => stack.ports.mqtt ?? 0

describe('the CONNECT deadline holds until the CONNACK', () => {
  for (const version of [4, 5] as const) {
    for (const will of [false, true]) {
      if (version === 5 && will) continue // MQTT 5 connections with a Will are served by the MQTT 5 session too
      it(`MQTT ${version === 4 ? '3.1.1' : '5'}${will ? ' with a Will' : ''}: a CONNECT cut after 10 bytes is closed`, async () => {
        const before = await timeouts()
        const peer = await rawPeer(port(), version)
        const bytes = connectBytes(version, { clientId: 'partial', username: dev.serial, password: dev.mqttPassword ?? '', ...(will ? { will: `${dev.serial}/messages/json` } : {}) })
        peer.socket.write(bytes.subarray(0, 10)) // up to the connect flags: enough to pick the session, not to log in
        await peer.closed
        expect(peer.packets).toEqual([])
        expect(await timeouts()).toBe(before + 1)
      })
    }
  }

  it('a socket that sends nothing is closed', async () => {
    const peer = await rawPeer(port())
    await peer.closed
    expect(peer.packets).toEqual([])
  })

  for (const version of [4, 5] as const) {
    it(`MQTT ${version === 4 ? '3.1.1' : '5'}: a connection whose login the store does not answer is closed`, async () => {
      let release = (): void => {}
      const promise = new Promise<void>((resolve) => { release = resolve })
      held = { release, promise }
      try {
        const before = await timeouts()
        const peer = await rawPeer(port(), version)
        peer.socket.write(connectBytes(version, { clientId: 'held', username: HELD_LOGIN, password: 'whatever-password' }))
        await peer.closed
        expect(peer.packets.some((p) => p.cmd === 'connack')).toBe(false)
        expect(await timeouts()).toBe(before + 1)
      } finally {
        held = undefined
        release()
      }
    })
  }

  it('a device logged in stays past the deadline', async () => {
    const c = await connectDevice(`mqtt://127.0.0.1:${port()}`, dev.serial, dev.mqttPassword ?? '', { version: 4, keepalive: 60 })
    // A connection opened after the device's CONNACK reaches its deadline after the device's would have.
    const later = await rawPeer(port())
    await later.closed
    expect(c.connected).toBe(true)
    expect(await publish(c, `${dev.serial}/messages/json`, '{"a": 1}')).toBe(0)
    await endAll(c)
  })
})

describe('the keep alive runs from the CONNACK', () => {
  const cases = [
    { name: 'MQTT 3.1.1', version: 4 as const, will: false },
    { name: 'MQTT 3.1.1 with a Will', version: 4 as const, will: true },
    { name: 'MQTT 5', version: 5 as const, will: false }
  ]
  for (const { name, version, will } of cases) {
    it(`${name}: a device silent right after its CONNACK is closed after 1.5 × its keep alive of 1 s`, async () => {
      const before = await timeouts()
      const peer = await rawPeer(port(), version)
      peer.socket.write(connectBytes(version, { clientId: `silent-${version}-${String(will)}`, username: dev.serial, password: dev.mqttPassword ?? '', keepalive: 1, ...(will ? { will: `${dev.serial}/messages/json` } : {}) }))
      const connack = await peer.next('connack') as { returnCode?: number, reasonCode?: number }
      expect(connack.reasonCode ?? connack.returnCode).toBe(0)
      await peer.closed
      // Closed by its keep alive, not by the login deadline (which ended at the CONNACK).
      expect(await timeouts()).toBe(before)
      // MQTT 5.0 §3.1.2.10: DISCONNECT 0x8D, keep alive timeout.
      if (version === 5) expect(peer.packets.find((p) => p.cmd === 'disconnect')).toMatchObject({ reasonCode: 0x8d })
    })
  }
})
