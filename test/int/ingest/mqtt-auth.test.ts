// MQTT CONNECT of devices (docs/devices.md): username = gateway serial number or IMEI, password = the
// system's communication.mqtt.password; MQTT 3.1, 3.1.1 and 5, over TCP and over WebSocket at /mqtt.
import { connect as netConnect, type Socket } from 'node:net'
import mqttPacket from 'mqtt-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { putSystem } from '../../helpers/systems.js'
import {
  closed, connectDevice, createDevice, endAll, eventually, messagesOf, packetsOf, publish, telemetryCounts, tryConnect, wsUrl,
  type Device, type MqttVersion
} from '../../helpers/devices.js'
import { createUser, uniq } from '../../helpers/factories.js'

let stack: Stack
let dev: Device
// The service's clock runs with the system's, ahead by what a test moves it: the device login cache expires at once.
let ahead = 0
beforeAll(async () => {
  stack = await startStack({ listen: true, clock: { now: () => Date.now() + ahead } })
  dev = await createDevice(stack)
})
afterAll(async () => { await stack.close() })

const VERSIONS: Array<[string, MqttVersion]> = [['MQTT 3.1', 3], ['MQTT 3.1.1', 4], ['MQTT 5', 5]]
// MQTT 3.1.1 §3.2.2.3: 4 bad user name or password, 5 not authorized; MQTT 5.0 §3.2.2.2: 0x86, 0x87.
const BAD_CREDENTIALS: Record<MqttVersion, number> = { 3: 4, 4: 4, 5: 0x86 }

describe('CONNECT accepted', () => {
  for (const [name, version] of VERSIONS) {
    for (const transport of ['tcp', 'ws'] as const) {
      it(`${name} over ${transport}, with the serial number and with the IMEI; a publish is stored`, async () => {
        const url = transport === 'tcp' ? stack.mqttUrl : wsUrl(stack)
        const before = (await messagesOf(stack, dev.uid)).length
        for (const username of [dev.serial, dev.imei]) {
          const c = await connectDevice(url, username, dev.mqttPassword ?? '', { version })
          expect(await publish(c, `${username}/messages/json`, JSON.stringify({ 'machine.temperature': 21.5 }))).toBe(0)
          await endAll(c)
        }
        const msgs = await messagesOf(stack, dev.uid)
        expect(msgs.length).toBe(before + 2)
        expect(msgs.slice(-2).map((m) => m.protocol)).toEqual(['MQTT', 'MQTT'])
      })
    }
  }
})

/** Writes CONNECT and a QoS 1 PUBLISH in one chunk, as an eager device does; answers what came back until close. */
async function connectAndPublishRaw (version: MqttVersion, username: string | undefined, password: string | undefined, topicUser: string): Promise<mqttPacket.Packet[]> {
  const opts = { protocolVersion: version }
  const connect = mqttPacket.generate({
    cmd: 'connect',
    protocolId: version === 3 ? 'MQIsdp' : 'MQTT',
    protocolVersion: version,
    clean: true,
    clientId: 'raw',
    keepalive: 30,
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password: Buffer.from(password) })
  } as mqttPacket.IConnectPacket, opts)
  const pub = mqttPacket.generate({ cmd: 'publish', topic: `${topicUser}/messages/json`, payload: Buffer.from('{"a":1}'), qos: 1, messageId: 7, retain: false, dup: false }, opts)
  const socket: Socket = netConnect(stack.ports.mqtt ?? 0, '127.0.0.1')
  const parser = mqttPacket.parser(opts)
  const packets: mqttPacket.Packet[] = []
  parser.on('packet', (p) => packets.push(p))
  socket.on('data', (d) => parser.parse(d))
  socket.write(Buffer.concat([connect, pub]))
  await new Promise<void>((resolve) => { socket.once('close', () => { resolve() }); socket.on('error', () => {}) })
  return packets
}

describe('CONNECT refused, nothing stored', () => {
  for (const [name, version] of VERSIONS) {
    const code = BAD_CREDENTIALS[version]
    it(`${name}: bad password, unknown username, no credentials, no password → ${code}`, async () => {
      const cases: Array<{ username?: string, password?: string }> = [
        { username: dev.serial, password: 'wrong' },
        { username: dev.imei, password: (dev.mqttPassword ?? '') + 'x' },
        { username: 'UNKNOWN-DEVICE', password: dev.mqttPassword ?? '' },
        {},
        { username: dev.serial }
      ]
      for (const c of cases) {
        const o = await tryConnect(stack.mqttUrl, { version, ...c })
        expect({ case: c, ok: o.ok, code: o.ok ? undefined : o.code }).toEqual({ case: c, ok: false, code })
      }
    })

    it(`${name}: a system without an MQTT password is refused whatever the password`, async () => {
      const noMqtt = await createDevice(stack, { mqttPassword: null })
      for (const password of ['', 'anything', noMqtt.restPassword ?? '']) {
        const o = await tryConnect(wsUrl(stack), { version, username: noMqtt.serial, password })
        expect(o.ok ? 'accepted' : o.code).toBe(code)
      }
      expect(await telemetryCounts(stack, noMqtt.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
    })

    it(`${name}: a PUBLISH sent right behind a refused CONNECT is not stored`, async () => {
      const other = await createDevice(stack)
      const packets = await connectAndPublishRaw(version, other.serial, 'wrong', other.serial)
      const connack = packets.find((p) => p.cmd === 'connack') as { returnCode?: number, reasonCode?: number } | undefined
      expect(connack?.reasonCode ?? connack?.returnCode).toBe(code)
      expect(packets.some((p) => p.cmd === 'puback')).toBe(false)
      expect(await telemetryCounts(stack, other.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
    })
  }

  it('a PUBLISH right behind an accepted CONNECT is stored (the control of the case above)', async () => {
    for (const version of [4, 5] as const) {
      const other = await createDevice(stack)
      const packets = await Promise.race([
        connectAndPublishRaw(version, other.serial, other.mqttPassword ?? '', other.serial),
        eventually(async () => (await messagesOf(stack, other.uid)).length === 1, 5000, 'stored').then(() => [])
      ])
      expect(packets).toEqual([]) // the connection stays open: the message was stored before
      expect((await messagesOf(stack, other.uid)).length).toBe(1)
    }
  })
})

describe('password change through PUT /api/v1/systems/{uid}', () => {
  it('the new password works at once; the old one stops working (within the 5 s device login cache)', async () => {
    const d = await createDevice(stack)
    const old = d.mqttPassword ?? ''
    const first = await connectDevice(stack.mqttUrl, d.serial, old, { version: 4 }) // the old login is now cached
    await endAll(first)
    const res = await putSystem(stack, d.uid, { communication: { mqtt: { password: 'brand-new-password' } } })
    expect(res.statusCode).toBe(200)
    for (const version of [4, 5] as const) {
      const c = await connectDevice(stack.mqttUrl, d.serial, 'brand-new-password', { version })
      expect(await publish(c, `${d.serial}/messages/json`, '{"x": 1}')).toBe(0)
      await endAll(c)
    }
    // An IMEI login with the old password was never cached: refused at once.
    const imeiOld = await tryConnect(stack.mqttUrl, { version: 5, username: d.imei, password: old })
    expect(imeiOld.ok ? 'accepted' : imeiOld.code).toBe(0x86)
    // The cached serial login expires with the cache (devices.service.ts CACHE_MS = 5 s): past it, refused.
    ahead += 5001
    const o = await tryConnect(stack.mqttUrl, { version: 4, username: d.serial, password: old })
    if (o.ok) await endAll(o.client)
    expect(o.ok ? 'accepted' : o.code).toBe(4)
  })

  it('removing the MQTT password refuses every login', async () => {
    const d = await createDevice(stack)
    expect((await putSystem(stack, d.uid, { communication: { mqtt: null } })).statusCode).toBe(200)
    const o = await tryConnect(stack.mqttUrl, { version: 5, username: d.imei, password: d.mqttPassword ?? '' })
    expect(o.ok ? 'accepted' : o.code).toBe(0x86)
  })
})

describe('client ids (free, conventions.md §Devices): one device cannot push another off', () => {
  // Connections with and without a Will, in every order: a Will changes nothing to whose a client id is.
  const will = (d: Device): { will: { topic: string, payload: Buffer, qos: 0, retain: false } } =>
    ({ will: { topic: `${d.serial}/messages/json`, payload: Buffer.from('{}'), qos: 0, retain: false } })
  const paths = [['plain', 'plain'], ['plain', 'Will'], ['Will', 'plain'], ['Will', 'Will']] as const

  for (const [first, second] of paths) {
    it(`MQTT 3.1.1 (${first}, then ${second}): a device of another company using the id of the first is accepted; both stay`, async () => {
      const other = await createUser(stack, { company: uniq('Company A'), rights: ['entities.systems.create', 'entities.systems.view'] })
      const b = await createDevice(stack)
      const a = await createDevice(stack, { token: other.token })
      const clientId = `B-${b.serial}`
      const cb = await connectDevice(stack.mqttUrl, b.serial, b.mqttPassword ?? '', { version: 4, clientId, ...(first === 'Will' ? will(b) : {}) })
      const ca = await connectDevice(stack.mqttUrl, a.serial, a.mqttPassword ?? '', { version: 4, clientId, ...(second === 'Will' ? will(a) : {}) })
      expect(await publish(cb, `${b.serial}/messages/json`, '{"b": 1}')).toBe(0)
      expect(await publish(ca, `${a.serial}/messages/json`, '{"a": 1}')).toBe(0)
      expect([cb.connected, ca.connected]).toEqual([true, true])
      // The first device reconnecting with its id takes over its own connection only.
      const cb2 = await connectDevice(stack.mqttUrl, b.imei, b.mqttPassword ?? '', { version: 4, clientId, ...(first === 'Will' ? will(b) : {}) })
      expect(await closed(cb)).toBe(true)
      expect(await publish(ca, `${a.serial}/messages/json`, '{"a": 2}')).toBe(0)
      expect(ca.connected).toBe(true)
      expect((await messagesOf(stack, a.uid)).length).toBe(2)
      await endAll(cb, ca, cb2)
    })
  }

  it('MQTT 3.1.1 with a Will: the same device reconnecting takes over its connection without a Will', async () => {
    const d = await createDevice(stack)
    const first = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4, clientId: `cid-${d.serial}` })
    const second = await connectDevice(stack.mqttUrl, d.imei, d.mqttPassword ?? '', { version: 4, clientId: `cid-${d.serial}`, ...will(d) })
    expect(await closed(first)).toBe(true)
    expect(await publish(second, `${d.imei}/messages/json`, '{"a": 1}')).toBe(0)
    await endAll(first, second)
  })

  it('MQTT 3.1.1: the same device reconnecting with its client id takes the session over', async () => {
    const d = await createDevice(stack)
    const first = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 4, clientId: `cid-${d.serial}` })
    const second = await connectDevice(stack.mqttUrl, d.imei, d.mqttPassword ?? '', { version: 4, clientId: `cid-${d.serial}` })
    expect(await closed(first)).toBe(true)
    expect(await publish(second, `${d.imei}/messages/json`, '{"a": 1}')).toBe(0)
    await endAll(first, second)
  })

  it('MQTT 5: two connections of one device with different client ids both stay; the same client id takes over (0x8E)', async () => {
    const d = await createDevice(stack)
    const one = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 5, clientId: 'v5-one' })
    const two = await connectDevice(wsUrl(stack), d.serial, d.mqttPassword ?? '', { version: 5, clientId: 'v5-two' })
    expect(await publish(one, `${d.serial}/messages/json`, '{"a": 1}')).toBe(0)
    expect(await publish(two, `${d.serial}/messages/json`, '{"a": 2}')).toBe(0)
    const three = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 5, clientId: 'v5-one' })
    expect(await closed(one)).toBe(true)
    expect(packetsOf(one).find((p) => p.cmd === 'disconnect')).toMatchObject({ reasonCode: 0x8e }) // MQTT 5.0 §3.1.4
    expect(two.connected).toBe(true)
    expect(await publish(three, `${d.serial}/messages/json`, '{"a": 3}')).toBe(0)
    expect((await messagesOf(stack, d.uid)).length).toBe(3)
    await endAll(one, two, three)
  })

  it('MQTT 5: another device using the same client id does not disturb the first', async () => {
    const a = await createDevice(stack)
    const b = await createDevice(stack)
    const cb = await connectDevice(stack.mqttUrl, b.serial, b.mqttPassword ?? '', { version: 5, clientId: 'shared-v5' })
    const ca = await tryConnect(stack.mqttUrl, { version: 5, username: a.serial, password: a.mqttPassword ?? '', clientId: 'shared-v5' })
    if (ca.ok) await endAll(ca.client)
    expect(cb.connected).toBe(true)
    expect(await publish(cb, `${b.serial}/messages/json`, '{"a": 1}')).toBe(0)
    await endAll(cb)
  })
})
