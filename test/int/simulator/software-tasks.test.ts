// What a simulated device answers to a software task (simulator/devices/software.ts; simulator/README.md "Software"),
// its package served by a local stand-in of the download links: MQTT swinstall checked against the link's ETag and
// installed, the failing share of installs failing once it downloaded; the Mihini SoftwareUpdate checked against its
// MD5, its Manifest applied, and each refusal answered with the agent's update code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Ack, Task } from '../../../protocols/airvantage/index.js'
import { createDeviceModel } from '../../../simulator/devices/device-model.js'
import { deviceIdentity } from '../../../simulator/devices/identity.js'
import { installedApplications } from '../../../simulator/devices/installed.js'
import { createSimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { DDI_DEPLOYMENT, INSTALL_FAILURE_MESSAGE, runSoftwareTask, SoftwareStopped, type SoftwareOptions } from '../../../simulator/devices/software.js'
import { eventually } from '../../helpers/eventually.js'
import type { DeviceTransport } from '../../../simulator/transports/transport.js'
import { closedPort } from '../../helpers/http-receiver.js'
import { updatePackage } from '../../unit/simulator/tar.js'
import { md5, packageServer, sha256, type PackageServer } from './package-server.js'

const pkg = updatePackage([{ name: 'greenhouse', version: '2.1' }, { name: 'legacy' }], Buffer.alloc(200_000, 3))
let good: PackageServer
let mistagged: PackageServer
let notTar: PackageServer
const servers: PackageServer[] = []
const fast: SoftwareOptions = { download: { retryDelayMs: 0, tries: 2 } }
let n = 0
const head = (): { uid: string, timestamp: number } => ({ uid: `t${++n}`, timestamp: 0 })

beforeAll(async () => {
  good = await packageServer(pkg, { cutGets: 1 })
  mistagged = await packageServer(pkg, { etag: `"${'0'.repeat(64)}"` })
  notTar = await packageServer(Buffer.from('not an update package'.repeat(100)))
  servers.push(good, mistagged, notTar)
})
afterAll(async () => { for (const s of servers) await s.close() })

describe('MQTT and REST swinstall', () => {
  it('downloads (resuming after a cut), checks the ETag\'s SHA-256, installs in place of the older revision, acks OK', async () => {
    const apps = installedApplications([{ type: 'greenhouse', revision: '2.0', running: false }])
    const ack = await runSoftwareTask({ ...head(), swinstall: { type: 'greenhouse', revision: '2.1', url: good.url } }, apps, fast)
    expect(ack).toMatchObject({ status: 'OK', message: null })
    expect(apps.list()).toEqual([{ type: 'greenhouse', revision: '2.1', running: true }])
    expect(good.requests.filter((r) => r.range !== undefined)).toHaveLength(1)
  })

  it('bytes that do not match the ETag: ERROR, nothing installed', async () => {
    const apps = installedApplications()
    const ack = await runSoftwareTask({ ...head(), swinstall: { type: 'greenhouse', revision: '2.1', url: mistagged.url } }, apps, fast)
    expect(ack).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/^SHA-256 mismatch: the bytes' is [0-9a-f]{64}, the link's ETag says 0{64}$/) })
    expect(apps.list()).toEqual([])
  })

  it('a device of the failing share downloads the package, then fails with its message', async () => {
    const s = await packageServer(pkg)
    servers.push(s)
    const apps = installedApplications()
    const ack = await runSoftwareTask({ ...head(), swinstall: { type: 'greenhouse', revision: '2.1', url: s.url } }, apps, { ...fast, failsInstalls: true })
    expect(ack).toMatchObject({ status: 'ERROR', message: INSTALL_FAILURE_MESSAGE })
    expect(s.requests.map((r) => r.method)).toEqual(['HEAD', 'GET'])
    expect(apps.list()).toEqual([])
  })

  it('a link that answers nothing: ERROR once the tries are spent', async () => {
    const ack = await runSoftwareTask({ ...head(), swinstall: { type: 'x', revision: '1', url: `http://127.0.0.1:${await closedPort()}/p` } }, installedApplications(), fast)
    expect(ack).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/^download failed after 2 tries: /) })
  })

  it('in the device\'s loop: the ack of the task before the install leaves before the download, then the install\'s', async () => {
    const s = await packageServer(pkg)
    servers.push(s)
    const sent: Ack[][] = []
    let deliver = (_tasks: Task[]): void => {}
    const transport: DeviceTransport = {
      protocol: 'MQTT',
      async sendData () {},
      async sendAcks (acks) { sent.push([...acks]) },
      onTasks (h) { deliver = h },
      async checkTasks () {},
      async disconnect () {},
      async reconnect () {},
      lastTraffic: { sent: 0, received: 0 },
      async close () {}
    }
    const model = createDeviceModel()
    const d = createSimulatedDevice({ identity: deviceIdentity('sw0001', 1), systemUid: 's', transport, model, software: fast })
    deliver([{ uid: 'w', timestamp: 0, write: [{ 'config.apn': 'm2m' }] }, { uid: 'i', timestamp: 0, swinstall: { type: 'greenhouse', revision: '2.1', url: s.url } }])
    await d.idle()
    expect(sent).toEqual([[{ uid: 'w', status: 'OK', message: null }], [{ uid: 'i', status: 'OK', message: null }]])
    expect(model.applications.list()).toEqual([{ type: 'greenhouse', revision: '2.1', running: true }])
  })
})

describe('a fleet stopping', () => {
  it('ends a download in flight: the install answers nothing (SoftwareStopped), as a device switched off', async () => {
    const held = await packageServer(pkg, { hold: new Promise(() => {}) })
    servers.push(held)
    const stop = new AbortController()
    const running = runSoftwareTask({ ...head(), swinstall: { type: 'a', revision: '1', url: held.url } }, installedApplications(), { download: { retryDelayMs: 0, signal: stop.signal } })
    await eventually(() => held.requests.some((r) => r.method === 'GET'), 5000, 'the GET held at the server')
    stop.abort()
    await expect(running).rejects.toBeInstanceOf(SoftwareStopped)
  })
})

describe('M3DA SoftwareUpdate', () => {
  const update = (url: string, signature: string): Task => ({ ...head(), command: { id: 'SoftwareUpdate', params: { url, signature } } })

  it('the MD5 checks: the Manifest\'s components installed (and the one without a version removed), status 0', async () => {
    const apps = installedApplications([{ type: 'legacy', revision: '0.9', running: true }])
    const ack = await runSoftwareTask(update(good.url, md5(pkg).toUpperCase()), apps, fast)
    expect(ack).toMatchObject({ status: 'OK', code: 0 })
    expect(apps.list()).toEqual([{ type: 'greenhouse', revision: '2.1', running: true }])
  })

  it.each([
    ['another MD5', () => update(good.url, 'f'.repeat(32)), 553, /^the package's MD5 is [0-9a-f]{32}, the signature f{32}$/],
    ['no update package', () => update(notTar.url, md5(Buffer.from('not an update package'.repeat(100)))), 556, /^not a tar archive/],
    ['no url', () => ({ ...head(), command: { id: 'SoftwareUpdate', params: {} } }), 556, /without a url/]
  ])('%s: the agent\'s update code %i with why', async (_what, task, code, message) => {
    const apps = installedApplications()
    const ack = await runSoftwareTask(task(), apps, fast)
    expect(ack).toMatchObject({ status: 'ERROR', code, message: expect.stringMatching(message) })
    expect(apps.list()).toEqual([])
  })

  it('unreachable: 552, download retries exhausted; the failing share: 556 with its message', async () => {
    const gone = await runSoftwareTask(update(`http://127.0.0.1:${await closedPort()}/p`, md5(pkg)), installedApplications(), fast)
    expect(gone).toMatchObject({ status: 'ERROR', code: 552 })
    const failing = await runSoftwareTask(update(good.url, md5(pkg)), installedApplications(), { ...fast, failsInstalls: true })
    expect(failing).toMatchObject({ status: 'ERROR', code: 556, message: INSTALL_FAILURE_MESSAGE })
  })
})

describe('hawkBit DDI deployment', () => {
  const deployment = (artifacts: Array<{ url: string, sha256: string, size: number }>): Task =>
    ({ ...head(), command: { id: DDI_DEPLOYMENT, params: { name: 'Gateway image', version: '4.2', artifacts: artifacts.map((a, i) => ({ filename: `part${i}.swu`, ...a })) } } })

  it('every artifact fetched and checked: the chunk\'s name installed at its version', async () => {
    const apps = installedApplications()
    const ack = await runSoftwareTask(deployment([{ url: good.url, sha256: sha256(pkg), size: pkg.length }, { url: good.url, sha256: sha256(pkg).toUpperCase(), size: pkg.length }]), apps, fast)
    expect(ack).toMatchObject({ status: 'OK' })
    expect(apps.list()).toEqual([{ type: 'Gateway image', revision: '4.2', running: true }])
  })

  it.each([
    ['another SHA-256', () => ({ url: good.url, sha256: 'a'.repeat(64), size: pkg.length }), /^part0\.swu: SHA-256 mismatch: the bytes' is [0-9a-f]{64}, the deployment's a{64}$/],
    ['another size', () => ({ url: good.url, sha256: sha256(pkg), size: 10 }), new RegExp(`^part0\\.swu: ${pkg.length} bytes, the deployment says 10$`)]
  ])('%s: failure with why, nothing installed', async (_what, artifact, message) => {
    const apps = installedApplications()
    expect(await runSoftwareTask(deployment([artifact()]), apps, fast)).toMatchObject({ status: 'ERROR', message: expect.stringMatching(message) })
    expect(apps.list()).toEqual([])
  })
})
