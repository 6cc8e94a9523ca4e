// Retrieve data end to end (docs/operations.md#bulk-operations; docs/devices.md: "A retrieve succeeds when the
// device has acked it and sent the values read"): simulated MQTT and REST devices read their values, which are stored
// as a device message and shown by GET /systems/{uid}/data, and the operation finishes with the right counters; a
// device that fails its tasks ends its task FAILURE with its message; a device that acks before it sends the values
// (mqtt.js, fetch) keeps its task IN_PROGRESS until they arrive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERIC_SETTINGS } from '../../../../core/domain/generic-applications.js'
import { FAILURE_MESSAGE } from '../../../../simulator/devices/simulated-device.js'
import type { DeviceIdentity } from '../../../../simulator/devices/identity.js'
import { connectDevice, deviceFetch, endAll, eventually, publish, settle, subscribe } from '../../../helpers/devices.js'
import { allTasks, count, getOperation, started, waitFinished, waitOperation, type Json } from '../../../helpers/operations.js'
import { countersOf, NO_TASKS, serve, startSimulatedFleet, type SimulatedFleet } from './simulated-fleet.js'

let fleet: SimulatedFleet
beforeAll(async () => { fleet = await startSimulatedFleet() })
afterAll(async () => { await fleet?.close() })

const retrieve = async (body: Json): Promise<string> =>
  await started(fleet.stack.call(fleet.stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/data/retrieve', payload: body }))

describe.each(['mqtt', 'rest'] as const)('retrieve data from a simulated %s device', { timeout: 60_000 }, (protocol) => {
  it('reads the values: the task succeeds once acked and stored, GET /systems/{uid}/data shows them', async () => {
    const device = await fleet.device(protocol)
    const uid = await retrieve({ systems: { uids: [device.systemUid] }, data: [GENERIC_SETTINGS.reportPeriodS, '_RSSI'] })
    await serve(device, 'the retrieve to finish', async () => (await getOperation(fleet.stack, uid)).state === 'FINISHED')
    const op = await getOperation(fleet.stack, uid)
    expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 1 })
    expect(await allTasks(fleet.stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    await settle(fleet.stack)
    const data = await fleet.get(`/api/v1/systems/${device.systemUid}/data?ids=${GENERIC_SETTINGS.reportPeriodS},_RSSI`)
    expect(data[GENERIC_SETTINGS.reportPeriodS]).toMatchObject([{ value: 60 }])
    expect(typeof data._RSSI?.[0]?.value).toBe('number')
    // Stored as one device message of the device's protocol, like any other.
    const messages = await fleet.get(`/api/v1/systems/${device.systemUid}/messages`)
    expect(messages.messages.map((m: Json) => m.protocol)).toContain(protocol.toUpperCase())
  })

  it('a device answering ERROR ends its task FAILURE with its message; nothing is stored', async () => {
    const device = await fleet.device(protocol, { failsTasks: true })
    const uid = await retrieve({ systems: { uids: [device.systemUid] }, data: ['_RSSI'] })
    await serve(device, 'the retrieve to finish', async () => (await getOperation(fleet.stack, uid)).state === 'FINISHED')
    expect(countersOf(await getOperation(fleet.stack, uid))).toEqual({ ...NO_TASKS, FAILURE: 1 })
    expect(await allTasks(fleet.stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: FAILURE_MESSAGE } }])
    await settle(fleet.stack)
    expect(await fleet.get(`/api/v1/systems/${device.systemUid}/data?ids=_RSSI`)).toEqual({})
  })
})

describe('retrieve data from several systems', { timeout: 60_000 }, () => {
  it('the counters add up: two devices answer, one fails', async () => {
    const devices = [await fleet.device('mqtt'), await fleet.device('mqtt'), await fleet.device('mqtt', { failsTasks: true })]
    const uid = await retrieve({ systems: { uids: devices.map((d) => d.systemUid) }, data: [GENERIC_SETTINGS.apn] })
    const op = await waitFinished(fleet.stack, uid, 20_000)
    expect(op).toMatchObject({ state: 'FINISHED', total: 3 })
    expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 2, FAILURE: 1 })
    const tasks = await allTasks(fleet.stack, uid)
    expect(tasks.find((t) => t.system.uid === devices[2]?.systemUid)).toMatchObject({ state: 'FAILURE', error: { code: 'operation.device.error' } })
  })
})

/** The operation task's params as stored (acked: the device answered OK and the values are awaited). */
async function taskParams (operationUid: string): Promise<Json> {
  const { rows } = await fleet.stack.db.query<{ params: Json | string }>('SELECT params FROM operation_tasks WHERE operation_uid = $1', [operationUid])
  const p = rows[0]?.params
  return typeof p === 'string' ? JSON.parse(p) : p ?? {}
}

describe('a device that acks before it sends the values', { timeout: 60_000 }, () => {
  const ids = [GENERIC_SETTINGS.reportPeriodS, GENERIC_SETTINGS.gpsEnabled]

  /** Checks the wait: acked, still IN_PROGRESS; a message with only some of the ids changes nothing. */
  async function waiting (uid: string, sendPartial: () => Promise<void>): Promise<void> {
    await eventually(async () => (await taskParams(uid)).acked === true, 10_000, 'the ack to reach the operation')
    await sendPartial()
    await settle(fleet.stack)
    const op = await getOperation(fleet.stack, uid)
    expect(op.state).toBe('IN_PROGRESS')
    expect(countersOf(op)).toEqual({ ...NO_TASKS, IN_PROGRESS: 1 })
  }

  it('over MQTT (mqtt.js): IN_PROGRESS after the ack, SUCCESS when the values arrive', async () => {
    const { id, systemUid }: { id: DeviceIdentity, systemUid: string } = await fleet.register('mqtt')
    const client = await connectDevice(fleet.stack.mqttUrl, id.serialNumber, id.mqttPassword)
    try {
      const tasks: Json[] = []
      client.on('message', (topic, payload) => { if (topic.endsWith('/tasks/json')) tasks.push(...JSON.parse(payload.toString('utf8')) as Json[]) })
      expect(await subscribe(client, `${id.serialNumber}/tasks/json`)).toEqual([1])
      const uid = await retrieve({ systems: { uids: [systemUid] }, data: ids })
      const task = await eventually(async () => tasks[0], 10_000, 'the read task') as Json
      expect(task.read).toEqual(ids)
      expect(await publish(client, `${id.serialNumber}/acks/json`, JSON.stringify([{ uid: task.uid, status: 'OK' }]))).toBe(0)
      await waiting(uid, async () => {
        expect(await publish(client, `${id.serialNumber}/messages/json`, JSON.stringify({ [GENERIC_SETTINGS.reportPeriodS]: 120 }))).toBe(0)
      })
      expect(await publish(client, `${id.serialNumber}/messages/json`, JSON.stringify({ [GENERIC_SETTINGS.gpsEnabled]: false }))).toBe(0)
      const op = await waitOperation(fleet.stack, uid, (o) => o.state === 'FINISHED', 10_000, 'FINISHED once the values arrived')
      expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 1 })
      await settle(fleet.stack)
      const data = await fleet.get(`/api/v1/systems/${systemUid}/data?ids=${ids.join(',')}`)
      expect([data[ids[0] as string]?.[0]?.value, data[ids[1] as string]?.[0]?.value]).toEqual([120, false])
    } finally {
      await endAll(client)
    }
  })

  it('over REST (fetch): IN_PROGRESS after the ack, SUCCESS when the values arrive', async () => {
    const { id, systemUid } = await fleet.register('rest')
    const auth = { user: id.serialNumber, password: id.restPassword }
    const uid = await retrieve({ systems: { uids: [systemUid] }, data: ids })
    await waitOperation(fleet.stack, uid, (o) => count(o, 'IN_PROGRESS') === 1, 10_000, 'the task to start')
    const polled = await deviceFetch(fleet.stack, 'GET', '/device/tasks', auth)
    expect(polled.status).toBe(200)
    const [task] = polled.body as Json[]
    expect(task?.read).toEqual(ids)
    expect((await deviceFetch(fleet.stack, 'POST', '/device/acks', { ...auth, body: JSON.stringify([{ uid: task?.uid, status: 'OK' }]) })).status).toBe(200)
    await waiting(uid, async () => {
      expect((await deviceFetch(fleet.stack, 'POST', '/device/messages', { ...auth, body: JSON.stringify({ [GENERIC_SETTINGS.gpsEnabled]: true }) })).status).toBe(200)
    })
    expect((await deviceFetch(fleet.stack, 'POST', '/device/messages', { ...auth, body: JSON.stringify({ [GENERIC_SETTINGS.reportPeriodS]: 30 }) })).status).toBe(200)
    const op = await waitOperation(fleet.stack, uid, (o) => o.state === 'FINISHED', 10_000, 'FINISHED once the values arrived')
    expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 1 })
  })
})
