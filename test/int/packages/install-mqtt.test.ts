// Installs over MQTT and REST (docs/packages.md#installs, docs/protocols/mqtt.md#software-tasks): the device, an mqtt.js
// client or a REST poller, gets `swinstall {type, revision, url}`, downloads the package from its link with a plain
// GET (the bytes' SHA-256 the release's), and acks; OK ends the task SUCCESS with the system's applications holding the
// new revision in place of the old one, ERROR ends it FAILURE with the device's message and changes nothing. A device
// offline gets its task at its next connection; requestConnection sends the SMS shoulder tap first.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniq } from '../../helpers/factories.js'
import { connectDevice, deviceFetch, endAll, eventually, publish, subscribe } from '../../helpers/devices.js'
import { listenLocal, type Receiver } from '../../helpers/http-receiver.js'
import { allTasks, started, waitFinished, waitOperation, type Json } from '../../helpers/operations.js'
import { createSystem, validImei } from '../../helpers/systems.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { applicationsOf, download, postSoftware, releasedApplication, sha256, type Released } from './install-fixtures.js'

let stack: Stack
let gateway: Receiver
const taps: Json[] = []
const clients: MqttClient[] = []

beforeAll(async () => {
  gateway = await listenLocal((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => { taps.push(JSON.parse(body) as Json); res.writeHead(200).end() })
  })
  stack = await startStack({ listen: true, env: { SMS_GATEWAY_URL: `http://${gateway.origin}/sms` } })
}, 120_000)
afterAll(async () => {
  await endAll(...clients)
  await stack?.close()
  await gateway?.close()
})

interface Device { uid: string, serial: string, password: string, mobileNumber: string, old: Released, other: string }

let seq = Math.floor(Math.random() * 100_000) * 10

/**
 * A system carrying revision 1.0 of an MQTT_SW application (speaking `protocol`) and another application, with both
 * device passwords and a mobile number; answers it with revision 2.0 of the same type released.
 */
async function device (protocol: 'MQTT' | 'REST'): Promise<{ d: Device, next: Released }> {
  const n = ++seq
  const old = await releasedApplication(stack, { manager: 'MQTT_SW', protocols: [protocol], revision: '1.0' })
  const next = await releasedApplication(stack, { manager: 'MQTT_SW', protocols: [protocol], type: old.type, revision: '2.0' })
  // Two applications of a system may not speak the same protocol (docs/api.md#systems): the other speaks none.
  const other = await releasedApplication(stack, { manager: null, protocols: [], binaries: 0 })
  const serial = uniq('SN').toUpperCase()
  const password = uniq('pw')
  const mobileNumber = `+337${String(n).padStart(8, '0')}`
  const s = await createSystem(stack, {
    name: serial,
    gateway: { serialNumber: serial, imei: validImei(500_000 + n) },
    subscription: { identifier: `8934${String(n).padStart(12, '0')}`, operator: 'UNKNOWN', mobileNumber },
    communication: { mqtt: { password }, rest: { password } },
    applications: [{ uid: old.uid }, { uid: other.uid }]
  })
  return { d: { uid: s.uid, serial, password, mobileNumber, old, other: other.uid }, next }
}

/** Connected and subscribed to its tasks topic; `got` fills with every task list it receives. */
async function online (d: Device): Promise<{ client: MqttClient, got: Json[] }> {
  const client = await connectDevice(stack.mqttUrl, d.serial, d.password)
  clients.push(client)
  const got: Json[] = []
  client.on('message', (_topic, payload) => { got.push(...JSON.parse(payload.toString()) as Json[]) })
  expect(await subscribe(client, `${d.serial}/tasks/json`)).toEqual([1])
  return { client, got }
}

async function install (d: Device, app: Released, body: Json = {}): Promise<string> {
  return await started(postSoftware(stack, 'install', { application: app.uid, systems: { uids: [d.uid] }, scheduledTime: null, timeout: null, protocol: '', parameters: null, ...body }))
}

/** The one software task the device got, once it came. */
async function received (got: Json[], key = 'swinstall'): Promise<Json> {
  return await eventually(() => got.find((t) => t[key] !== undefined), 15_000, `a ${key} task`)
}

describe('over MQTT', { timeout: 90_000 }, () => {
  it('install: swinstall with a link whose bytes are the package\'s; OK puts 2.0 in place of 1.0', async () => {
    const { d, next } = await device('MQTT')
    const { client, got } = await online(d)
    const uid = await install(d, next)
    const task = await received(got)
    expect(task).toMatchObject({ swinstall: { type: next.type, revision: '2.0' } })
    expect(Object.keys(task.swinstall as Json).sort()).toEqual(['revision', 'type', 'url'])
    const url = (task.swinstall as Json).url as string
    expect(url).toMatch(/\/device\/packages\/[A-Za-z0-9_-]{43}$/)
    const got1 = await download(url)
    expect({ status: got1.status, sha256: sha256(got1.bytes) }).toEqual({ status: 200, sha256: next.sha256 })
    expect(await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))).toBe(0)
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(await applicationsOf(stack, d.uid)).toEqual([next.uid, d.other].sort())
    // The operation finished: its links are revoked with it.
    expect((await download(url)).status).toBe(404)
  })

  it('install: the device\'s ERROR ends the task FAILURE with its message; the applications stay', async () => {
    const { d, next } = await device('MQTT')
    const { client, got } = await online(d)
    const uid = await install(d, next)
    const task = await received(got)
    await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'ERROR', message: 'dpkg: dependency problems' }]))
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: 'dpkg: dependency problems' } }])
    expect(await applicationsOf(stack, d.uid)).toEqual([d.old.uid, d.other].sort())
  })

  it('uninstall, start and stop: swuninstall / swstart / swstop {type, revision}; an uninstall\'s OK removes it', async () => {
    const { d } = await device('MQTT')
    const { client, got } = await online(d)
    for (const [action, key] of [['stop', 'swstop'], ['start', 'swstart'], ['uninstall', 'swuninstall']] as const) {
      const uid = await started(postSoftware(stack, action, { application: d.old.uid, systems: { uids: [d.uid] } }))
      const task = await received(got, key)
      expect(task[key]).toEqual({ type: d.old.type, revision: '1.0' })
      await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))
      await waitFinished(stack, uid, 15_000)
      expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS' }])
      expect(await applicationsOf(stack, d.uid)).toEqual(action === 'uninstall' ? [d.other] : [d.old.uid, d.other].sort())
    }
  })

  it('an offline device gets its install at its next connection; requestConnection taps it by SMS first', async () => {
    const { d, next } = await device('MQTT')
    const uid = await install(d, next, { requestConnection: true })
    await waitOperation(stack, uid, (op) => op.counters.some((c) => c.state === 'IN_PROGRESS' && c.count === 1), 15_000, 'its task sent to the device')
    await eventually(() => taps.some((t) => t.to === d.mobileNumber && t.system === d.uid), 15_000, 'the SMS shoulder tap')
    const { client, got } = await online(d)
    const task = await received(got)
    await publish(client, `${d.serial}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))
    await waitFinished(stack, uid, 15_000)
    expect(await applicationsOf(stack, d.uid)).toEqual([next.uid, d.other].sort())
  })
})

/** The swinstall task a REST device finds polling GET /device/tasks. */
async function polled (d: Device): Promise<Json> {
  return await eventually(async () => {
    const res = await deviceFetch(stack, 'GET', '/device/tasks', { user: d.serial, password: d.password })
    return (res.body as Json[]).find((t) => t.swinstall !== undefined)
  }, 15_000, 'the swinstall task polled')
}

describe('over REST', { timeout: 90_000 }, () => {
  it('GET /device/tasks answers swinstall; POST /device/acks OK puts 2.0 in place of 1.0', async () => {
    const { d, next } = await device('REST')
    const uid = await install(d, next)
    const task = await polled(d)
    expect(task.swinstall).toMatchObject({ type: next.type, revision: '2.0' })
    const got = await download((task.swinstall as Json).url as string)
    expect(sha256(got.bytes)).toBe(next.sha256)
    const ack = await deviceFetch(stack, 'POST', '/device/acks', { user: d.serial, password: d.password, body: JSON.stringify([{ uid: task.uid, status: 'OK' }]) })
    expect(ack.status).toBeLessThan(300)
    await waitFinished(stack, uid, 15_000)
    expect(await applicationsOf(stack, d.uid)).toEqual([next.uid, d.other].sort())
  })

  it('the device\'s ERROR: FAILURE with its message', async () => {
    const { d, next } = await device('REST')
    const uid = await install(d, next)
    const task = await polled(d)
    await deviceFetch(stack, 'POST', '/device/acks', { user: d.serial, password: d.password, body: JSON.stringify([{ uid: task.uid, status: 'ERROR', message: 'no space left' }]) })
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { message: 'no space left' } }])
    expect(await applicationsOf(stack, d.uid)).toEqual([d.old.uid, d.other].sort())
  })
})
