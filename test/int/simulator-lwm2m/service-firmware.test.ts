// The simulator's LwM2M devices against the service (docs/protocols/lwm2m.md): registered over NoSec and over DTLS
// with their PSK, observed (their firmware version becomes the system's), rebooted by a reboot operation, and
// updated by LWM2M_FW installs through Object 5 (docs/protocols/lwm2m.md#installs): the task's download link written
// as Package URI, Update executed once the State is Downloaded, and the Update Result read after the device restarted
// into its new firmware and registered again: 1 ends the task SUCCESS (the system's applications hold the firmware),
// 8 FAILURE with its name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../../helpers/eventually.js'
import { count, started, waitFinished } from '../../helpers/operations.js'
import { getSystem } from '../../helpers/systems.js'
import { registrationsOf } from '../lwm2m/lwm2m-fixtures.js'
import { applicationsOf, finished, releasedPackage, simulatedDevice, software, startLwm2mService, type Lwm2mService } from './service-fixtures.js'

let s: Lwm2mService
beforeAll(async () => { s = await startLwm2mService() }, 120_000)
afterAll(async () => { await s?.stack.close() })

const installRows = async (systemUid: string): Promise<unknown[]> =>
  (await s.stack.db.query('SELECT i.* FROM lwm2m_installs i JOIN device_tasks d ON d.uid = i.task_uid WHERE d.system_uid = $1', [systemUid])).rows

describe('simulated LwM2M devices against the service', () => {
  it('register, are observed (the firmware version becomes System data), and reboot on a reboot operation', async () => {
    const { uid, client } = await simulatedDevice(s)
    expect(await registrationsOf(s.stack, uid)).toMatchObject([{ endpoint: client.state.serialNumber, secure: false, version: '1.1' }])
    await eventually(async () => (await getSystem(s.stack, uid)).data?.firmwareVersion === '1.0.0', 10_000, 'the firmware version observed')
    const op = await started(s.stack.call(s.stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [uid] } } }))
    expect(count(await waitFinished(s.stack, op, 20_000), 'SUCCESS')).toBe(1)
    await eventually(() => client.registrations === 2, 10_000, 'the device registered again after its reboot')
  })

  it('LWM2M_FW over NoSec: downloads its link, updates, restarts into 2.4.1; SUCCESS and the system holds the firmware', async () => {
    const { uid, client } = await simulatedDevice(s)
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'gateway-fw-2.4.1.bin', '2.4.1')
    const before = await applicationsOf(s.stack, uid)
    const op = await software(s.stack, 'install', fw.uid, { uids: [uid] })
    expect(await finished(s.stack, op)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(String(client.tree.instance({ objectId: 5, instanceId: 0 })?.values().get(1))).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/device\/packages\/[\w-]{43}$/)
    expect(client.firmware.firmwareVersion).toBe('2.4.1')
    // The update restarts it (the result may have been read just before, from the notification of its State).
    await eventually(() => client.registrations >= 2, 10_000, 'the device registered again on its new firmware')
    expect(await applicationsOf(s.stack, uid)).toEqual([...before, fw.uid].sort())
    await eventually(async () => (await getSystem(s.stack, uid)).data?.firmwareVersion === '2.4.1', 10_000, 'the new firmware version observed')
    expect(await installRows(uid)).toEqual([])
  })

  it('LWM2M_FW on a device that fails its updates: FAILURE with the Update Result\'s name; firmware and applications unchanged', async () => {
    const { uid, client } = await simulatedDevice(s, { software: { failsInstalls: true } })
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'gateway-fw-3.0.0.bin', '3.0.0')
    const before = await applicationsOf(s.stack, uid)
    const op = await software(s.stack, 'install', fw.uid, { uids: [uid] })
    expect(await finished(s.stack, op)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: 'Firmware update failed (Update Result 8)' } }])
    expect(client.firmware.firmwareVersion).toBe('1.0.0')
    expect(client.registrations).toBe(1)
    expect(await applicationsOf(s.stack, uid)).toEqual(before)
  })

  it('LWM2M_FW over DTLS with the device\'s PSK: the same update, SUCCESS', async () => {
    const { uid, client } = await simulatedDevice(s, { psk: true })
    expect(await registrationsOf(s.stack, uid)).toMatchObject([{ secure: true, psk_identity: client.state.serialNumber }])
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'modem-fw-5.1.bin', '5.1')
    const op = await software(s.stack, 'install', fw.uid, { uids: [uid] })
    expect(await finished(s.stack, op)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(client.firmware.firmwareVersion).toBe('5.1')
    expect(await applicationsOf(s.stack, uid)).toContain(fw.uid)
  })

  it('LWM2M_FW has no uninstall, start or stop: operation.install.unsupported.protocol at once', async () => {
    const { uid } = await simulatedDevice(s)
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'gateway-fw-6.0.bin', '6.0')
    const op = await software(s.stack, 'uninstall', fw.uid, { uids: [uid] })
    expect(await finished(s.stack, op)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.install.unsupported.protocol' } }])
  })
})
