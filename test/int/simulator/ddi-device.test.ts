// Simulated hawkBit DDI controllers against the service (simulator/transports/ddi.ts; docs/simulator.md "Software";
// docs/protocols/ddi.md): a HAWKBIT package's install is found at the controller's poll, its artifact downloaded from
// the deployment's link and checked against its SHA-256, `proceeding` then `closed` success ends the task SUCCESS and
// the system's applications hold the package; a controller of the failing share of installs closes with failure and
// its message. Its data messages are configData attributes the service stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deviceIdentity, newRunTag } from '../../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { INSTALL_FAILURE_MESSAGE, type SoftwareOptions } from '../../../simulator/devices/software.js'
import { addDevice, genericApplication } from '../../../simulator/fleet.js'
import { connectApi, type ApiClient } from '../../../simulator/provision.js'
import { storedMessages } from '../../../simulator/verify.js'
import { eventually } from '../../helpers/eventually.js'
import { allTasks, started, waitFinished } from '../../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from '../../helpers/stack.js'
import { applicationsOf, postSoftware, releasedApplication, type Released } from '../packages/install-fixtures.js'

let stack: Stack
let api: ApiClient
let rest: string | undefined
const run = newRunTag()
let n = 0
const devices: SimulatedDevice[] = []

beforeAll(async () => {
  stack = await startStack({ listen: true })
  api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  rest = await genericApplication(api, 'ddi')
  expect(rest, 'the seeded generic REST application').toBeDefined()
}, 120_000)
afterAll(async () => {
  for (const d of devices) await d.close().catch(() => {})
  await stack?.close()
})

async function controller (tenant: string, software: SoftwareOptions): Promise<SimulatedDevice> {
  const d = await addDevice(api, deviceIdentity(run, ++n), { protocol: 'ddi', ddiTenant: tenant }, { applicationUid: rest, software })
  devices.push(d)
  return d
}

async function install (d: SimulatedDevice): Promise<{ app: Released, uid: string }> {
  const app = await releasedApplication(stack, { manager: 'HAWKBIT', protocols: [] })
  const uid = await started(postSoftware(stack, 'install', { application: app.uid, systems: { uids: [d.systemUid] } }))
  return { app, uid }
}

/** The controller polls, as on its schedule, until its deployment came and was answered. */
async function pollUntilAnswered (d: SimulatedDevice, answered: () => Promise<boolean>): Promise<void> {
  await eventually(async () => { await d.poll(); await d.idle(); return answered() }, 30_000, 'the deployment polled and answered')
}

describe('a simulated DDI controller', { timeout: 90_000 }, () => {
  it('installs a HAWKBIT package from its deployment (tenant DEFAULT); its configData is stored', async () => {
    const d = await controller('DEFAULT', { download: { retryDelayMs: 0 } })
    const { app, uid } = await install(d)
    await pollUntilAnswered(d, async () => d.model.applications.list().length > 0)
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(await applicationsOf(stack, d.systemUid)).toEqual([app.uid, rest].sort())
    expect(d.model.applications.list()).toEqual([{ type: `Software ${app.type}`, revision: app.revision, running: true }])
    await d.publish()
    expect(await storedMessages(api, d.systemUid)).toBe(1)
  })

  it('the failing share of installs: closed with failure, the task FAILURE with its message (tenant: the company\'s uid)', async () => {
    const d = await controller(stack.companyUid, { failsInstalls: true, download: { retryDelayMs: 0 } })
    const { uid } = await install(d)
    await pollUntilAnswered(d, async () => ['SUCCESS', 'FAILURE'].includes((await allTasks(stack, uid))[0]?.state ?? ''))
    await waitFinished(stack, uid, 30_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { message: INSTALL_FAILURE_MESSAGE } }])
    expect(d.model.applications.list()).toEqual([])
  })
})
