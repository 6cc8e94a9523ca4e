// MQTT devices behind an external broker (docs/cluster.md#external-mqtt-broker-ingest): real mqtt.js devices connect to
// a Mosquitto of the test's own (their logins put there by the service's dynamic security sync), the service reads
// their topics through shared subscriptions and acknowledges to the broker after commit, and tasks reach the devices
// through the broker.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { eventually, messagesOf, pointsOf, publish, refusedCount, transportOf } from '../../helpers/devices.js'
import { deviceTasksOfSystem, mqttDevices, postReboot, type MqttDevice } from '../../helpers/rollout-devices.js'
import { count, started, waitFinished } from '../../helpers/operations.js'
import { startMosquitto, tryConnect, type Mosquitto } from '../../helpers/mosquitto.js'
import { INGEST_TOPICS } from '../../../ingest/mqtt-broker/broker.transport.js'
import type { DeviceTask } from '../../../core/domain/device-task.js'

let broker: Mosquitto
let stack: Stack

beforeAll(async () => {
  broker = await startMosquitto()
  stack = await startStack({ env: { MQTT_URL: broker.adminUrl, FLEET_NODE_ID: 'ingest-test', WORKER_CONCURRENCY: '2' } })
}, 60_000)
afterAll(async () => {
  await stack?.close()
  await broker?.stop()
})

async function device (d: MqttDevice): Promise<{ client: MqttClient, got: DeviceTask[][] }> {
  const c = await tryConnect(broker.url, d.serial, d.password, { protocolVersion: 4 })
  if (typeof c === 'string') throw new Error(`${d.serial} refused by the broker: ${c}`)
  onTestFinished(async () => { await c.endAsync(true) })
  const got: DeviceTask[][] = []
  c.on('message', (topic, payload) => { if (topic === `${d.serial}/tasks/json`) got.push(JSON.parse(payload.toString('utf8')) as DeviceTask[]) })
  return { client: c, got }
}

describe('devices behind an external MQTT broker', () => {
  it('stores what a device publishes to the broker, under protocol MQTT', async () => {
    const [d] = await mqttDevices(stack, 1, 'broker-data')
    if (d === undefined) throw new Error('no device')
    const { client } = await device(d)
    expect(await publish(client, `${d.serial}/messages/json`, JSON.stringify({ 1700000000000: { 'machine.temperature': 21.5 } }))).toBe(0)
    const m = await eventually(async () => (await messagesOf(stack, d.uid))[0], 15_000, 'the message stored')
    expect(m?.protocol).toBe('MQTT')
    expect((await pointsOf(stack, d.uid)).map((p) => [p.dataId, p.ts, p.num])).toEqual([['machine.temperature', 1700000000000, 21.5]])
  })

  it('runs a reboot through the broker: the task published to the device, its ack finishing the operation', async () => {
    const ds = await mqttDevices(stack, 3, 'broker-reboot')
    const online = await Promise.all(ds.map(async (d) => {
      const dev = await device(d)
      expect((await dev.client.subscribeAsync(`${d.serial}/tasks/json`, { qos: 1 })).map((g) => g.qos)).toEqual([1])
      dev.client.on('message', (topic, payload) => {
        if (topic !== `${d.serial}/tasks/json`) return
        const tasks = JSON.parse(payload.toString('utf8')) as Array<{ uid: string }>
        dev.client.publish(`${d.serial}/acks/json`, JSON.stringify(tasks.map((t) => ({ uid: t.uid, status: 'OK' }))), { qos: 1 })
      })
      return dev
    }))
    const op = await started(postReboot(stack, { systems: { label: 'broker-reboot' } }))
    const done = await waitFinished(stack, op, 30_000)
    expect(count(done, 'SUCCESS')).toBe(3)
    for (const dev of online) expect(dev.got.flat().length).toBeGreaterThanOrEqual(1)
  })

  it('sends again a task left unanswered (a device that was away with a clean session), and the device then ends it', async () => {
    const [d] = await mqttDevices(stack, 1, 'broker-resend')
    if (d === undefined) throw new Error('no device')
    // A watcher of the device's tasks topic: the task is marked SENT before it is published, so the test goes on only
    // once the broker has passed the first publish on (a device subscribing before that would receive it too).
    await broker.dynsec([
      { command: 'createRole', rolename: 'resend-watcher', acls: [{ acltype: 'subscribePattern', topic: `${d.serial}/tasks/json`, allow: true }, { acltype: 'publishClientReceive', topic: `${d.serial}/tasks/json`, allow: true }] },
      { command: 'createClient', username: 'resend-watcher', password: 'resend-watcher-pw', roles: [{ rolename: 'resend-watcher' }] }
    ])
    const watcher = await tryConnect(broker.url, 'resend-watcher', 'resend-watcher-pw')
    if (typeof watcher === 'string') throw new Error(watcher)
    onTestFinished(async () => { await watcher.endAsync(true) })
    const watched: string[] = []
    watcher.on('message', (_topic, payload) => { watched.push(payload.toString('utf8')) })
    await watcher.subscribeAsync(`${d.serial}/tasks/json`, { qos: 1 })
    const op = await started(postReboot(stack, { systems: { label: 'broker-resend' } }))
    // Published while the device was away: lost for it.
    await eventually(async () => (await deviceTasksOfSystem(stack, d.uid)).find((t) => t.state === 'SENT'), 15_000, 'the task sent')
    await eventually(async () => watched.length === 1 ? true : undefined, 15_000, 'the first publish through the broker')
    const dev = await device(d)
    await dev.client.subscribeAsync(`${d.serial}/tasks/json`, { qos: 1 })
    dev.client.on('message', (_topic, payload) => {
      const tasks = JSON.parse(payload.toString('utf8')) as Array<{ uid: string }>
      dev.client.publish(`${d.serial}/acks/json`, JSON.stringify(tasks.map((t) => ({ uid: t.uid, status: 'OK' }))), { qos: 1 })
    })
    const resend = transportOf(stack, 'mqtt').jobs?.['mqtt.resend']
    if (resend === undefined) throw new Error('no resend job')
    await resend.run()
    expect(dev.got).toEqual([]) // sent a moment ago: not yet
    await stack.db.query('UPDATE device_tasks SET sent_at = sent_at - 120000 WHERE system_uid = $1', [d.uid])
    await resend.run()
    expect(count(await waitFinished(stack, op, 15_000), 'SUCCESS')).toBe(1)
    expect(dev.got.flat().length).toBe(1)
  })

  it('refuses and counts, without storing, what comes under a login the store does not know', async () => {
    const before = refusedCount(stack, 'MQTT:device.unknown')
    // A broker account the service does not manage, allowed to publish under a login no system has.
    await broker.dynsec([
      { command: 'createRole', rolename: 'stranger', acls: [{ acltype: 'publishClientSend', topic: 'NO-SUCH-SERIAL/#', allow: true }] },
      { command: 'createClient', username: 'stranger', password: 'stranger-pw', roles: [{ rolename: 'stranger' }] }
    ])
    const stranger = await tryConnect(broker.url, 'stranger', 'stranger-pw')
    if (typeof stranger === 'string') throw new Error(stranger)
    onTestFinished(async () => { await stranger.endAsync(true) })
    await stranger.publishAsync('NO-SUCH-SERIAL/messages/json', JSON.stringify({ x: 1 }), { qos: 1 })
    await eventually(async () => refusedCount(stack, 'MQTT:device.unknown') > before ? true : undefined, 15_000, 'the refusal counted')
  })

  it('keeps what arrives while no ingest process reads, and stores it once one reads again (persistent sessions)', async () => {
    const [d] = await mqttDevices(stack, 1, 'broker-offline')
    if (d === undefined) throw new Error('no device')
    // A second service process on the same store, of another node id, reading the same shares, then gone: the broker
    // keeps its sessions' messages, and the process that takes its node id back receives them.
    const other = await startStack({ env: { MQTT_URL: broker.adminUrl, FLEET_NODE_ID: 'ingest-test-b', WORKER_CONCURRENCY: '1' }, storeOf: stack })
    await other.close()
    const { client } = await device(d)
    for (let i = 0; i < 40; i++) expect(await publish(client, `${d.serial}/messages/json`, JSON.stringify({ 'sim.seq': i }))).toBe(0)
    const again = await startStack({ env: { MQTT_URL: broker.adminUrl, FLEET_NODE_ID: 'ingest-test-b', WORKER_CONCURRENCY: '1' }, storeOf: stack })
    onTestFinished(async () => { await again.close() })
    await eventually(async () => (await messagesOf(stack, d.uid)).length === 40 ? true : undefined, 20_000, 'all 40 messages stored')
  })

  it('needs the subscriptions granted: an account that may not read the device topics fails the start', async () => {
    await broker.dynsec([
      { command: 'createClient', username: 'no-rights', password: 'no-rights-pw' }
    ])
    const url = broker.url.replace('mqtt://', 'mqtt://no-rights:no-rights-pw@')
    await expect(startStack({ env: { MQTT_URL: url, MQTT_DYNSEC: 'false', FLEET_NODE_ID: 'ingest-test-c' }, storeOf: stack })).rejects.toThrow(/subscriptions/)
    // The topics the service reads, for the broker configuration of docs/cluster.md.
    expect(INGEST_TOPICS).toEqual(['$share/fleet-ingest/+/messages/json', '$share/fleet-ingest/+/acks/json'])
  })
})
