// Simulated devices carry out the tasks the service holds for them (docs/simulator.md;
// docs/devices.md): tasks written into the service's store reach an MQTT device (at its subscription,
// and again after its reboot) and a REST device (its polls), and their data and acks reach the store. A fleet's
// failing share acks ERROR; its SMS gateway receiver wakes the device whose number is tapped.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DeviceTask } from '../../../core/domain/device-task.js'
import { GENERIC_ACTIONS, GENERIC_APPLICATION_TYPES, GENERIC_SETTINGS } from '../../../core/domain/generic-applications.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { createDeviceModel } from '../../../simulator/devices/device-model.js'
import { deviceIdentity, newRunTag, type DeviceIdentity } from '../../../simulator/devices/identity.js'
import { createSimulatedDevice, FAILURE_MESSAGE, type SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { genericApplication, openTransport, startFleet, type FleetProtocol } from '../../../simulator/fleet.js'
import { connectApi, registerDevice, type ApiClient } from '../../../simulator/provision.js'
import { eventually } from '../../helpers/devices.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../helpers/stack.js'

type Json = Record<string, any>

let stack: Stack
let api: ApiClient
const run = newRunTag()
let n = 0
const closing: Array<() => Promise<void>> = []
const applications: Partial<Record<FleetProtocol, string>> = {}

beforeAll(async () => {
  stack = await startStack({ listen: true })
  api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  // The public generic applications are seeded by the service; where a store has none, the company gets its own of
  // the same type, which the simulator's lookup finds the same way.
  for (const protocol of ['mqtt', 'rest'] as const) {
    const type = GENERIC_APPLICATION_TYPES[protocol === 'mqtt' ? 'MQTT' : 'REST']
    if (await genericApplication(api, protocol) === undefined) {
      const res = await api.request('POST', '/api/v1/applications', { name: `Generic ${protocol} firmware`, revision: '1.0', type, category: 'FIRMWARE' })
      expect(res.status, JSON.stringify(res.json)).toBe(200)
    }
    applications[protocol] = await genericApplication(api, protocol)
    expect(applications[protocol]).toBeDefined()
  }
})
afterAll(async () => {
  for (const close of closing.reverse()) await close().catch(() => {})
  await stack?.close()
})

const get = async (url: string): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Waits until fn's expectations hold (no fixed sleeps), then runs it once more: a failure shows its diff. */
async function holds (fn: () => Promise<void>, ms = 10_000): Promise<void> {
  await eventually(async () => await fn().then(() => true, () => false), ms).catch(() => {})
  await fn()
}

type Body = { read: string[] } | { write: Array<Record<string, number | string | boolean>> } | { command: { id: string, params: Record<string, unknown> } }

/** Writes device tasks for the system into the service's store, oldest first, as the operations do. */
async function insertTasks (systemUid: string, protocol: 'MQTT' | 'REST', bodies: Body[]): Promise<string[]> {
  const now = Date.now()
  const tasks = bodies.map((body, i) => {
    const uid = randomBytes(16).toString('hex')
    return { uid, systemUid, operationUid: null, operationTaskUid: null, protocol, task: { uid, timestamp: now + i, ...body } as DeviceTask, createdAt: now + i }
  })
  await createRepositories(stack.db).deviceTasks.insert(tasks)
  return tasks.map((t) => t.uid)
}

async function tasksOf (systemUid: string): Promise<Record<string, { state: string, message: string | null }>> {
  const { rows } = await stack.db.query<{ uid: string, state: string, message: string | null }>('SELECT uid, state, message FROM device_tasks WHERE system_uid = $1', [systemUid])
  return Object.fromEntries(rows.map((r) => [r.uid, { state: r.state, message: r.message }]))
}

/** The values of one data id the service stored for the system, oldest first. */
async function history (systemUid: string, dataId: string): Promise<unknown[]> {
  const raw = await get(`/api/v1/systems/data/raw?targetIds=${systemUid}&dataIds=${dataId}&from=0&to=${Date.now() + 60_000}`)
  return ((raw[systemUid]?.[dataId] ?? []) as Array<{ ts: number, v: unknown }>).sort((a, b) => a.ts - b.ts).map((p) => p.v)
}

const command = (id: string): Body => ({ command: { id, params: {} } })

/** A device registered like the fleet's (generic application, mobile number), connected only once its tasks wait. */
async function registered (protocol: FleetProtocol): Promise<{ id: DeviceIdentity, systemUid: string }> {
  const id = deviceIdentity(run, ++n)
  const systemUid = await registerDevice(api, id, { labels: [`sim-${run}`], applicationUid: applications[protocol] })
  return { id, systemUid }
}

async function connect (protocol: FleetProtocol, id: DeviceIdentity, systemUid: string, opts: { failsTasks?: boolean } = {}): Promise<SimulatedDevice> {
  const transport = await openTransport(id, { protocol, mqttUrl: stack.mqttUrl }, stack.httpUrl)
  const device = createSimulatedDevice({ identity: id, systemUid, transport, model: createDeviceModel(), rebootMs: 200, failsTasks: opts.failsTasks ?? false })
  closing.push(async () => { await device.close() })
  return device
}

describe.each([['mqtt' as const, 'MQTT' as const], ['rest' as const, 'REST' as const]])('a simulated %s device', { timeout: 30_000 }, (protocol, wire) => {
  it('is registered with the generic firmware application of its protocol and its SIM\'s mobile number', async () => {
    const { id, systemUid } = await registered(protocol)
    const system = await get(`/api/v1/systems/${systemUid}`)
    expect(system.subscription.mobileNumber).toBe(id.mobileNumber)
    expect(system.applications.map((a: Json) => a.uid)).toEqual([applications[protocol]])
  })

  it('reads, writes (refusing an unknown setting), reboots, reads again, resets and connects; data and acks reach the store', async () => {
    const { id, systemUid } = await registered(protocol)
    const [read1, write, refused, reboot, read2, reset, read3, connect1, unknown] = await insertTasks(systemUid, wire, [
      { read: [GENERIC_SETTINGS.reportPeriodS, '_RSSI'] },
      { write: [{ [GENERIC_SETTINGS.reportPeriodS]: 300 }, { [GENERIC_SETTINGS.apn]: 'iot.m2m' }] },
      { write: [{ 'no.such.setting': 1 }] },
      command(GENERIC_ACTIONS.reboot),
      { read: [GENERIC_SETTINGS.reportPeriodS, '_NUMBER_OF_RESETS'] },
      command(GENERIC_ACTIONS.reset),
      { read: [GENERIC_SETTINGS.reportPeriodS] },
      command(GENERIC_ACTIONS.connect),
      command('system.selfDestruct')
    ]) as [string, string, string, string, string, string, string, string, string]

    // MQTT: the service sends the open tasks when the device subscribes (and again after the reboot's reconnection,
    // when the reboot is still unanswered: the device acks it once more without rebooting again). REST: one poll.
    const device = await connect(protocol, id, systemUid)
    await device.poll()
    await holds(async () => {
      expect(await tasksOf(systemUid)).toEqual({
        [read1]: { state: 'OK', message: null },
        [write]: { state: 'OK', message: null },
        [refused]: { state: 'ERROR', message: 'unknown setting no.such.setting' },
        [reboot]: { state: 'OK', message: null },
        [read2]: { state: 'OK', message: null },
        [reset]: { state: 'OK', message: null },
        [read3]: { state: 'OK', message: null },
        [connect1]: { state: 'OK', message: null },
        [unknown]: { state: 'ERROR', message: 'unknown command system.selfDestruct' }
      })
    })
    await device.idle()
    expect(device.model.numberOfResets).toBe(1) // rebooted once, however often the reboot task was delivered

    // Every ack came over the device's protocol; the reboot's perhaps twice (redelivered at the resubscription).
    const acks = await stack.db.query<{ task_uid: string, status: string, protocol: string }>(
      'SELECT task_uid, status, protocol FROM device_acks WHERE system_uid = $1 ORDER BY id', [systemUid])
    expect(new Set(acks.rows.map((a) => a.protocol))).toEqual(new Set([wire]))
    expect([...new Set(acks.rows.map((a) => a.task_uid))]).toEqual([read1, write, refused, reboot, read2, reset, read3, connect1, unknown])

    // Reads answered with the values of the moment: factory, written (kept through the reboot), factory after the reset.
    expect(await history(systemUid, GENERIC_SETTINGS.reportPeriodS)).toEqual([60, 300, 60])
    expect(await history(systemUid, '_NUMBER_OF_RESETS')).toEqual([1, 1]) // reported on the way back, then read
    expect((await history(systemUid, '_RSSI'))).toHaveLength(1)
    await holds(async () => { expect((await get(`/api/v1/systems/${systemUid}`)).data.numberOfResets).toBe(1) })

    // The next data message carries the configuration after the reboot (the reset brought the APN back).
    const next = await device.publish()
    expect(next.find((p) => p.dataId === GENERIC_SETTINGS.apn)?.value).toBe('internet')
    await holds(async () => { expect(await history(systemUid, GENERIC_SETTINGS.apn)).toEqual(['internet']) })
  })

  it('a device of the failing share acks its tasks ERROR with why', async () => {
    const { id, systemUid } = await registered(protocol)
    const [read, reboot] = await insertTasks(systemUid, wire, [{ read: ['_RSSI'] }, command(GENERIC_ACTIONS.reboot)]) as [string, string]
    const device = await connect(protocol, id, systemUid, { failsTasks: true })
    await device.poll()
    await holds(async () => {
      expect(await tasksOf(systemUid)).toEqual({ [read]: { state: 'ERROR', message: FAILURE_MESSAGE }, [reboot]: { state: 'ERROR', message: FAILURE_MESSAGE } })
    })
    expect(device.model.numberOfResets).toBe(0)
    expect(await history(systemUid, '_RSSI')).toEqual([])
  })
})

describe('a fleet of REST devices that poll rarely', { timeout: 30_000 }, () => {
  it('the SMS gateway receiver wakes the device whose number is tapped, which polls and answers its task at once', async () => {
    const fleet = startFleet({
      api: { url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      devices: 2,
      protocol: 'rest',
      rate: 0.001, // one message, then quiet
      taskPollMs: 600_000,
      failureRate: 0.5, // device 1 of 2
      smsGatewayPort: 0,
      smsGatewayHost: '127.0.0.1'
    })
    closing.push(async () => { await fleet.stop() })
    await fleet.ready
    const url = fleet.smsGatewayUrl
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sms$/)
    const [first, second] = [...fleet.devices].sort((a, b) => a.identity.serialNumber.localeCompare(b.identity.serialNumber)) as [SimulatedDevice, SimulatedDevice]
    expect([first.failsTasks, second.failsTasks]).toEqual([true, false])
    expect((await get(`/api/v1/systems/${second.systemUid}`)).applications.map((a: Json) => a.uid)).toEqual([applications.rest])

    const [read] = await insertTasks(second.systemUid, 'REST', [{ read: [GENERIC_SETTINGS.serverUrl] }]) as [string]
    const [failed] = await insertTasks(first.systemUid, 'REST', [command(GENERIC_ACTIONS.connect)]) as [string]
    const tap = async (to: string): Promise<Response> => await fetch(url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to, text: 'connect', system: 'whatever' })
    })
    expect((await tap(second.identity.mobileNumber)).status).toBe(200)
    await holds(async () => { expect((await tasksOf(second.systemUid))[read]).toEqual({ state: 'OK', message: null }) })
    expect(await history(second.systemUid, GENERIC_SETTINGS.serverUrl)).toContain('https://fleet.local')
    expect([first.wakes, second.wakes]).toEqual([0, 1])
    expect((await tasksOf(first.systemUid))[failed]?.state).toMatch(/PENDING|SENT/) // not woken: still waiting

    expect((await tap(first.identity.mobileNumber)).status).toBe(200)
    await holds(async () => { expect((await tasksOf(first.systemUid))[failed]).toEqual({ state: 'ERROR', message: FAILURE_MESSAGE }) })
    await holds(async () => { expect(fleet.stats()).toMatchObject({ wakes: 2, tasksAnswered: 2, tasksFailed: 1 }) })

    // Not a number of this fleet, not a gateway request: refused, nothing woken.
    expect((await tap('+10000000000')).status).toBe(404)
    expect((await fetch(url ?? '', { method: 'POST', body: 'hello' })).status).toBe(400)
    expect((await fetch(url ?? '')).status).toBe(405)
    expect(fleet.stats().wakes).toBe(2)
    await fleet.stop()
  })
})
