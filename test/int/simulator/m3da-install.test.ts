// A simulated Mihini agent installs an update package end to end (simulator/README.md "Software";
// docs/protocols/m3da.md#software-updates): the install operation's SoftwareUpdate {url, signature} reaches it in a
// reply, it downloads the package from the service, checks the MD5, reads the Manifest and answers the ticket with
// status 0: the task ends SUCCESS, the system's applications hold the package, and the agent's own list the
// Manifest's components. A package that is no update package is answered 556 and fails the task with its meaning.
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Application } from '../../../core/domain/system.js'
import { newUid } from '../../../core/security/secrets.js'
import { createDeviceModel } from '../../../simulator/devices/device-model.js'
import { deviceIdentity, newRunTag } from '../../../simulator/devices/identity.js'
import { createSimulatedDevice, type SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { connectM3daDevice } from '../../../simulator/transports/m3da.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { uniq } from '../../helpers/factories.js'
import { allTasks, started, until, waitFinished } from '../../helpers/operations.js'
import type { Stack } from '../../helpers/stack.js'
import { updatePackage } from '../../unit/simulator/tar.js'
import { m3daSystem, startM3daStack } from '../m3da/m3da-fixtures.js'
import { applicationsOf, postSoftware } from '../packages/install-fixtures.js'

let stack: Stack
let open: string
const run = newRunTag()
let n = 0
const agents: SimulatedDevice[] = []

beforeAll(async () => { ({ stack, open } = await startM3daStack()) }, 120_000)
afterAll(async () => {
  for (const a of agents) await a.close().catch(() => {})
  await stack?.close()
})

/** A MIHINI_APPCON application released with these bytes as its one binary, as the release operation leaves it. */
async function mihiniApplication (bytes: Buffer): Promise<string> {
  const info = await stack.ctx.artifacts.put(Readable.from([bytes]))
  const type = uniq('mihini.app')
  const application: Application = { uid: newUid(), companyUid: stack.companyUid, name: type, revision: '2.0', type, category: 'APPLICATION', communication: [], data: [] }
  const binaries = [{ file: `${type}.tar`, revision: '2.0', type: 'FULL', size: info.size, sha256: info.sha256, md5: info.md5, artifact: info.key }]
  await createRepositories(stack.db).applications.insertReleased({ application, ownerUid: null, applicationManager: 'MIHINI_APPCON', binaries }, Date.now())
  return application.uid
}

/** An agent without security on the service's M3DA TCP port, its system carrying the firmware that admits it. */
async function agent (): Promise<{ d: SimulatedDevice, systemUid: string }> {
  const s = await m3daSystem(stack, { applications: [open] })
  const transport = await connectM3daDevice({ url: `tcp://127.0.0.1:${stack.ports.m3da ?? 0}`, deviceId: s.serial, password: '', security: { mode: 'none' } })
  const d = createSimulatedDevice({ identity: deviceIdentity(run, ++n), systemUid: s.uid, transport, model: createDeviceModel(), software: { download: { retryDelayMs: 0 } } })
  agents.push(d)
  return { d, systemUid: s.uid }
}

/** The agent connects (an empty envelope) until its install was answered. */
async function answered (d: SimulatedDevice, uid: string): Promise<void> {
  await until('the SoftwareUpdate run and answered', async () => {
    await d.poll()
    await d.idle()
    return (await allTasks(stack, uid))[0]?.state !== 'IN_PROGRESS'
  }, 30_000)
}

describe('a simulated Mihini agent', { timeout: 120_000 }, () => {
  it('installs an update package: status 0, the system\'s applications hold it, the agent the Manifest\'s components', async () => {
    const { d, systemUid } = await agent()
    const app = await mihiniApplication(updatePackage([{ name: 'greenhouse', version: '2.0' }], Buffer.alloc(100_000, 5)))
    const uid = await started(postSoftware(stack, 'install', { application: app, systems: { uids: [systemUid] } }))
    await answered(d, uid)
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(await applicationsOf(stack, systemUid)).toEqual([open, app].sort())
    expect(d.model.applications.list()).toEqual([{ type: 'greenhouse', revision: '2.0', running: true }])
  })

  it('a package that is no update package: 556, FAILURE with the code\'s meaning and why', async () => {
    const { d, systemUid } = await agent()
    const app = await mihiniApplication(Buffer.from('not a tar at all\n'.repeat(1000)))
    const uid = await started(postSoftware(stack, 'install', { application: app, systems: { uids: [systemUid] } }))
    await answered(d, uid)
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: expect.stringMatching(/^status 556 \(invalid update package\): not a tar archive/) } }])
    expect(await applicationsOf(stack, systemUid)).toEqual([open])
  })
})
