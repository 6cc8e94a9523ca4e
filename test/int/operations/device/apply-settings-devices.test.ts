// Apply settings end to end (docs/operations.md#bulk-operations, docs/api.md#systems syncStatus / lastSyncDate /
// data.lastTemplateName, docs/api.md#systems lastAppliedTemplate / lastConfigName / syncStatus; docs/devices.md):
// simulated MQTT and REST devices write the settings and reboot when asked, the system is found in sync with the
// template afterwards; a device answering ERROR, or no answer by the timeout, ends the task FAILURE and leaves the
// system syncStatus ERROR; templateId writes the template's settings. The operation's counters are checked at the end
// of each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERIC_ACTIONS, GENERIC_SETTINGS } from '../../../../core/domain/generic-applications.js'
import { FAILURE_MESSAGE } from '../../../../simulator/devices/simulated-device.js'
import { uniq } from '../../../helpers/factories.js'
import { allTasks, count, getOperation, started, until, waitFinished, waitOperation, type Json } from '../../../helpers/operations.js'
import { deviceTasksOf } from './reboot-fixtures.js'
import { countersOf, NO_TASKS, onDevice, serve, startSimulatedFleet, type SimulatedFleet } from './simulated-fleet.js'

let fleet: SimulatedFleet
beforeAll(async () => { fleet = await startSimulatedFleet() })
afterAll(async () => { await fleet?.close() })

const apply = async (body: Json): Promise<string> =>
  await started(fleet.stack.call(fleet.stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/settings', payload: body }))

const finished = (uid: string) => async (): Promise<boolean> => (await getOperation(fleet.stack, uid)).state === 'FINISHED'

/** The uids of the systems GET /api/v1/systems finds with this query. */
async function found (query: string): Promise<string[]> {
  return ((await fleet.get(`/api/v1/systems?fields=uid&size=500&${query}`)).items as Json[]).map((s) => s.uid)
}

const night = [{ key: GENERIC_SETTINGS.reportPeriodS, value: 300 }, { key: GENERIC_SETTINGS.apn, value: 'iot.m2m' }]

describe.each(['mqtt', 'rest'] as const)('apply settings on a simulated %s device', { timeout: 60_000 }, (protocol) => {
  it('writes the settings, reboots, and the system is in sync with the template', async () => {
    const device = await fleet.device(protocol)
    const name = uniq('Night')
    const before = Date.now()
    const uid = await apply({ systems: { uids: [device.systemUid] }, settings: night, templateName: name })
    await serve(device, 'the settings and the reboot', finished(uid))
    const op = await getOperation(fleet.stack, uid)
    expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 1 })
    const [task] = await allTasks(fleet.stack, uid)
    expect(task).toMatchObject({ state: 'SUCCESS', error: null })

    // On the device: the settings, then one reboot (the generic firmware's system.reboot), each acknowledged.
    expect([onDevice(device, GENERIC_SETTINGS.reportPeriodS), onDevice(device, GENERIC_SETTINGS.apn)]).toEqual([300, 'iot.m2m'])
    expect(device.model.numberOfResets).toBe(1)
    expect(await deviceTasksOf(fleet.stack, uid)).toMatchObject([
      { uid: task?.uid, state: 'OK', protocol: protocol.toUpperCase(), body: { write: [{ [GENERIC_SETTINGS.reportPeriodS]: 300 }, { [GENERIC_SETTINGS.apn]: 'iot.m2m' }] } },
      { uid: `${task?.uid ?? ''}-reboot`, state: 'OK', body: { command: { id: GENERIC_ACTIONS.reboot, params: {} } } }
    ])

    // On the system: in sync since the write's answer, with the template's name, and found by it.
    const system = await fleet.get(`/api/v1/systems/${device.systemUid}`)
    expect(system).toMatchObject({ syncStatus: 'OK', data: { lastTemplateName: name } })
    expect(system.lastSyncDate).toBeGreaterThanOrEqual(before)
    expect(system.lastSyncDate).toBeLessThanOrEqual(Date.now())
    expect(await found(`lastAppliedTemplate=${name}`)).toEqual([device.systemUid])
    expect(await found(`lastConfigName=${name}`)).toEqual([device.systemUid])
    expect(await found(`lastAppliedTemplate=${name}&syncStatus=OK`)).toEqual([device.systemUid])
  })

  it('reboot false: the settings are written, no reboot follows', async () => {
    const device = await fleet.device(protocol)
    const uid = await apply({ systems: { uids: [device.systemUid] }, settings: [{ key: GENERIC_SETTINGS.gpsEnabled, value: false }], reboot: false })
    await serve(device, 'the settings', finished(uid))
    expect(countersOf(await getOperation(fleet.stack, uid))).toEqual({ ...NO_TASKS, SUCCESS: 1 })
    expect(onDevice(device, GENERIC_SETTINGS.gpsEnabled)).toBe(false)
    expect(device.model.numberOfResets).toBe(0)
    expect((await deviceTasksOf(fleet.stack, uid)).map((t) => Object.keys(t.body).filter((k) => k !== 'uid' && k !== 'timestamp'))).toEqual([['write']])
    expect(await fleet.get(`/api/v1/systems/${device.systemUid}`)).toMatchObject({ syncStatus: 'OK', data: { lastTemplateName: 'Custom' } })
  })

  it('a device answering ERROR: FAILURE with its message, the system syncStatus ERROR, no reboot', async () => {
    const device = await fleet.device(protocol, { failsTasks: true })
    const name = uniq('Refused')
    const uid = await apply({ systems: { uids: [device.systemUid] }, settings: night, templateName: name })
    await serve(device, 'the refusal', finished(uid))
    expect(countersOf(await getOperation(fleet.stack, uid))).toEqual({ ...NO_TASKS, FAILURE: 1 })
    expect(await allTasks(fleet.stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: FAILURE_MESSAGE } }])
    expect(await deviceTasksOf(fleet.stack, uid)).toHaveLength(1)
    expect(device.model.numberOfResets).toBe(0)
    const system = await fleet.get(`/api/v1/systems/${device.systemUid}`)
    expect(system).toMatchObject({ syncStatus: 'ERROR', lastSyncDate: null, data: { lastTemplateName: null } })
    expect(await found(`lastAppliedTemplate=${name}`)).toEqual([])
    expect(await found('syncStatus=ERROR')).toContain(device.systemUid)
  })
})

describe('apply settings with templateId', { timeout: 60_000 }, () => {
  it('the template\'s settings reach the device and its name is the system\'s lastAppliedTemplate', async () => {
    const device = await fleet.device('mqtt')
    const name = uniq('Low power')
    const res = await fleet.stack.call(fleet.stack.adminToken, {
      method: 'POST',
      url: '/api/v1/templates',
      payload: { name, settings: [{ key: GENERIC_SETTINGS.reportPeriodS, value: 3600 }, { key: GENERIC_SETTINGS.gpsEnabled, value: false }] }
    })
    expect(res.statusCode, res.body).toBe(200)
    const uid = await apply({ systems: { uids: [device.systemUid] }, templateId: res.json().uid, reboot: false })
    const op = await waitFinished(fleet.stack, uid, 20_000)
    expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 1 })
    expect([onDevice(device, GENERIC_SETTINGS.reportPeriodS), onDevice(device, GENERIC_SETTINGS.gpsEnabled)]).toEqual([3600, false])
    expect(await fleet.get(`/api/v1/systems/${device.systemUid}`)).toMatchObject({ syncStatus: 'OK', data: { lastTemplateName: name } })
    expect(await found(`lastAppliedTemplate=${encodeURIComponent(name)}`)).toEqual([device.systemUid])
  })
})

describe('apply settings on several systems', { timeout: 60_000 }, () => {
  it('the counters add up, and each system has its own syncStatus', async () => {
    const ok = [await fleet.device('mqtt'), await fleet.device('mqtt')]
    const failing = await fleet.device('mqtt', { failsTasks: true })
    const uid = await apply({ systems: { uids: [...ok, failing].map((d) => d.systemUid) }, settings: [{ key: GENERIC_SETTINGS.serverUrl, value: 'https://eu.fleet.local' }] })
    const op = await waitFinished(fleet.stack, uid, 20_000)
    expect(op).toMatchObject({ state: 'FINISHED', total: 3 })
    expect(countersOf(op)).toEqual({ ...NO_TASKS, SUCCESS: 2, FAILURE: 1 })
    for (const d of ok) {
      expect((await fleet.get(`/api/v1/systems/${d.systemUid}`)).syncStatus).toBe('OK')
      expect(d.model.numberOfResets).toBe(1)
    }
    expect((await fleet.get(`/api/v1/systems/${failing.systemUid}`)).syncStatus).toBe('ERROR')
  })
})

describe('apply settings on a device that never answers', { timeout: 60_000 }, () => {
  it('the task times out (operation.timeout) and the system is syncStatus ERROR', async () => {
    const { systemUid } = await fleet.register('rest') // no device polls for it
    const uid = await apply({ systems: { uids: [systemUid] }, settings: night, timeout: Date.now() + 1500 })
    await waitOperation(fleet.stack, uid, (o) => count(o, 'IN_PROGRESS') === 1, 10_000, 'the write to wait for its device')
    await until('the timeout', async () => {
      await fleet.stack.ctx.services.operations.engine.sweepTimeouts()
      return (await getOperation(fleet.stack, uid)).state === 'FINISHED'
    })
    expect(countersOf(await getOperation(fleet.stack, uid))).toEqual({ ...NO_TASKS, FAILURE: 1 })
    expect(await allTasks(fleet.stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.timeout' } }])
    expect((await fleet.get(`/api/v1/systems/${systemUid}`)).syncStatus).toBe('ERROR')
  })
})
