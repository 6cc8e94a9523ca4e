// The simulator's LwM2M devices against the service on the slow tier's store: PostgreSQL (and Redis) when their URLs
// are set, as in CI, where the integration tier (test/int/simulator-lwm2m) runs the same devices on the embedded store
// (docs/decisions/0015-test-tiers.md). Over NoSec and DTLS-PSK: registered, observed, rebooted, and updated through
// Object 5 (docs/protocols/lwm2m.md#installs), the install's progress kept in the store (lwm2m_installs) until it ends.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startFleet } from '../../simulator/fleet.js'
import { lwm2mApplicationType } from '../../simulator/lwm2m-application.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET } from '../helpers/stack.js'
import { eventually } from '../helpers/eventually.js'
import { count, started, waitFinished } from '../helpers/operations.js'
import { getSystem } from '../helpers/systems.js'
import { registrationsOf } from '../int/lwm2m/lwm2m-fixtures.js'
import { applicationsOf, finished, releasedPackage, simulatedDevice, software, startLwm2mService, type Lwm2mService } from '../int/simulator-lwm2m/service-fixtures.js'

let s: Lwm2mService
beforeAll(async () => { s = await startLwm2mService() }, 120_000)
afterAll(async () => { await s?.stack.close() })

describe.each([['NoSec', false], ['DTLS-PSK', true]])('simulated LwM2M devices over %s on the slow tier\'s store', { timeout: 60_000 }, (_name, psk) => {
  it('register, are observed, reboot on a reboot operation, and take a firmware update: SUCCESS', async () => {
    const { uid, client } = await simulatedDevice(s, { psk })
    expect(await registrationsOf(s.stack, uid)).toMatchObject([{ endpoint: client.state.serialNumber, secure: psk }])
    await eventually(async () => (await getSystem(s.stack, uid)).data?.firmwareVersion === '1.0.0', 10_000, 'the firmware version observed')
    const reboot = await started(s.stack.call(s.stack.adminToken, { method: 'POST', url: '/api/v1/operations/systems/reboot', payload: { systems: { uids: [uid] } } }))
    expect(count(await waitFinished(s.stack, reboot, 20_000), 'SUCCESS')).toBe(1)
    await eventually(() => client.registrations === 2, 10_000, 'the device registered again after its reboot')

    const fw = await releasedPackage(s.stack, 'LWM2M_FW', `gateway-fw-2.${psk ? 5 : 4}.0.bin`, `2.${psk ? 5 : 4}.0`)
    const before = await applicationsOf(s.stack, uid)
    const install = await software(s.stack, 'install', fw.uid, { uids: [uid] })
    expect(await finished(s.stack, install)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(client.firmware.firmwareVersion).toBe(fw.revision)
    expect(await applicationsOf(s.stack, uid)).toEqual([...before, fw.uid].sort())
    await eventually(async () => (await getSystem(s.stack, uid)).data?.firmwareVersion === fw.revision, 10_000, 'the new firmware version observed')
    const rows = await s.stack.db.query('SELECT i.* FROM lwm2m_installs i JOIN device_tasks d ON d.uid = i.task_uid WHERE d.system_uid = $1', [uid])
    expect(rows.rows).toEqual([])
  })
})

describe.each([['NoSec', false], ['DTLS-PSK', true]])('a fleet started as `fleet simulate --protocol lwm2m` over %s', { timeout: 60_000 }, (_name, psk) => {
  it('registers its systems with the company\'s LwM2M application of that security, so that an LWM2M_FW install reaches them', async () => {
    const url = psk ? `coaps://127.0.0.1:${s.stack.ports.lwm2ms ?? 0}` : `coap://127.0.0.1:${s.stack.ports.lwm2m ?? 0}`
    const fleet = startFleet({
      api: { url: s.stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      devices: 2,
      protocol: 'lwm2m',
      lwm2mUrl: url,
      lwm2m: { psk },
      rate: 0.001
    })
    onTestFinished(async () => { await fleet.stop() })
    await fleet.ready
    const uids = fleet.devices.map((d) => d.systemUid)
    const system = (await s.stack.call(s.stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uids[0] ?? ''}` })).json()
    const app = (await s.stack.call(s.stack.adminToken, { method: 'GET', url: `/api/v1/applications/${system.applications[0].uid as string}` })).json()
    expect(app).toMatchObject({ type: lwm2mApplicationType(psk), communication: [{ type: 'LWM2M', parameters: { security: psk ? 'psk' : 'none' } }] })
    const fw = await releasedPackage(s.stack, 'LWM2M_FW', `fleet-fw-3.${psk ? 1 : 0}.0.bin`, `3.${psk ? 1 : 0}.0`)
    const install = await software(s.stack, 'install', fw.uid, { uids })
    expect((await finished(s.stack, install)).map((t) => t.state)).toEqual(['SUCCESS', 'SUCCESS'])
  })
})
