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
import { eventually } from '../../helpers/eventually.js'

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

it('handles at most Receive Maximum messages at once, in arrival order, and acknowledges each once', { timeout: 60_000 }, async () => {
  const MAX = 50
  // Within Mosquitto's default queue of 1,000 messages per session (test/helpers/mosquitto.ts keeps the defaults).
  const TOTAL = 900
  let handling = 0
  let most = 0
  const seen: number[] = []
  // Each handler holds until the test lets the batch go: the test sees the consumer at its bound with the next
  // messages received and waiting, instead of hoping a handler's pause makes them overlap.
  const held: Array<() => void> = []
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
      await new Promise<void>((resolve) => { held.push(resolve) })
      handling--
    }
  })
  await consumer.ready
  // QoS 1 from the device: the broker takes them all at once and holds them for the consumer.
  await Promise.all(Array.from({ length: TOTAL }, async (_, i) => { await device.publishAsync('dev-1/messages/json', String(i), { qos: 1 }) }))
  const state = (): string => JSON.stringify({ seen: seen.length, held: held.length, inFlight: consumer.inFlight(), handling: consumer.handling(), most })
  while (seen.length < TOTAL || held.length > 0) {
    // The bound reached (whatever more the broker sent waits in the consumer), or the last messages in hand: then
    // the batch goes, and the next messages take its place.
    await eventually(() => held.length >= MAX || (seen.length === TOTAL && held.length === consumer.inFlight()),
      { timeoutMs: 45_000, what: 'the consumer at its bound, or every message in hand', seen: state })
    for (const release of held.splice(0)) release()
  }
  await eventually(() => consumer.inFlight() === 0, { timeoutMs: 10_000, what: 'every message acknowledged', seen: state })
  expect(most).toBeLessThanOrEqual(MAX)
  expect(most).toBeGreaterThan(MAX / 2) // the bound is used, not a trickle
  expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => i))
  // Every message acknowledged: a new consumer of the same session receives nothing again. The broker sends a
  // session's unacknowledged messages again before anything newer (MQTT 5.0 §4.4), so a message published once the
  // new consumer is subscribed comes after any of them: it arriving alone shows there was none.
  await consumer.close()
  const again: string[] = []
  const second = startConsumer({ url: new URL(broker.adminUrl), clientId: 'flow-probe', topics: [TOPIC], log: pino({ level: 'silent' }), handle: async (_t, p) => { again.push(p.toString()) } })
  await second.ready
  await device.publishAsync('dev-1/messages/json', 'marker', { qos: 1 })
  await eventually(() => again.includes('marker'), { timeoutMs: 10_000, what: 'the marker at the new consumer', seen: () => again.join(',') })
  await second.close()
  expect(again).toEqual(['marker'])
})
