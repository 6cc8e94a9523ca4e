// Reboot, reset and wake-up end to end (docs/operations.md#bulk-operations;
// docs/devices.md, docs/operations.md#bulk-operations): the service on real ports, simulated devices over MQTT and over
// REST (simulator/devices) and raw mqtt.js clients where a test needs a device that answers late or never. A reboot
// ends SUCCESS with the device's restart counted; a reset brings the device's settings back to factory; a wake-up of a
// REST device that polls rarely reaches it by the SMS gateway; an ERROR ack fails the task with the device's message;
// several RESET actions run one after the other; cancel and timeout end what is open.
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERIC_SETTINGS } from '../../../../core/domain/generic-applications.js'
import { createDeviceModel } from '../../../../simulator/devices/device-model.js'
import { deviceIdentity, newRunTag } from '../../../../simulator/devices/identity.js'
import { createSimulatedDevice, FAILURE_MESSAGE, type SimulatedDevice } from '../../../../simulator/devices/simulated-device.js'
import { genericApplication, openTransport, type FleetProtocol } from '../../../../simulator/fleet.js'
import { connectApi, registerDevice, type ApiClient } from '../../../../simulator/provision.js'
import { startSmsReceiver, type SmsReceiver } from '../../../../simulator/sms-receiver.js'
import { connectDevice, endAll, eventually, publish, subscribe } from '../../../helpers/devices.js'
import { allTasks, count, getOperation, started, until, waitFinished, waitOperation, type OperationJson } from '../../../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../../helpers/stack.js'
import { actionSystem, actionTree, deviceTasksOf, newApplication, postAction, type ActionKind } from './reboot-fixtures.js'

type Json = Record<string, any>

let stack: Stack
let api: ApiClient
let sms: SmsReceiver
const run = newRunTag()
let n = 0
const byNumber = new Map<string, SimulatedDevice>()
const taps: string[] = []
const closing: Array<() => Promise<void>> = []
const applications: Partial<Record<FleetProtocol, string>> = {}

beforeAll(async () => {
  // The SMS gateway first: the service is told its URL (SMS_GATEWAY_URL) when it starts.
  sms = await startSmsReceiver({
    port: 0,
    host: '127.0.0.1',
    wake: (to) => {
      taps.push(to)
      const device = byNumber.get(to)
      if (device === undefined) return false
      device.wake().catch(() => {})
      return true
    }
  })
  stack = await startStack({ listen: true, env: { SMS_GATEWAY_URL: sms.url } })
  api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  for (const protocol of ['mqtt', 'rest'] as const) {
    applications[protocol] = await genericApplication(api, protocol)
    expect(applications[protocol], `the seeded generic ${protocol} firmware`).toBeDefined()
  }
}, 120_000)
afterAll(async () => {
  for (const close of closing.reverse()) await close().catch(() => {})
  await stack?.close()
  await sms?.close()
})

/** A simulated device registered with the generic firmware of its protocol (and a mobile number), connected. */
async function simulated (protocol: FleetProtocol, opts: { failsTasks?: boolean } = {}): Promise<SimulatedDevice> {
  const id = deviceIdentity(run, ++n)
  const systemUid = await registerDevice(api, id, { labels: [`sim-${run}`], applicationUid: applications[protocol] })
  const transport = await openTransport(id, { protocol, mqttUrl: stack.mqttUrl }, stack.httpUrl)
  const device = createSimulatedDevice({ identity: id, systemUid, transport, model: createDeviceModel(), rebootMs: 200, failsTasks: opts.failsTasks ?? false })
  byNumber.set(id.mobileNumber, device)
  closing.push(async () => { await device.close() })
  return device
}

/**
 * Runs an operation on the device to its end: an MQTT device gets its task pushed; a REST device polls (every 100 ms,
 * as a device polling often would) until the operation is FINISHED.
 */
async function runOn (device: SimulatedDevice, kind: ActionKind, body: Json = {}): Promise<OperationJson> {
  const uid = await started(postAction(stack, kind, { systems: { uids: [device.systemUid] }, ...body }))
  try {
    if (device.transport.protocol !== 'REST') return await waitFinished(stack, uid, 20_000)
    return await eventually(async () => {
      await device.poll().catch(() => {})
      const op = await getOperation(stack, uid)
      return op.state === 'FINISHED' ? op : undefined
    }, { timeoutMs: 20_000, intervalMs: 100, what: `operation ${uid} finished, the device polling` })
  } finally {
    await device.idle()
  }
}

const setting = (device: SimulatedDevice, id: string): unknown => device.model.read([id], Date.now())[0]?.value

describe.each(['mqtt', 'rest'] as const)('simulated %s devices', { timeout: 60_000 }, (protocol) => {
  it('reboot: the device restarts once and acknowledges; the task ends SUCCESS and numberOfResets follows', async () => {
    const device = await simulated(protocol)
    const op = await runOn(device, 'reboot')
    expect({ success: count(op, 'SUCCESS'), failure: count(op, 'FAILURE'), total: op.total }).toEqual({ success: 1, failure: 0, total: 1 })
    expect(device.model.numberOfResets).toBe(1)
    const [task] = await deviceTasksOf(stack, op.uid)
    expect(task).toMatchObject({ state: 'OK', protocol: protocol.toUpperCase(), body: { command: { id: 'system.reboot' } } })
    // The restart count the device reported on its way back reaches the system's data.
    await eventually(async () => {
      const s = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${device.systemUid}` })).json()
      return s.data?.numberOfResets === 1
    }, 10_000, 'numberOfResets 1 in the system data')
  })

  it('reset: the device\'s settings are back to their factory values; the task ends SUCCESS', async () => {
    const device = await simulated(protocol)
    expect(device.model.write([{ [GENERIC_SETTINGS.apn]: 'iot.m2m' }, { [GENERIC_SETTINGS.reportPeriodS]: 300 }])).toBeUndefined()
    expect(setting(device, GENERIC_SETTINGS.apn)).toBe('iot.m2m')
    const op = await runOn(device, 'reset')
    expect(count(op, 'SUCCESS')).toBe(1)
    expect(setting(device, GENERIC_SETTINGS.apn)).toBe('internet')
    expect(setting(device, GENERIC_SETTINGS.reportPeriodS)).toBe(60)
    expect(device.model.numberOfResets).toBe(0)
  })

  it('a device that acks ERROR: the task ends FAILURE with the device\'s message', async () => {
    const device = await simulated(protocol, { failsTasks: true })
    const op = await runOn(device, 'reboot')
    expect(count(op, 'FAILURE')).toBe(1)
    expect(await allTasks(stack, op.uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: FAILURE_MESSAGE } }])
    expect(device.model.numberOfResets).toBe(0)
  })
})

describe('wake-up', { timeout: 60_000 }, () => {
  it('a REST device that polls rarely: the service POSTs to SMS_GATEWAY_URL, the device polls and acks, SUCCESS', async () => {
    const device = await simulated('rest') // it never polls by itself here: only the shoulder tap makes it
    const before = device.wakes
    const uid = await started(postAction(stack, 'wakeup', { systems: { uids: [device.systemUid] } }))
    const op = await waitFinished(stack, uid, 20_000)
    await device.idle()
    expect(count(op, 'SUCCESS')).toBe(1)
    expect(device.wakes).toBeGreaterThan(before)
    expect(taps).toContain(device.identity.mobileNumber)
    expect(await deviceTasksOf(stack, uid)).toMatchObject([{ state: 'OK', protocol: 'REST', body: { command: { id: 'system.connect' } } }])
  })

  it('reboot with requestConnection taps a REST device that is not polling; without it, nobody is tapped', async () => {
    const tapped = await simulated('rest')
    const op = await waitFinished(stack, await started(postAction(stack, 'reboot', { systems: { uids: [tapped.systemUid] }, requestConnection: true })), 20_000)
    await tapped.idle()
    expect({ success: count(op, 'SUCCESS'), resets: tapped.model.numberOfResets, tapped: taps.includes(tapped.identity.mobileNumber) }).toEqual({ success: 1, resets: 1, tapped: true })

    const quiet = await simulated('rest')
    const uid = await started(postAction(stack, 'reboot', { systems: { uids: [quiet.systemUid] } }))
    await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 1)
    expect(await deviceTasksOf(stack, uid)).toMatchObject([{ state: 'PENDING' }]) // waiting for the device's next poll
    expect(taps).not.toContain(quiet.identity.mobileNumber)
    expect((await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })).statusCode).toBe(200)
  })

  it('an MQTT device connected already gets the task at once, with no shoulder tap', async () => {
    const device = await simulated('mqtt')
    const op = await runOn(device, 'wakeup')
    expect(count(op, 'SUCCESS')).toBe(1)
    expect(taps).not.toContain(device.identity.mobileNumber)
  })
})

/** A raw MQTT device of a system: every task it receives is kept; it answers only when told. */
async function rawDevice (serial: string, password: string): Promise<{ client: MqttClient, tasks: Json[], ack: (uid: string, status: 'OK' | 'ERROR', message?: string) => Promise<void> }> {
  const client = await connectDevice(stack.mqttUrl, serial, password)
  closing.push(async () => { await endAll(client) })
  const tasks: Json[] = []
  client.on('message', (topic, payload) => { if (topic === `${serial}/tasks/json`) tasks.push(...(JSON.parse(payload.toString()) as Json[])) })
  expect(await subscribe(client, `${serial}/tasks/json`)).toEqual([1])
  return {
    client,
    tasks,
    async ack (uid, status, message) {
      expect(await publish(client, `${serial}/acks/json`, JSON.stringify([{ uid, status, message: message ?? null }]))).toBe(0)
    }
  }
}

describe('device tasks in turn, cancel and timeout (raw MQTT devices)', { timeout: 60_000 }, () => {
  it('reset without action sends every RESET action of the system one after the other; SUCCESS once all are acked OK', async () => {
    // Two applications may not share a protocol: the software one speaks none, its actions go over MQTT too.
    const firmware = await newApplication(stack, { data: actionTree([['factory', 'RESET']]) })
    const software = await newApplication(stack, { category: 'SOFTWARE', protocols: [], data: actionTree([['appReset', 'RESET'], ['factory', 'RESET']]) })
    const s = await actionSystem(stack, [firmware, software])
    const d = await rawDevice(s.serial, s.mqttPassword)
    const uid = await started(postAction(stack, 'reset', { systems: { uids: [s.uid] } }))
    await until('the first reset', () => d.tasks.length === 1)
    expect(d.tasks[0]).toMatchObject({ command: { params: {} } })
    await d.ack(d.tasks[0]?.uid, 'OK')
    await until('the second reset', () => d.tasks.length === 2)
    expect(d.tasks[1]?.uid).not.toBe(d.tasks[0]?.uid)
    // One reset acknowledged, one on its way: the task is still running.
    expect(count(await getOperation(stack, uid), 'IN_PROGRESS')).toBe(1)
    await d.ack(d.tasks[1]?.uid, 'OK')
    const op = await waitFinished(stack, uid)
    expect(count(op, 'SUCCESS')).toBe(1)
    // Each RESET action once: the same id on two applications is one command.
    expect(d.tasks.map((t) => t.command.id).sort()).toEqual(['sys.appReset', 'sys.factory'])
    expect((await deviceTasksOf(stack, uid)).map((t) => t.state)).toEqual(['OK', 'OK'])
  })

  it('an ERROR on a later reset fails the task with that message, and nothing more is sent', async () => {
    const app = await newApplication(stack, { data: actionTree([['one', 'RESET'], ['two', 'RESET'], ['three', 'RESET']]) })
    const s = await actionSystem(stack, [app])
    const d = await rawDevice(s.serial, s.mqttPassword)
    const uid = await started(postAction(stack, 'reset', { systems: { uids: [s.uid] } }))
    await until('the first reset', () => d.tasks.length === 1)
    await d.ack(d.tasks[0]?.uid, 'OK')
    await until('the second reset', () => d.tasks.length === 2)
    await d.ack(d.tasks[1]?.uid, 'ERROR', 'flash locked')
    const op = await waitFinished(stack, uid)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: 'flash locked' } }])
    expect(count(op, 'FAILURE')).toBe(1)
    expect(await deviceTasksOf(stack, uid)).toHaveLength(2)
  })

  it('cancel during a reboot: the undelivered task CANCELLED at once, the delivered one BEING_CANCELLED until its device answers', async () => {
    const app = await newApplication(stack, { data: actionTree([['reboot', 'REBOOT']]) })
    const online = await actionSystem(stack, [app])
    const offline = await actionSystem(stack, [app])
    const d = await rawDevice(online.serial, online.mqttPassword)
    const uid = await started(postAction(stack, 'reboot', { systems: { uids: [online.uid, offline.uid] } }))
    await until('the reboot delivered', () => d.tasks.length === 1)
    await waitOperation(stack, uid, (o) => count(o, 'IN_PROGRESS') === 2)
    const res = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })
    expect(res.statusCode).toBe(200)
    const op = await waitOperation(stack, uid, (o) => count(o, 'CANCELLED') === 1)
    expect({ state: op.state, cancelled: count(op, 'CANCELLED'), beingCancelled: count(op, 'BEING_CANCELLED') }).toEqual({ state: 'IN_PROGRESS', cancelled: 1, beingCancelled: 1 })
    const tasks = await allTasks(stack, uid)
    expect(tasks.find((t) => t.system.uid === offline.uid)?.state).toBe('CANCELLED')
    expect(tasks.find((t) => t.system.uid === online.uid)?.state).toBe('BEING_CANCELLED')
    const dts = await deviceTasksOf(stack, uid)
    expect(dts.find((t) => t.systemUid === offline.uid)?.state).toBe('CANCELLED')
    expect(dts.find((t) => t.systemUid === online.uid)?.state).toBe('SENT')
    // The device rebooted anyway: what it answers ends its task.
    await d.ack(d.tasks[0]?.uid, 'OK')
    const end = await waitFinished(stack, uid)
    expect({ success: count(end, 'SUCCESS'), cancelled: count(end, 'CANCELLED'), beingCancelled: count(end, 'BEING_CANCELLED') }).toEqual({ success: 1, cancelled: 1, beingCancelled: 0 })
  })

  it('timeout: a task still open at timeoutDate ends FAILURE operation.timeout and its device task is withdrawn', async () => {
    const app = await newApplication(stack, { data: actionTree([['reboot', 'REBOOT']]) })
    const silent = await actionSystem(stack, [app])
    const offline = await actionSystem(stack, [app])
    const d = await rawDevice(silent.serial, silent.mqttPassword)
    const uid = await started(postAction(stack, 'reboot', { systems: { uids: [silent.uid, offline.uid] }, timeout: Date.now() + 1500 }))
    await until('the reboot delivered', () => d.tasks.length === 1)
    const op = await waitFinished(stack, uid, 30_000) // the timeout sweeper runs every few seconds
    expect(count(op, 'FAILURE')).toBe(2)
    for (const t of await allTasks(stack, uid)) expect(t.error?.code).toBe('operation.timeout')
    expect((await deviceTasksOf(stack, uid)).map((t) => t.state)).toEqual(['CANCELLED', 'CANCELLED'])
    // A late answer changes nothing.
    await d.ack(d.tasks[0]?.uid, 'OK')
    expect(count(await waitFinished(stack, uid), 'FAILURE')).toBe(2)
  })
})
