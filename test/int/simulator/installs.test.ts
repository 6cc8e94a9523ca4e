// Simulated devices install released packages end to end (simulator/README.md "Software"; docs/packages.md#installs):
// the service's install operation sends swinstall over MQTT (and REST), the device downloads its link from the
// service (one device cutting its first GET and resuming with Range), checks the bytes against the link's ETag, and
// acks; the task ends SUCCESS and the system's applications hold the new revision. A device of the failing share of
// installs fails its task with its message, and the applications stay. A hawkBit DDI controller (transports/ddi.ts;
// docs/protocols/ddi.md) finds a HAWKBIT package's install at its poll, downloads the deployment's artifact and checks
// its SHA-256, says `proceeding` then `closed`; its data messages are configData attributes the service stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deviceIdentity, newRunTag } from '../../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { INSTALL_FAILURE_MESSAGE, type SoftwareOptions } from '../../../simulator/devices/software.js'
import { addDevice, genericApplication, startFleet, type FleetProtocol } from '../../../simulator/fleet.js'
import { connectApi, type ApiClient } from '../../../simulator/provision.js'
import { storedMessages } from '../../../simulator/verify.js'
import { eventually } from '../../helpers/eventually.js'
import { allTasks, started, waitFinished } from '../../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../helpers/stack.js'
import { applicationsOf, postSoftware, releasedApplication, type Released } from '../packages/install-fixtures.js'

let stack: Stack
let api: ApiClient
const run = newRunTag()
let n = 0
const devices: SimulatedDevice[] = []
const closing: Array<() => Promise<void>> = []
const generic: Partial<Record<FleetProtocol, string>> = {}

beforeAll(async () => {
  stack = await startStack({ listen: true })
  api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  for (const protocol of ['mqtt', 'rest'] as const) {
    generic[protocol] = await genericApplication(api, protocol)
    expect(generic[protocol], `the seeded generic ${protocol} application`).toBeDefined()
  }
}, 120_000)
afterAll(async () => {
  for (const close of closing) await close().catch(() => {})
  for (const d of devices) await d.close().catch(() => {})
  await stack?.close()
})

async function device (protocol: 'mqtt' | 'rest', software: SoftwareOptions): Promise<SimulatedDevice> {
  const d = await addDevice(api, deviceIdentity(run, ++n), { protocol, mqttUrl: stack.mqttUrl }, { applicationUid: generic[protocol], software })
  devices.push(d)
  return d
}

/** An application that speaks no protocol of its own: its tasks go over the device's generic firmware's. */
async function release (manager: 'MQTT_SW' | 'HAWKBIT' = 'MQTT_SW'): Promise<Released> {
  return await releasedApplication(stack, { manager, protocols: [] })
}

async function install (d: SimulatedDevice, app: Released): Promise<string> {
  return await started(postSoftware(stack, 'install', { application: app.uid, systems: { uids: [d.systemUid] }, timeout: null, parameters: null }))
}

async function controller (tenant: string, software: SoftwareOptions): Promise<SimulatedDevice> {
  const d = await addDevice(api, deviceIdentity(run, ++n), { protocol: 'ddi', ddiTenant: tenant }, { applicationUid: generic.rest, software })
  devices.push(d)
  return d
}

/** The device polls, as on its schedule, until its task came and was answered. */
async function pollUntilAnswered (d: SimulatedDevice, answered: () => Promise<boolean>): Promise<void> {
  await eventually(async () => { await d.poll(); await d.idle(); return await answered() }, 30_000, 'the task polled and answered')
}

describe('simulated devices install a released package', { timeout: 90_000 }, () => {
  it('MQTT: downloads from its link (a cut resumed with Range), acks OK; the system\'s applications hold the package', async () => {
    // The first GET is cut half-way (a draw under the rate, then where), the next ones are not.
    const draws = [0, 0.5]
    const d = await device('mqtt', { download: { retryDelayMs: 0, cutRate: 0.5, random: () => draws.shift() ?? 0.99 } })
    const app = await release()
    const uid = await install(d, app)
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(await applicationsOf(stack, d.systemUid)).toEqual([app.uid, generic.mqtt].sort())
    expect(d.model.applications.list()).toEqual([{ type: app.type, revision: app.revision, running: true }])
    expect(draws).toEqual([]) // both draws of the cut were taken: the first GET was cut, then resumed
  })

  it('REST: the same task polled from GET /device/tasks', async () => {
    const d = await device('rest', { download: { retryDelayMs: 0 } })
    const app = await release()
    const uid = await install(d, app)
    await pollUntilAnswered(d, async () => d.model.applications.list().length > 0)
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS' }])
    expect(await applicationsOf(stack, d.systemUid)).toEqual([app.uid, generic.rest].sort())
  })

  it('a device of the failing share of installs: FAILURE with its message, the applications unchanged', async () => {
    const d = await device('mqtt', { failsInstalls: true, download: { retryDelayMs: 0 } })
    const app = await release()
    const uid = await install(d, app)
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: INSTALL_FAILURE_MESSAGE } }])
    expect(await applicationsOf(stack, d.systemUid)).toEqual([generic.mqtt])
    expect(d.model.applications.list()).toEqual([])
  })
})

describe('a fleet', { timeout: 90_000 }, () => {
  it('--update-failure-rate 0.5 over 4 devices: devices 1 and 3 fail their installs, 2 and 4 install, one download at a time', async () => {
    const fleet = startFleet({
      api: { url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      devices: 4,
      protocol: 'mqtt',
      mqttUrl: stack.mqttUrl,
      rate: 0.001, // one message, then quiet
      updateFailureRate: 0.5,
      downloadConcurrency: 1
    })
    closing.push(async () => { await fleet.stop() })
    await fleet.ready
    const app = await release()
    const uid = await started(postSoftware(stack, 'install', { application: app.uid, systems: { uids: fleet.devices.map((d) => d.systemUid) } }))
    await waitFinished(stack, uid, 60_000)
    const bySystem = new Map((await allTasks(stack, uid)).map((t) => [t.system.uid, t]))
    const outcome = fleet.devices.map((d) => ({ n: Number(d.identity.serialNumber.slice(-5)), state: bySystem.get(d.systemUid)?.state, message: bySystem.get(d.systemUid)?.error?.message ?? null }))
    expect(outcome.sort((a, b) => a.n - b.n)).toEqual([
      { n: 1, state: 'FAILURE', message: INSTALL_FAILURE_MESSAGE },
      { n: 2, state: 'SUCCESS', message: null },
      { n: 3, state: 'FAILURE', message: INSTALL_FAILURE_MESSAGE },
      { n: 4, state: 'SUCCESS', message: null }
    ])
    expect(fleet.stats()).toMatchObject({ tasksAnswered: 4, tasksFailed: 2, downloading: 0, downloadsWaiting: 0 })
  })
})

describe('a simulated DDI controller', { timeout: 90_000 }, () => {
  it('installs a HAWKBIT package from its deployment (tenant DEFAULT); its configData is stored', async () => {
    const d = await controller('DEFAULT', { download: { retryDelayMs: 0 } })
    const app = await release('HAWKBIT')
    const uid = await install(d, app)
    await pollUntilAnswered(d, async () => d.model.applications.list().length > 0)
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(await applicationsOf(stack, d.systemUid)).toEqual([app.uid, generic.rest].sort())
    expect(d.model.applications.list()).toEqual([{ type: `Software ${app.type}`, revision: app.revision, running: true }])
    await d.publish()
    expect(await storedMessages(api, d.systemUid)).toBe(1)
  })

  it('the failing share of installs: closed with failure, the task FAILURE with its message (tenant: the company\'s uid)', async () => {
    const d = await controller(stack.companyUid, { failsInstalls: true, download: { retryDelayMs: 0 } })
    const uid = await install(d, await release('HAWKBIT'))
    await pollUntilAnswered(d, async () => ['SUCCESS', 'FAILURE'].includes((await allTasks(stack, uid))[0]?.state ?? ''))
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { message: INSTALL_FAILURE_MESSAGE } }])
    expect(d.model.applications.list()).toEqual([])
  })
})
