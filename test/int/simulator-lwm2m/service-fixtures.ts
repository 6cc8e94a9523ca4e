// The service with the simulator's LwM2M devices against it (docs/protocols/lwm2m.md#installs): a listening stack
// (LWM2M_PORT and LWM2MS_PORT on any free port), an application admitting NoSec devices and one requiring DTLS,
// devices made as `fleet simulate --protocol lwm2m` makes them (the fleet's addDevice: the system through the API,
// then the client registered), and packages released with a binary whose file name gives the simulated device its
// package name and version (`meter-1.2.0.bin`: simulator/transports/lwm2m-package.ts).
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { expect, onTestFinished } from 'vitest'
import { createRepositories } from '../../../storage/repositories/index.js'
import type { Application } from '../../../core/domain/system.js'
import type { Clock } from '../../../core/ports/store.js'
import { newUid } from '../../../core/security/secrets.js'
import { deviceIdentity, newRunTag } from '../../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import type { SoftwareOptions } from '../../../simulator/devices/software.js'
import { addDevice } from '../../../simulator/fleet.js'
import { connectApi, type ApiClient } from '../../../simulator/provision.js'
import type { Lwm2mClient } from '../../../simulator/transports/lwm2m-client.js'
import type { Lwm2mDevice } from '../../../simulator/transports/lwm2m.js'
import { companyUid } from '../../helpers/factories.js'
import { allTasks, started, waitFinished, type Json, type TaskJson } from '../../helpers/operations.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, COMPANY_NAME, startStack, type Stack } from '../../helpers/stack.js'
import { lwm2mApplication } from '../lwm2m/lwm2m-fixtures.js'

export interface Lwm2mService {
  stack: Stack
  api: ApiClient
  /** Applications speaking LWM2M: `security: "none"` (NoSec admitted), and `psk` (DTLS only). */
  nosec: string
  psk: string
}

export async function startLwm2mService (opts: { env?: Record<string, string>, clock?: Clock } = {}): Promise<Lwm2mService> {
  const stack = await startStack({ listen: true, env: { LWM2M_PORT: '0', LWM2MS_PORT: '0', ...opts.env }, ...(opts.clock === undefined ? {} : { clock: opts.clock }) })
  const api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  return { stack, api, nosec: await lwm2mApplication(stack, { security: 'none' }), psk: await lwm2mApplication(stack, { security: 'psk' }) }
}

export interface SimulatedLwm2m { d: SimulatedDevice, client: Lwm2mClient, uid: string }

export interface DeviceOptions { psk?: boolean, queue?: boolean, software?: SoftwareOptions, labels?: string[] }

const run = newRunTag()
let n = 0

/** A simulated LwM2M device, registered (NoSec, or DTLS with its PSK), closed (de-registered) after the test. */
export async function simulatedDevice (s: Lwm2mService, o: DeviceOptions = {}): Promise<SimulatedLwm2m> {
  const psk = o.psk === true
  const url = psk ? `coaps://127.0.0.1:${s.stack.ports.lwm2ms ?? 0}` : `coap://127.0.0.1:${s.stack.ports.lwm2m ?? 0}`
  const d = await addDevice(s.api, deviceIdentity(run, ++n), { protocol: 'lwm2m', lwm2mUrl: url, lwm2m: { psk, queue: o.queue === true } }, {
    applicationUid: psk ? s.psk : s.nosec,
    rebootMs: 50,
    labels: o.labels ?? ['simulator'],
    software: { download: { retryDelayMs: 10, tries: 2 }, ...o.software }
  })
  onTestFinished(async () => { await d.close() })
  return { d, client: (d.transport as Lwm2mDevice).client, uid: d.systemUid }
}

export interface Package { uid: string, type: string, revision: string }

/**
 * An application released with one binary named `<file>` (the simulated device's package name and version come from
 * it), its model naming `manager` and no protocol of its own: its tasks go over the system's LwM2M application.
 */
export async function releasedPackage (stack: Stack, manager: 'LWM2M_FW' | 'LWM2M_SW', file: string, revision: string): Promise<Package> {
  const type = `com.example.${file.replace(/-[\d.]+\.bin$/, '')}.${randomBytes(4).toString('hex').replace(/\d/g, 'x')}`
  const info = await stack.ctx.artifacts.put(Readable.from([Buffer.from(`${type} ${revision}\n`.repeat(500))]))
  const application: Application = {
    uid: newUid(),
    companyUid: await companyUid(stack, COMPANY_NAME),
    name: file.replace(/-[\d.]+\.bin$/, ''),
    revision,
    type,
    category: manager === 'LWM2M_FW' ? 'FIRMWARE' : 'APPLICATION',
    communication: [],
    data: []
  }
  const binaries = [{ file: `bin/${file}`, revision, type: 'FULL', size: info.size, sha256: info.sha256, md5: info.md5, artifact: info.key }]
  await createRepositories(stack.db).applications.insertReleased({ application, ownerUid: null, applicationManager: manager, binaries }, Date.now())
  return { uid: application.uid, type, revision }
}

export type SoftwareAction = 'install' | 'uninstall' | 'start' | 'stop'

/** Starts a software operation on these systems; answers its uid. */
export async function software (stack: Stack, action: SoftwareAction, application: string, systems: Json, extra: Json = {}): Promise<string> {
  return await started(stack.call(stack.adminToken, {
    method: 'POST',
    url: `/api/v1/operations/systems/applications/${action}`,
    payload: { application, systems, scheduledTime: null, timeout: null, notify: false, reboot: false, protocol: '', parameters: null, ...extra }
  }))
}

/** Runs the operation to its end; answers its tasks. */
export async function finished (stack: Stack, operation: string, timeoutMs = 20_000): Promise<TaskJson[]> {
  await waitFinished(stack, operation, timeoutMs)
  return await allTasks(stack, operation)
}

/** The uids of the system's applications, as GET /systems/{uid} shows them. */
export async function applicationsOf (stack: Stack, systemUid: string): Promise<string[]> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${systemUid}` })
  expect(res.statusCode, res.body).toBe(200)
  return ((res.json().applications ?? []) as Array<{ uid: string }>).map((a) => a.uid).sort()
}
