// The ingest consumer bounds what it handles at once (ingest/mqtt-broker/consumer.ts): Mosquitto sends a session's
// backlog without regard to the client's Receive Maximum, so the consumer itself holds the handling to that bound,
// keeps the rest in arrival order, and still acknowledges every message once, in order, after its handler.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { pino } from 'pino'
import { startConsumer } from '../../../ingest/mqtt-broker/consumer.js'
import type { MqttClient } from 'mqtt'
import { createDynsecClient } from '../../../ingest/broker-sync/dynsec-client.js'
import { ensureServiceRole } from '../../../ingest/mqtt-broker/service-role.js'
import { startMosquitto, tryConnect, type Mosquitto } from '../../helpers/mosquitto.js'

const TOPIC = '$share/flow/+/messages/json'

let broker: Mosquitto
let device: MqttClient
beforeAll(async () => {
  broker = await startMosquitto()
  // The admin account reads as the service does (the service's role), and one device login publishes.
  await ensureServiceRole((timeoutMs) => createDynsecClient(broker.adminUrl, { timeoutMs }), broker.adminUrl, [TOPIC])
  await broker.dynsec([
    { command: 'createRole', rolename: 'flow-device', acls: [{ acltype: 'publishClientSend', topic: 'dev-1/#', allow: true }] },
    { command: 'createClient', username: 'dev-1', password: 'dev-1-password', roles: [{ rolename: 'flow-device' }] }
  ])
  const c = await tryConnect(broker.url, 'dev-1', 'dev-1-password')
  if (typeof c === 'string') throw new Error(c)
  device = c
}, 60_000)
afterAll(async () => { await device?.endAsync(); await broker?.stop() })

const until = async (ok: () => boolean, ms: number, state: () => unknown): Promise<void> => {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(state())}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

it('handles at most Receive Maximum messages at once, in arrival order, and acknowledges each once', { timeout: 60_000 }, async () => {
  const MAX = 50
  // Within Mosquitto's default queue of 1,000 messages per session (test/helpers/mosquitto.ts keeps the defaults).
  const TOTAL = 900
  let handling = 0
  let most = 0
  const seen: number[] = []
  const consumer = startConsumer({
    url: new URL(broker.adminUrl),
    clientId: 'flow-probe',
    topics: [TOPIC],
    receiveMaximum: MAX,
    log: pino({ level: 'silent' }),
    handle: async (_topic, payload) => {
      handling++
      most = Math.max(most, handling)
      seen.push(Number(payload.toString()))
      await new Promise((resolve) => setTimeout(resolve, 5))
      handling--
    }
  })
  await consumer.ready
  // QoS 1 from the device: the broker takes them all at once and holds them for the consumer.
  await Promise.all(Array.from({ length: TOTAL }, async (_, i) => { await device.publishAsync('dev-1/messages/json', String(i), { qos: 1 }) }))
  await until(() => seen.length === TOTAL && consumer.inFlight() === 0, 45_000, () => ({ seen: seen.length, inFlight: consumer.inFlight(), handling: consumer.handling(), most }))
  expect(most).toBeLessThanOrEqual(MAX)
  expect(most).toBeGreaterThan(MAX / 2) // the bound is used, not a trickle
  expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => i))
  // Every message acknowledged: a new consumer of the same session receives nothing again.
  await consumer.close()
  const again: string[] = []
  const second = startConsumer({ url: new URL(broker.adminUrl), clientId: 'flow-probe', topics: [TOPIC], log: pino({ level: 'silent' }), handle: async (_t, p) => { again.push(p.toString()) } })
  await second.ready
  await new Promise((resolve) => setTimeout(resolve, 500))
  await second.close()
  expect(again).toEqual([])
})
