// M3DA end to end: simulated M3DA agents register through the API the way the simulator
// does (their system's M3DA secret, the application of their security), talk to the service over TCP (M3DA_PORT)
// and over HTTP (POST /device/com), one with its password (hmac-sha1 + aes-cbc-128), one auto-registering with a
// registration password (hmac-md5 + aes-ctr-256); what they send is read back through the API, and a reboot, a
// settings write, a retrieve and a reset created through the REST API reach them in reply envelopes and finish
// SUCCESS on their Responses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERIC_SETTINGS } from '../../core/domain/generic-applications.js'
import type { Point } from '../../protocols/airvantage/index.js'
import { deviceIdentity, newRunTag } from '../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { addDevice, fleetApplication, type LinkOptions } from '../../simulator/fleet.js'
import { connectApi, type ApiClient } from '../../simulator/provision.js'
import type { M3daSecurity } from '../../simulator/transports/m3da-options.js'
import { getOperation, started, until, type OperationJson } from '../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../helpers/stack.js'

type Json = Record<string, any>

let stack: Stack
let api: ApiClient
const run = newRunTag()
let n = 0
const devices: SimulatedDevice[] = []

beforeAll(async () => {
  stack = await startStack({ listen: true })
  api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
})
afterAll(async () => {
  for (const d of devices) await d.close().catch(() => {})
  await stack?.close()
})

const get = async (url: string): Promise<Json> => {
  const res = await stack.call(stack.adminToken, { method: 'GET', url })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The values of one data id the service stored for the system, oldest first. */
async function history (systemUid: string, dataId: string): Promise<unknown[]> {
  const raw = await get(`/api/v1/systems/data/raw?targetIds=${systemUid}&dataIds=${dataId}&from=0&to=${Date.now() + 60_000}`)
  return ((raw[systemUid]?.[dataId] ?? []) as Array<{ ts: number, v: unknown }>).sort((a, b) => a.ts - b.ts).map((p) => p.v)
}

const value = (points: readonly Point[], id: string): unknown => points.find((p) => p.dataId === id)?.value
const countersOf = (op: OperationJson): Record<string, number> => Object.fromEntries(op.counters.filter((c) => c.count > 0).map((c) => [c.state, c.count]))

/**
 * M3DA is device-initiated (docs/protocols/m3da.md): until the operation ends, the device reports again and again (as
 * one with a short report period would) and carries out what each reply brings.
 */
async function serve (device: SimulatedDevice, operation: string): Promise<OperationJson> {
  await until(`operation ${operation} FINISHED`, async () => {
    await device.publish()
    await device.idle()
    return (await getOperation(stack, operation)).state === 'FINISHED'
  }, 30_000)
  return await getOperation(stack, operation)
}

const cases: Array<[string, 'tcp' | 'http', M3daSecurity]> = [
  ['TCP, password, hmac-sha1 + aes-cbc-128', 'tcp', { mode: 'password', mac: 'hmac-sha1', cipher: 'aes-cbc-128' }],
  ['HTTP, auto-registration, hmac-md5 + aes-ctr-256', 'http', { mode: 'autoreg', mac: 'hmac-md5', cipher: 'aes-ctr-256' }]
]

describe.each(cases)('a simulated M3DA device over %s', { timeout: 90_000 }, (_name, kind, security) => {
  it('sends data that the API reads back, and carries out a reboot, a settings write, a retrieve and a reset created through the REST API', async () => {
    const link: LinkOptions = {
      protocol: 'm3da',
      m3daUrl: kind === 'tcp' ? `tcp://127.0.0.1:${stack.ports.m3da ?? 0}` : `${stack.httpUrl}/device/com`,
      m3daSecurity: security
    }
    const id = deviceIdentity(run, ++n)
    const device = await addDevice(api, id, link, { labels: [`sim-${run}`], applicationUid: await fleetApplication(api, link), rebootMs: 200 })
    devices.push(device)
    const uid = device.systemUid
    expect(device.transport.protocol).toBe('M3DA')

    if (security.mode === 'autoreg') {
      // The service generated the password and keeps it as the system's M3DA password (§2.8.6).
      const { rows } = await stack.db.query<{ communication: Json }>('SELECT communication FROM systems WHERE uid = $1', [uid])
      const m3da = rows[0]?.communication.m3da as Json
      expect(typeof m3da.password).toBe('string')
      expect(m3da.password).not.toBe(id.m3daPassword)
    }

    // Data: one device message of protocol M3DA with every point, the values readable as data and as System data.
    const sent = await device.publish()
    const messages = (await get(`/api/v1/systems/${uid}/messages?size=10`)).messages as Json[]
    expect(messages[0]).toMatchObject({ protocol: 'M3DA', nbDataPoints: sent.length })
    expect(await history(uid, 'machine.temperature')).toEqual([value(sent, 'machine.temperature')])
    expect(await history(uid, '_RSSI')).toEqual([value(sent, '_RSSI')])
    expect(await history(uid, GENERIC_SETTINGS.apn)).toEqual(['internet'])
    // System data follows in coalesced batches after the commit (docs/architecture.md#how-data-flows): polled for.
    await until('System data from the @sys values', async () => (await get(`/api/v1/systems/${uid}`)).data.rssi === value(sent, '_RSSI'), 10_000)
    expect((await get(`/api/v1/systems/${uid}`)).data).toMatchObject({ latitude: value(sent, '_LATITUDE'), signalBars: value(sent, '_SIGNAL_BARS') })

    // A reboot: the device is off for a moment, counts one more restart, reports it, and answers status 0.
    const reboot = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [uid] } } }))
    expect(countersOf(await serve(device, reboot))).toEqual({ SUCCESS: 1 })
    expect(device.model.numberOfResets).toBe(1)
    expect(await history(uid, '_NUMBER_OF_RESETS')).toEqual([0, 1])

    // A settings write: kept by the device and visible in its next data.
    const write = await started(stack.call(stack.adminToken, {
      method: 'POST',
      url: '/api/v1/operations/systems/settings',
      payload: { systems: { uids: [uid] }, settings: [{ key: GENERIC_SETTINGS.apn, value: 'iot.m3da' }, { key: GENERIC_SETTINGS.reportPeriodS, value: 300 }], reboot: false }
    }))
    expect(countersOf(await serve(device, write))).toEqual({ SUCCESS: 1 })
    expect(device.model.read([GENERIC_SETTINGS.apn, GENERIC_SETTINGS.reportPeriodS], Date.now()).map((p) => p.value)).toEqual(['iot.m3da', 300])
    await device.publish()
    expect((await history(uid, GENERIC_SETTINGS.apn)).at(-1)).toBe('iot.m3da')
    expect((await history(uid, GENERIC_SETTINGS.reportPeriodS)).at(-1)).toBe(300)
    expect(device.model.numberOfResets).toBe(1)

    // A retrieve: ReadNode of the tree paths, the values sent back as Messages, then the Response.
    const retrieve = await started(stack.call(stack.adminToken, {
      method: 'POST',
      url: '/api/v1/operations/systems/data/retrieve',
      payload: { systems: { uids: [uid] }, data: [GENERIC_SETTINGS.apn, '_NUMBER_OF_RESETS'] }
    }))
    expect(countersOf(await serve(device, retrieve))).toEqual({ SUCCESS: 1 })
    expect((await history(uid, GENERIC_SETTINGS.apn)).at(-1)).toBe('iot.m3da')

    // A reset to factory defaults: the settings come back to their factory values, reported in the next data.
    const reset = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reset', payload: { systems: { uids: [uid] } } }))
    expect(countersOf(await serve(device, reset))).toEqual({ SUCCESS: 1 })
    expect(device.model.read([GENERIC_SETTINGS.apn], Date.now())[0]?.value).toBe('internet')
    await device.publish()
    expect((await history(uid, GENERIC_SETTINGS.apn)).at(-1)).toBe('internet')

    // The device tasks went out over M3DA and were answered by Responses.
    const { rows: tasks } = await stack.db.query<{ protocol: string, state: string }>('SELECT protocol, state FROM device_tasks WHERE system_uid = $1', [uid])
    expect(tasks.length).toBeGreaterThanOrEqual(4)
    expect(tasks.every((t) => t.protocol === 'M3DA' && t.state === 'OK')).toBe(true)
  })
})

describe('a simulated M3DA device with nothing to send', { timeout: 90_000 }, () => {
  it('asks for what is queued with an envelope without payload, and a wake-up reaches it (TCP, hmac-sha1)', async () => {
    const link: LinkOptions = { protocol: 'm3da', m3daUrl: `tcp://127.0.0.1:${stack.ports.m3da ?? 0}`, m3daSecurity: { mode: 'password', mac: 'hmac-sha1', cipher: 'none' } }
    const device = await addDevice(api, deviceIdentity(run, ++n), link, { labels: [`sim-${run}`], applicationUid: await fleetApplication(api, link) })
    devices.push(device)
    const wakeup = await started(stack.call(stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/wakeup', payload: { systems: { uids: [device.systemUid] } } }))
    await until(`operation ${wakeup} FINISHED`, async () => {
      await device.poll()
      await device.idle()
      return (await getOperation(stack, wakeup)).state === 'FINISHED'
    }, 30_000)
    expect(countersOf(await getOperation(stack, wakeup))).toEqual({ SUCCESS: 1 })
    // Nothing was sent as data: the polls stored no device message.
    expect((await get(`/api/v1/systems/${device.systemUid}/messages?size=10`)).messages).toEqual([])
  })
})
