// LWM2M_SW through Object 9 on the simulator's LwM2M devices against the service (docs/protocols/lwm2m.md#installs):
// an install writes the task's download link as the Package URI of a new instance, executes Install once the package
// is DELIVERED and ends SUCCESS when the instance is INSTALLED; stop, start and uninstall execute Deactivate,
// Activate and Uninstall of the instance holding the application; a device that fails its installs ends the task
// FAILURE with the Update Result's name (over DTLS as over NoSec). And a rollout in waves over LwM2M devices
// (docs/operations.md#safe-rollouts), which the operations apply to these tasks as to every device task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { count, getOperation, waitOperation } from '../../helpers/operations.js'
import { uniq } from '../../helpers/factories.js'
import { applicationsOf, finished, releasedPackage, simulatedDevice, software, startLwm2mService, type Lwm2mService } from './service-fixtures.js'

let s: Lwm2mService
beforeAll(async () => { s = await startLwm2mService() }, 120_000)
afterAll(async () => { await s?.stack.close() })

describe('LWM2M_SW over Object 9', () => {
  it('install, stop, start and uninstall: each task ends with the device\'s object, the system\'s applications follow', async () => {
    const { uid, d, client } = await simulatedDevice(s)
    const app = await releasedPackage(s.stack, 'LWM2M_SW', 'meter-1.2.0.bin', '1.2.0')
    const before = await applicationsOf(s.stack, uid)

    expect(await finished(s.stack, await software(s.stack, 'install', app.uid, { uids: [uid] }))).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(d.model.applications.list()).toEqual([{ type: 'meter', revision: '1.2.0', running: true }])
    expect(client.software.slot(0)).toMatchObject({ name: 'meter', version: '1.2.0', state: 4, result: 2 })
    expect(await applicationsOf(s.stack, uid)).toEqual([...before, app.uid].sort())

    expect(await finished(s.stack, await software(s.stack, 'stop', app.uid, { uids: [uid] }))).toMatchObject([{ state: 'SUCCESS' }])
    expect(d.model.applications.list()).toEqual([{ type: 'meter', revision: '1.2.0', running: false }])
    expect(await finished(s.stack, await software(s.stack, 'start', app.uid, { uids: [uid] }))).toMatchObject([{ state: 'SUCCESS' }])
    expect(d.model.applications.list()).toEqual([{ type: 'meter', revision: '1.2.0', running: true }])

    expect(await finished(s.stack, await software(s.stack, 'uninstall', app.uid, { uids: [uid] }))).toMatchObject([{ state: 'SUCCESS' }])
    expect(d.model.applications.list()).toEqual([])
    expect(client.software.slot(0)).toBeUndefined()
    expect(await applicationsOf(s.stack, uid)).toEqual(before)
  })

  it('over DTLS, a device that fails its installs: FAILURE with the Update Result\'s name; an application it does not hold fails its stop', async () => {
    const { uid, d } = await simulatedDevice(s, { psk: true, software: { failsInstalls: true } })
    const app = await releasedPackage(s.stack, 'LWM2M_SW', 'logger-3.0.bin', '3.0')
    const before = await applicationsOf(s.stack, uid)
    expect(await finished(s.stack, await software(s.stack, 'install', app.uid, { uids: [uid] }))).toMatchObject([
      { state: 'FAILURE', error: { code: 'operation.device.error', message: 'Software installation failure (Update Result 58)' } }
    ])
    expect(d.model.applications.list()).toEqual([])
    expect(await applicationsOf(s.stack, uid)).toEqual(before)
    const other = await releasedPackage(s.stack, 'LWM2M_SW', 'absent-1.0.bin', '1.0')
    const [stop] = await finished(s.stack, await software(s.stack, 'stop', other.uid, { uids: [uid] }))
    expect(stop).toMatchObject({ state: 'FAILURE', error: { code: 'operation.device.error' } })
    expect(stop?.error?.message).toContain(`no instance of /9 holds ${other.type} 1.0`)
  })
})

describe('a rollout over LwM2M devices', () => {
  it('sends the first wave\'s install, and the rest once it succeeded', async () => {
    const label = uniq('lwm2m-wave')
    const devices = [await simulatedDevice(s, { labels: [label] }), await simulatedDevice(s, { labels: [label], psk: true }), await simulatedDevice(s, { labels: [label] })]
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', 'tracker-fw-7.0.bin', '7.0')
    const op = await software(s.stack, 'install', fw.uid, { label }, { rollout: { waves: [30], waveSuccessPercent: 100 } })
    const first = await waitOperation(s.stack, op, (o) => count(o, 'IN_PROGRESS') === 1 && count(o, 'PENDING') === 2, 10_000, 'the first wave sent')
    expect(first).toMatchObject({ rollout: { waves: [30, 100], wave: 1, sent: 1 } })

    const tasks = await finished(s.stack, op)
    expect(tasks.map((t) => t.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS'])
    // The second wave left once the first device had updated, restarted and been read back.
    const [wave1, ...wave2] = [...tasks].sort((a, b) => (a.startDate ?? 0) - (b.startDate ?? 0))
    for (const t of wave2) expect(t.startDate).toBeGreaterThanOrEqual(wave1?.endDate ?? Infinity)
    expect(await getOperation(s.stack, op)).toMatchObject({ rollout: { wave: 2, sent: 3 } })
    expect(devices.map((x) => x.client.firmware.firmwareVersion)).toEqual(['7.0', '7.0', '7.0'])
  })
})
