// Acknowledge after commit (docs/architecture.md#how-data-flows): a QoS 1 PUBACK (MQTT 3.1.1 and 5) and the REST 200
// are sent only once the message is committed. The store is held by a transaction locking device_messages
// (PostgreSQL: another connection of the pool; PGlite: its one connection is busy until it ends), so the ingest
// write waits; nothing may be acknowledged meanwhile.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import {
  connectDevice, createDevice, deviceFetch, endAll, messagesOf, packetsOf, publish, settle, telemetryCounts, wsUrl, type Device
} from '../../helpers/devices.js'
import { holdStore as holdStoreOf } from '../../helpers/hold-store.js'
import { eventually } from '../../helpers/eventually.js'
import type { MqttClient } from 'mqtt'
import type { DeviceMessage } from '../../../core/domain/device-message.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

const holdStore = async (): Promise<{ release: () => Promise<void> }> => await holdStoreOf(stack)

/** Resolves once the ingest holds `n` messages waiting for their commit: they reached the write. */
async function waitingForCommit (n: number): Promise<void> {
  await eventually(() => stack.ctx.services.ingest.pending() >= n, 5000, `${n} messages waiting for their commit`)
}

/**
 * Resolves once the server has answered a PINGREQ sent now. It answers a connection's packets in the order they came:
 * an acknowledgement given on a message's arrival, before its commit, would come before this PINGRESP.
 */
async function pingAnswered (c: MqttClient): Promise<void> {
  await new Promise<void>((resolve) => {
    const on = (p: { cmd: string }): void => { if (p.cmd === 'pingresp') { c.off('packetreceive', on); resolve() } }
    c.on('packetreceive', on)
    c.sendPing()
  })
}

/** Whether `p` has settled by now (without consuming it). */
async function settledYet (p: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending')
  return await Promise.race([p.then(() => true, () => true), Promise.resolve(marker).then(() => false)])
}

describe('acknowledge after commit', () => {
  for (const [name, version, ws] of [['MQTT 3.1.1', 4, false], ['MQTT 5', 5, false], ['MQTT 3.1.1 over WebSocket', 4, true]] as const) {
    it(`${name}: no PUBACK while the write waits; PUBACK once committed, and the row is there`, async () => {
      const d = await createDevice(stack)
      const c = await connectDevice(ws ? wsUrl(stack) : stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
      const hold = await holdStore()
      const acked = publish(c, `${d.serial}/messages/json`, '{"machine.temperature": 1}')
      await waitingForCommit(1)
      await pingAnswered(c)
      const early = await settledYet(acked)
      const pubacksWhileHeld = packetsOf(c).filter((p) => p.cmd === 'puback').length
      await hold.release()
      expect(early).toBe(false)
      expect(pubacksWhileHeld).toBe(0)
      expect(await acked).toBe(0)
      // No polling: when the PUBACK is there, so is the message.
      expect((await messagesOf(stack, d.uid)).length).toBe(1)
      await endAll(c)
    })
  }

  it('REST: no answer while the write waits; 200 once committed, and the row is there', async () => {
    const d = await createDevice(stack)
    // A first request so that the login is cached and the held store only stops the write.
    expect((await deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: '{"a": 0}' })).status).toBe(200)
    const hold = await holdStore()
    const res = deviceFetch(stack, 'POST', '/device/messages', { user: d.serial, password: d.restPassword ?? '', body: '{"a": 1}' })
    await waitingForCommit(1)
    // A request sent after that (one the server refuses without the store) comes back on another connection: an
    // answer written on the message's arrival, before its commit, was on its way a whole round trip before it.
    expect((await fetch(`${stack.httpUrl}/api/v1/users/current`)).status).toBe(401)
    const early = await settledYet(res)
    await hold.release()
    expect(early).toBe(false)
    expect((await res).status).toBe(200)
    expect((await messagesOf(stack, d.uid)).length).toBe(2)
  })

  it('publishes that arrive while a write waits are committed together, in order, each acknowledged', async () => {
    const d = await createDevice(stack)
    const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version: 5 })
    const batchesBefore = stack.ctx.services.ingest.stats().batches
    const hold = await holdStore()
    // Same timestamp for every point: the value kept as the latest (data_last, System data) is the last published.
    const acks = Array.from({ length: 20 }, async (_, i) => await publish(c, `${d.serial}/messages/json`, JSON.stringify({ 1_700_000_000_000: { seq: i, _RSSI: -50 - i } })))
    await waitingForCommit(20)
    await pingAnswered(c)
    expect(await settledYet(Promise.race(acks))).toBe(false)
    expect(packetsOf(c).filter((p) => p.cmd === 'puback')).toEqual([])
    await hold.release()
    expect(await Promise.all(acks)).toEqual(Array(20).fill(0))
    const msgs = await messagesOf(stack, d.uid)
    expect(msgs.length).toBe(20)
    await settle(stack)
    const last = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${d.uid}/data?ids=seq` })
    expect(last.json()).toEqual({ seq: [{ value: 19, timestamp: 1_700_000_000_000 }] })
    expect((await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${d.uid}` })).json().data.rssi).toBe(-69)
    // Far fewer transactions than messages: they waited together (the first alone, the others as one batch or few).
    expect(stack.ctx.services.ingest.stats().batches - batchesBefore).toBeLessThan(10)
    await endAll(c)
  })

  it('a message that cannot be stored is not acknowledged: 3.1.1 closes, 5 disconnects, nothing stored', async () => {
    for (const version of [4, 5] as const) {
      const d = await createDevice(stack)
      const c = await connectDevice(stack.mqttUrl, d.serial, d.mqttPassword ?? '', { version })
      // The system disappears between CONNECT and PUBLISH.
      expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${d.uid}` })).statusCode).toBe(200)
      expect(await publish(c, `${d.serial}/messages/json`, '{"a": 1}')).toBe('closed')
      expect(packetsOf(c).some((p) => p.cmd === 'puback')).toBe(false)
      expect(await telemetryCounts(stack, d.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
      await endAll(c)
    }
  })
})

describe('ingest service batches', () => {
  it('one message of a deleted system fails alone; its neighbours in the batch are stored', async () => {
    const good: Device[] = [await createDevice(stack), await createDevice(stack)]
    const gone = await createDevice(stack)
    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${gone.uid}` })).statusCode).toBe(200)
    const msg = (systemUid: string, v: number): DeviceMessage => ({
      uid: randomUUID(),
      systemUid,
      companyUid: stack.companyUid,
      protocol: 'MQTT',
      receivedAt: Date.now(),
      timestamp: 1_700_000_000_000,
      points: [{ dataId: 'v', ts: 1_700_000_000_000, value: v }],
      nbDataPoints: 1
    })
    const hold = await holdStore()
    const first = stack.ctx.services.ingest.accept(msg(good[0]?.uid ?? '', 0)) // written alone, waits on the lock
    const batch = [msg(good[0]?.uid ?? '', 1), msg(gone.uid, 2), msg(good[1]?.uid ?? '', 3)].map(async (m) => await stack.ctx.services.ingest.accept(m).then(() => 'ok', (e: Error & { code?: string }) => e.code ?? e.message))
    await hold.release()
    await first
    expect(await Promise.all(batch)).toEqual(['ok', 'system.unknown', 'ok'])
    expect((await messagesOf(stack, good[0]?.uid ?? '')).length).toBe(2)
    expect((await messagesOf(stack, good[1]?.uid ?? '')).length).toBe(1)
    // The batch's first attempt sent every message's points with the messages (ingest.service.ts write()): those of
    // the deleted system went back with its rollback, and their rollup increments too.
    expect(await telemetryCounts(stack, gone.uid)).toEqual({ messages: 0, points: 0, last: 0, acks: 0 })
    const deltas = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM data_rollup_deltas WHERE system_uid = $1', [gone.uid])
    expect(deltas.rows[0]?.n).toBe(0)
    await settle(stack)
    expect(await telemetryCounts(stack, good[1]?.uid ?? '')).toMatchObject({ messages: 1, points: 1, last: 1 })
  })
})
